import { whole } from '../contract/profile-template.js';
import type { ProfileTemplate } from '../contract/profiles.js';
import { type Json, type OpenApiDoc, type Shape, shapeOf } from './openapi-read.js';

/**
 * The job view template from the status read's answer schema: each field whose name says what it holds becomes
 * that variable (`${id}`, `${created_at}`, `${progress.percent}`, …), a field the create request also has echoes
 * the request, and every other required field keeps a constant of its type so the view stays the schema's shape.
 * Optional fields nobody can fill are left out.
 */
export interface ViewDraft {
  view: Record<string, ProfileTemplate>;
  times: 'iso' | 'unix_s' | 'unix_ms';
  /** The field guessed to hold the result, and the one guessed to hold the error (with its shape). */
  resultField?: string;
  errorField?: { name: string; shape: Shape };
  /** The time fields, to say how their format was guessed. */
  timeFields: string[];
  idField?: string;
}

const v = whole;
const ID = /^(id|name|job_?id|jobId|operation_?id|operationId|uuid)$/i;
const CREATED = /^(created(_?at|_?on|DateTime|Time)?|createTime|submitted_?at)$/i;
const UPDATED = /^(updated(_?at|DateTime|Time)?|last_?updated(_?at|DateTime)?|lastUpdatedDateTime|modified(_?at)?|updateTime)$/i;
const FINISHED = /^(completed(_?at|DateTime)?|finished(_?at)?|ended_?at|endTime|done_?at)$/i;
const PERCENT = /^(percent_?complete(d)?|percentCompleted|progress_?percent|progress)$/i;
const DONE_COUNT = /^(completed|succeeded|processed|done)_?(requests|items|count|tasks)$|^(completed|processed)(Requests|Items|Count)$/i;
const TOTAL_COUNT = /^total_?(requests|items|count|tasks)$|^total(Requests|Items|Count)$/i;
const RESULT = ['outputs', 'output', 'results', 'result', 'response', 'text', 'words'];
const ERROR = /^(error|errors|failure|failure_?reason|error_?message)$/i;

function constantOf(s: Shape): Json {
  if (s.raw.const !== undefined) return s.raw.const;
  if (s.raw.default !== undefined) return s.raw.default;
  if (s.nullable) return null;
  if (s.enum?.length) return s.enum[0]!;
  const t = s.types[0];
  if (t === 'string') return '';
  if (t === 'integer' || t === 'number') return 0;
  if (t === 'boolean') return false;
  if (t === 'array') return [];
  if (t === 'object') return {};
  return null;
}

export function draftView(doc: OpenApiDoc, job: Shape, statePath: string, request: Shape | undefined): ViewDraft {
  const out: ViewDraft = { view: {}, times: 'iso', timeFields: [] };
  const props = Object.entries(job.properties).map(([name, node]) => [name, shapeOf(doc, node)] as const);
  const stateTop = statePath.split('.')[0]!;
  out.resultField = RESULT.map((r) => props.find(([n]) => n.toLowerCase() === r)?.[0]).find((n) => n !== undefined);
  const done = props.find(([n]) => DONE_COUNT.test(n))?.[0];
  const total = props.find(([n]) => TOTAL_COUNT.test(n))?.[0];
  for (const [name, s] of props) {
    const required = job.required.includes(name);
    const time = (variable: string) => {
      out.timeFields.push(name);
      if (s.types.includes('integer') || s.types.includes('number')) out.times = /ms|millis/i.test(name) ? 'unix_ms' : 'unix_s';
      return v(s.nullable || !required ? `${variable}?` : variable);
    };
    let t: ProfileTemplate | undefined;
    if (name === stateTop) t = statePath === name ? v('state') : nested(statePath.split('.').slice(1), v('state'));
    else if (!out.idField && ID.test(name) && s.types.includes('string')) {
      t = v('id');
      out.idField = name;
    } else if (name === 'done' && s.types.includes('boolean')) t = v('done');
    else if (CREATED.test(name)) t = time('created_at');
    else if (UPDATED.test(name)) t = time('updated_at');
    else if (FINISHED.test(name)) t = time('finished_at');
    else if (PERCENT.test(name) && (s.types.includes('integer') || s.types.includes('number'))) t = v('progress.percent');
    else if (name === done) t = v('progress.completed');
    else if (name === total) t = v('progress.total');
    else if (name === out.resultField) t = v(required ? 'result.items' : 'result.items?');
    else if (ERROR.test(name) && !out.errorField) {
      out.errorField = { name, shape: s };
      t = v(required && !s.nullable ? 'error' : 'error?');
    } else if (request?.properties[name] !== undefined) t = v(required ? `request.${name}` : `request.${name}?`);
    else if (required) t = constantOf(s);
    if (t !== undefined) out.view[name] = t;
  }
  return out;
}

function nested(path: string[], leaf: ProfileTemplate): ProfileTemplate {
  return path.reduceRight<ProfileTemplate>((inner, key) => ({ [key]: inner }), leaf);
}

/** The job_error template for the error field's shape: a string, an object with code/message, or a list of them. */
export function errorTemplate(doc: OpenApiDoc, s: Shape): ProfileTemplate {
  if (s.types.includes('string') && !s.types.includes('object')) return v('error.message');
  const item = s.types.includes('array') ? shapeOf(doc, s.items) : s;
  const obj: Record<string, ProfileTemplate> = {};
  for (const [name, node] of Object.entries(item.properties)) {
    if (/^code$/i.test(name)) obj[name] = v('error.code');
    else if (/^(message|detail|description|reason)$/i.test(name)) obj[name] = v('error.message');
    else if (item.required.includes(name)) obj[name] = constantOf(shapeOf(doc, node));
  }
  if (!Object.keys(obj).length) Object.assign(obj, { code: v('error.code'), message: v('error.message') });
  return s.types.includes('array') ? [obj] : obj;
}

/** An object template with a constant for each required field of `s` except those already given. */
export function fillRequired(doc: OpenApiDoc, s: Shape, given: Record<string, ProfileTemplate>): Record<string, ProfileTemplate> {
  const out = { ...given };
  for (const name of s.required)
    if (!(name in out) && s.properties[name] !== undefined) out[name] = constantOf(shapeOf(doc, s.properties[name]));
  return out;
}
