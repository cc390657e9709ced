import type { z } from 'zod';
import { locateJson, nearest, positionOf, type Locations } from './json-locate.js';
import { DIALECT_NAMES } from './dialects.js';
import { JOB_STATES } from './jobs.js';
import { variablesOf, whole } from './profile-template.js';
import { takeConfirmations } from './profile-confirm.js';
import { ERROR_VARIABLES, knownVariable, LIST_VARIABLES, VIEW_VARIABLES, WEBHOOK_VARIABLES } from './profile-vars.js';
import { ProfileSchema, type Profile, type ProfileRoute } from './profiles.js';
import { readYaml } from './yaml-locate.js';

/** One mistake in a profile file: where (line, column, dotted path), what, and how to mend it. */
export interface ProfileProblem {
  line: number;
  col: number;
  path: string;
  message: string;
  fix: string;
}

export type ProfileParse = { ok: true; profile: Profile } | { ok: false; problems: ProfileProblem[] };

type Path = ReadonlyArray<string | number>;

function dotted(path: Path): string {
  return path.length ? path.map(String).join('.') : '(file)';
}

function fixFor(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'unrecognized_keys':
      return `remove ${issue.keys.map((k) => `"${k}"`).join(', ')} or check the spelling against the schema (jobproof profile schema)`;
    case 'invalid_type':
      return issue.input === undefined ? 'add this field' : `give a value of type ${issue.expected}`;
    case 'invalid_value':
      return `use one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_union':
      return 'compare with a built-in profile (profiles/*.json): one of the documented forms is expected here';
    case 'invalid_format':
      return 'write it in the form the message names';
    default:
      return 'see docs/profiles.md for this field';
  }
}

/** JSON.parse's error as a position: Node 20 says "at position N", newer Nodes "(line L column C)". */
function syntaxProblem(text: string, err: Error): ProfileProblem {
  const lc = /line (\d+) column (\d+)/.exec(err.message);
  const at = /position (\d+)/.exec(err.message);
  const pos = lc ? { line: Number(lc[1]), col: Number(lc[2]) } : positionOf(text, at ? Number(at[1]) : 0);
  return {
    ...pos,
    path: '(file)',
    message: `not valid JSON: ${err.message}`,
    fix: 'mend the JSON syntax at this place (a missing comma, quote or brace)',
  };
}

const IDLESS_ROUTES = ['create', 'find'];

function routes(p: Profile): Array<[Path, ProfileRoute]> {
  const out: Array<[Path, ProfileRoute]> = [
    [['create', 'route'], p.create.route],
    [['read', 'route'], p.read.route],
  ];
  if (p.find) out.push([['find', 'route'], p.find.route]);
  if (p.cancel)
    out.push(
      'route' in p.cancel ? [['cancel', 'route'], p.cancel.route] : [['cancel', 'unsupported', 'route'], p.cancel.unsupported.route],
    );
  if (p.results.route) out.push([['results', 'route'], p.results.route]);
  return out;
}

/** Checks a schema cannot make: routes name the job, every state is served and mapped, templates name known variables. */
export function semanticProblems(p: Profile): Array<{ path: Path; message: string; fix: string }> {
  const out: Array<{ path: Path; message: string; fix: string }> = [];
  // The journal records a profile's name as its requests' dialect: a dialect's name would pass them off as its.
  if ((DIALECT_NAMES as readonly string[]).includes(p.name) && p.name !== 'native')
    out.push({
      path: ['name'],
      message: `"${p.name}" is a built-in dialect's name`,
      fix: `name the profile after your API (e.g. "${p.name}-batch"); the ${p.name} dialect is served at /${p.name} already`,
    });
  for (const [path, r] of routes(p)) {
    if (IDLESS_ROUTES.includes(String(path[0]))) continue;
    if (!r.path.includes('{id}') && !r.id_field)
      out.push({
        path: [...path, 'path'],
        message: `the ${path[0]} route has no {id}`,
        fix: 'put {id} where the job id goes (/v1/reports/{id}) or name the body field holding it in id_field',
      });
  }
  const seen = new Map<string, Path>();
  for (const [path, r] of routes(p)) {
    const k = `${r.method} ${r.path.replace(/\{id\}/g, '{}')} ${r.operation?.value ?? ''}`;
    const other = seen.get(k);
    if (other)
      out.push({
        path: [...path, 'path'],
        message: `the same route as ${dotted(other)}`,
        fix: 'give each route its own method, path or operation header',
      });
    seen.set(k, path);
  }
  const values = p.state.values;
  for (const [value, target] of Object.entries(p.state.serve_as)) {
    if (!(target! in values))
      out.push({
        path: ['state', 'serve_as', value],
        message: `"${target}" is not a state value mapped in state.values`,
        fix: `add "${target}" to state.values with the engine state it means, or serve one of ${Object.keys(values).join(', ')}`,
      });
  }
  const served = new Set([...Object.values(values), ...Object.keys(p.state.serve_as)]);
  for (const s of JOB_STATES) {
    if (!served.has(s) && !p.state.derived)
      out.push({
        path: ['state', 'values'],
        message: `no value of the API stands for the engine state "${s}"`,
        fix: `map a value to "${s}" in state.values, or name the value to show in state.serve_as.${s}`,
      });
  }
  for (const [i, rule] of (p.state.derived ?? []).entries()) {
    for (const path of Object.keys(rule.when)) {
      const top = path.split('.')[0]!;
      const inView = p.view !== null && typeof p.view === 'object' && !Array.isArray(p.view) && (top in p.view || `${top}?` in p.view);
      if (!inView)
        out.push({
          path: ['state', 'derived', i, 'when', path],
          message: `the view has no field ${top}`,
          fix: `add "${top}" to the view, or test a field the view has`,
        });
    }
  }
  const vars = variablesOf(p.view);
  if (!p.state.derived && !vars.some((v) => v.name === 'state'))
    out.push({
      path: ['view'],
      message: `the view never shows ${whole('state')}`,
      fix: `put "${whole('state')}" at the field holding the state, or give state.derived rules`,
    });
  if (!vars.some((v) => v.name === 'id'))
    out.push({
      path: ['view'],
      message: `the view never shows ${whole('id')}`,
      fix: `put "${whole('id')}" (or "operations/${whole('id')}") at the field naming the job`,
    });
  if (p.results.mode === 'inline' && !vars.some((v) => v.name === 'result.items'))
    out.push({
      path: ['results', 'mode'],
      message: `inline results but the view has no ${whole('result.items')}`,
      fix: `put "${whole('result.items?')}" where the API shows the output, or use mode route`,
    });
  if (p.results.mode !== 'inline' && !p.results.route)
    out.push({
      path: ['results'],
      message: `results mode ${p.results.mode} needs a route`,
      fix: 'add results.route {method, path with {id}}',
    });
  if (p.idempotency.source === 'client_id' && p.id.source !== 'body')
    out.push({
      path: ['idempotency', 'source'],
      message: 'client_id idempotency needs a client-chosen id',
      fix: 'set id.source to body, or choose another idempotency source',
    });
  const templates: Array<[Path, unknown, Record<string, string>]> = [
    [['view'], p.view, VIEW_VARIABLES],
    [['create', 'body'], p.create.body, { ...VIEW_VARIABLES, view: 'the job view' }],
    [['errors', 'body'], p.errors.body, ERROR_VARIABLES],
  ];
  if (p.job_error) templates.push([['job_error', 'template'], p.job_error.template, VIEW_VARIABLES]);
  if (p.find) templates.push([['find', 'body'], p.find.body, LIST_VARIABLES]);
  if (p.cancel && 'body' in p.cancel) templates.push([['cancel', 'body'], p.cancel.body, { ...VIEW_VARIABLES, view: 'the job view' }]);
  if (p.results.body !== undefined) templates.push([['results', 'body'], p.results.body, LIST_VARIABLES]);
  if (p.webhooks) templates.push([['webhooks', 'payload'], p.webhooks.payload, WEBHOOK_VARIABLES]);
  for (const [k, h] of Object.entries(p.create.headers)) templates.push([['create', 'headers', k], h, VIEW_VARIABLES]);
  for (const [path, t, known] of templates) {
    for (const v of variablesOf(t)) {
      if (!knownVariable(v.name, known))
        out.push({
          path: [...path, ...(v.path ? v.path.split('.') : [])],
          message: `unknown variable \${${v.name}}`,
          fix: `use one of ${Object.keys(known).join(', ')}`,
        });
    }
  }
  return out;
}

