import { parse as parseYaml } from 'yaml';

/**
 * Reading an OpenAPI 3.x document for the drafter: YAML or JSON text, local `$ref`s (`#/components/…`) followed on
 * demand, and a schema flattened to the one object shape a job view has (allOf merged; of anyOf/oneOf the first
 * object branch, a `null` branch only making the field nullable). External `$ref`s are not followed: a draft names
 * what it could not see rather than fetching anything.
 */
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type Obj = { [k: string]: Json };
export interface OpenApiDoc {
  root: Obj;
  version: string;
}

export const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

export type DocRead = { ok: true; doc: OpenApiDoc } | { ok: false; message: string };

export function readOpenApi(text: string): DocRead {
  let root: unknown;
  try {
    root = text.trimStart().startsWith('{') ? JSON.parse(text) : parseYaml(text, { maxAliasCount: 1000 });
  } catch (err) {
    return { ok: false, message: `not YAML or JSON: ${(err as Error).message.split('\n')[0]}` };
  }
  if (!isObj(root)) return { ok: false, message: 'not an OpenAPI document (the top level is not an object)' };
  const version = root.openapi;
  if (typeof version !== 'string' || !/^3\.\d+/.test(version))
    return {
      ok: false,
      message:
        typeof root.swagger === 'string'
          ? `a Swagger ${root.swagger} document: convert it to OpenAPI 3.x first (e.g. with swagger2openapi)`
          : 'not an OpenAPI 3.x document (no `openapi: 3.x` field)',
    };
  if (!isObj(root.paths)) return { ok: false, message: 'the document has no `paths`' };
  return { ok: true, doc: { root, version } };
}

/** Follow a local `$ref` (JSON pointer into the document), a few hops at most; anything else as it is. */
export function deref(doc: OpenApiDoc, node: Json | undefined): Json | undefined {
  let n = node;
  for (let hops = 0; hops < 20 && isObj(n) && typeof n.$ref === 'string'; hops++) {
    const ref = n.$ref;
    if (!ref.startsWith('#/')) return undefined;
    let at: Json | undefined = doc.root;
    for (const raw of ref.slice(2).split('/')) {
      const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      at = isObj(at) ? at[key] : undefined;
    }
    n = at;
  }
  return n;
}

/** A schema as one shape: its properties (each dereferenced and flattened too, lazily), required names, enum, type. */
export interface Shape {
  types: string[];
  nullable: boolean;
  properties: Record<string, Json>;
  required: string[];
  enum?: Json[];
  items?: Json;
  raw: Obj;
}

const typesOf = (s: Obj): string[] => (Array.isArray(s.type) ? s.type.map(String) : typeof s.type === 'string' ? [s.type] : []);

export function shapeOf(doc: OpenApiDoc, node: Json | undefined, depth = 0): Shape {
  const s = deref(doc, node);
  const out: Shape = { types: [], nullable: false, properties: {}, required: [], raw: isObj(s) ? s : {} };
  if (!isObj(s) || depth > 12) return out;
  out.types = typesOf(s).filter((t) => t !== 'null');
  out.nullable = typesOf(s).includes('null') || s.nullable === true;
  if (Array.isArray(s.enum)) out.enum = s.enum;
  if (s.const !== undefined && !out.enum) out.enum = [s.const];
  if (s.items !== undefined) out.items = s.items;
  if (isObj(s.properties)) Object.assign(out.properties, s.properties);
  if (Array.isArray(s.required)) out.required.push(...s.required.map(String));
  const merge = (part: Shape) => {
    if (!out.types.length) out.types = part.types;
    out.nullable ||= part.nullable;
    out.enum ??= part.enum;
    out.items ??= part.items;
    out.properties = { ...part.properties, ...out.properties };
    out.required.push(...part.required);
  };
  if (Array.isArray(s.allOf)) for (const p of s.allOf) merge(shapeOf(doc, p, depth + 1));
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = Array.isArray(s[key]) ? (s[key] as Json[]).map((b) => shapeOf(doc, b, depth + 1)) : [];
    if (!branches.length) continue;
    const nullOnly = (b: Shape) => !b.types.length && b.nullable;
    out.nullable ||= branches.some(nullOnly);
    const pick = branches.find((b) => Object.keys(b.properties).length) ?? branches.find((b) => !nullOnly(b));
    if (pick) merge({ ...pick, required: key === 'anyOf' ? [] : pick.required });
  }
  if (!out.types.length && Object.keys(out.properties).length) out.types = ['object'];
  return out;
}

/** The property's shape by dotted path (`metadata.state`). */
export function propertyAt(doc: OpenApiDoc, shape: Shape, path: string): Shape | undefined {
  let at: Shape | undefined = shape;
  for (const part of path.split('.')) {
    const p: Json | undefined = at?.properties[part];
    if (p === undefined) return undefined;
    at = shapeOf(doc, p);
  }
  return at;
}
