import type { JobState } from './jobs.js';
import { getPath, variablesOf, whole } from './profile-template.js';
import type { Profile } from './profiles.js';

/**
 * Reading a profile's answers back: where a client finds the job id and the state the provider put there. The
 * provider renders from the same templates (fake-provider/profiles/view.ts), so the two agree by construction; a
 * generic client adapter is built on these.
 */

function matchInterpolated(template: string, value: string, name: string): string | undefined {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const parts = template.split(/(\$\{[\w.]+\??\})/);
  const source = parts.map((p) => (p === `\${${name}}` ? '(?<v>[^/?#]+)' : /^\$\{[\w.]+\??\}$/.test(p) ? '.*?' : esc(p))).join('');
  return new RegExp(`^${source}$`).exec(value)?.groups?.v;
}

/** The value of variable `name` in a rendered `answer` of `template` (whole, or inside a string such as `operations/${id}`). */
export function variableValue(template: unknown, answer: unknown, name: string): unknown {
  for (const v of variablesOf(template)) {
    if (v.name !== name) continue;
    // A `key?` of the template is rendered as `key`: the answer is read without the `?`.
    const at = v.path === '' ? answer : getPath(answer, v.path.replace(/\?(?=\.|$)/g, ''));
    if (v.whole) return at;
    const t = v.path === '' ? template : getPath(template, v.path.replace(/\.(\d+)/g, '.$1'));
    if (typeof t === 'string' && typeof at === 'string') return matchInterpolated(t, at, name);
  }
  return undefined;
}

/** The create body's template, with `${view}` seen through. */
export function createTemplate(p: Profile): unknown {
  return p.create.body === whole('view') ? p.view : p.create.body;
}

/** The job id a create answer names: in its body, else in a header (`Location`, `Operation-Location`). */
export function idOfCreate(p: Profile, body: unknown, header: (name: string) => string | null): string | undefined {
  const t = createTemplate(p);
  const fromBody = t === null || body === null || body === undefined ? undefined : variableValue(t, body, 'id');
  if (typeof fromBody === 'string') return fromBody;
  for (const [name, template] of Object.entries(p.create.headers)) {
    const v = header(name);
    if (v === null) continue;
    const id = matchInterpolated(template, v, 'id');
    if (id) return decodeURIComponent(id);
  }
  return undefined;
}

function matches(want: unknown, got: unknown): boolean {
  if (want === '$present') return got !== undefined && got !== null;
  if (want === '$absent') return got === undefined || got === null;
  return JSON.stringify(want) === JSON.stringify(got);
}

/** The engine state a view shows: its state field through `state.values`, or the first `state.derived` rule that matches. */
export function stateOfView(p: Profile, view: unknown): JobState | undefined {
  if (p.state.derived) {
    for (const rule of p.state.derived) {
      if (Object.entries(rule.when).every(([path, want]) => matches(want, getPath(view, path)))) return rule.state;
    }
    return undefined;
  }
  const v = variableValue(p.view, view, 'state');
  return typeof v === 'string' ? p.state.values[v] : undefined;
}
