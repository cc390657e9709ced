/**
 * The templates of a profile (profiles.ts): JSON where a string that is exactly `${name}` stands for a value of any
 * JSON type (`${name?}`: its key is dropped when the value is null or absent) and `${name}` inside a longer string is
 * interpolated. A key ending in `?` (`"response?": {…}`) is kept, without the `?`, only when every whole variable
 * inside its value has a value. One reading serves both sides: the provider renders answers with `render`, a client finds where a
 * fact sits with `pathsOf` (the dotted path of the leaf holding `${id}`, `${state}`, …).
 */

/** The template text naming a variable whole: `$` `{name}` (written so, not as a literal, for linters of JS templates). */
export function whole(name: string): string {
  return `$${'{'}${name}}`;
}

export type Json = string | number | boolean | null | Json[] | { [k: string]: Json };

/** A variable's value; `undefined` = not known here (rendered as null, or the key dropped with `?`). */
export type Resolve = (name: string) => unknown;

const WHOLE = /^\$\{([A-Za-z_][\w.]*)(\?)?\}$/;
const PART = /\$\{([A-Za-z_][\w.]*)\}/g;

/** Every variable a template names, with the dotted path where it sits (`` for the root). */
export function variablesOf(t: unknown, path = ''): Array<{ name: string; path: string; whole: boolean }> {
  if (typeof t === 'string') {
    const w = WHOLE.exec(t);
    if (w) return [{ name: w[1]!, path, whole: true }];
    return [...t.matchAll(PART)].map((m) => ({ name: m[1]!, path, whole: false }));
  }
  if (Array.isArray(t)) return t.flatMap((v, i) => variablesOf(v, path ? `${path}.${i}` : String(i)));
  if (t !== null && typeof t === 'object') return Object.entries(t).flatMap(([k, v]) => variablesOf(v, path ? `${path}.${k}` : k));
  return [];
}

/** The dotted paths at which a template shows a variable whole (`${state}` → `metadata.state`). */
export function pathsOf(t: unknown, name: string): string[] {
  return variablesOf(t)
    .filter((v) => v.name === name && v.whole)
    .map((v) => v.path);
}

function text(v: unknown): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

const DROP = Symbol('drop');

function renderValue(t: unknown, resolve: Resolve): unknown {
  if (typeof t === 'string') {
    const w = WHOLE.exec(t);
    if (w) {
      const v = resolve(w[1]!);
      if (w[2] && (v === undefined || v === null)) return DROP;
      return v === undefined ? null : v;
    }
    return t.includes('${') ? t.replace(PART, (_m, name: string) => text(resolve(name))) : t;
  }
  if (Array.isArray(t)) return t.map((v) => renderValue(v, resolve)).filter((v) => v !== DROP);
  if (t !== null && typeof t === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(t)) {
      if (k.endsWith('?') && k.length > 1) {
        let missing = false;
        const r = renderValue(v, (name) => {
          const x = resolve(name);
          if (x === undefined || x === null) missing = true;
          return x;
        });
        if (!missing && r !== DROP) out[k.slice(0, -1)] = r;
        continue;
      }
      const r = renderValue(v, resolve);
      if (r !== DROP) out[k] = r;
    }
    return out;
  }
  return t;
}

/** The template with its variables filled in. */
export function render(t: unknown, resolve: Resolve): unknown {
  const r = renderValue(t, resolve);
  return r === DROP ? null : r;
}

/** Interpolate a string template (`${base}/v1/reports/${id}`). */
export function renderString(t: string, resolve: Resolve): string {
  return t.replace(PART, (_m, name: string) => text(resolve(name)));
}

/** The value at a dotted path, or undefined. */
export function getPath(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}