/** How a profile's text is written: by its file's extension, else JSON when it opens with `{`, else YAML. */
export type ProfileFormat = 'json' | 'yaml';

export function profileFormat(text: string, file?: string): ProfileFormat {
  if (file && /\.ya?ml$/i.test(file)) return 'yaml';
  if (file && /\.json$/i.test(file)) return 'json';
  return text.trimStart().startsWith('{') ? 'json' : 'yaml';
}

/** The text as a value with the position of each path, or its syntax error located. */
function read(text: string, format: ProfileFormat): { value: unknown; locs: Locations } | ProfileProblem {
  if (format === 'yaml') {
    const y = readYaml(text);
    if (y.ok) return { value: y.value, locs: y.locs };
    return {
      ...y.at,
      path: '(file)',
      message: `not valid YAML: ${y.message}`,
      fix: 'mend the YAML at this place (indentation, a missing colon, or quote a value holding `: `, `#`, `{` or `}`)',
    };
  }
  try {
    return { value: JSON.parse(text), locs: locateJson(text) };
  } catch (err) {
    return syntaxProblem(text, err as Error);
  }
}

/** Parse and check a profile's text (JSON or YAML: `profileFormat`); every problem with its line, column and path. */
export function parseProfileText(text: string, format: ProfileFormat = profileFormat(text)): ProfileParse {
  const r = read(text, format);
  if ('line' in r) return { ok: false, problems: [r] };
  const at = (path: Path) => nearest(r.locs, path);
  const confirm = takeConfirmations(r.value);
  const unconfirmed = confirm.unconfirmed.map((u) => ({ ...at(u.at), path: u.at.join('.'), message: u.message, fix: u.fix }));
  const parsed = ProfileSchema.safeParse(confirm.rest);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => {
      const path = i.code === 'unrecognized_keys' ? [...i.path, i.keys[0]!] : i.path;
      return { ...at(path as Path), path: dotted(path as Path), message: i.message, fix: fixFor(i) };
    });
    return { ok: false, problems: [...unconfirmed, ...problems] };
  }
  const semantic = semanticProblems(parsed.data).map((s) => ({ ...at(s.path), path: dotted(s.path), message: s.message, fix: s.fix }));
  if (unconfirmed.length || semantic.length) return { ok: false, problems: [...unconfirmed, ...semantic] };
  return { ok: true, profile: parsed.data };
}

/** `file:line:col path: message — fix`, the form `profile check` prints. */
export function formatProblem(file: string, p: ProfileProblem): string {
  return `${file}:${p.line}:${p.col} ${p.path}: ${p.message}\n    fix: ${p.fix}`;
}
