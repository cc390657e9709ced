import { profileJsonSchema } from './profiles.js';

/**
 * The profile reference (docs/profile-reference.md), written from the published JSON Schema: every field with its
 * type, whether it is required, its default and its description. Generated so the page and the schema cannot drift
 * (`npm run profile-reference` rewrites both files; a test fails while the committed ones are stale).
 */
type Schema = {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  pattern?: string;
  default?: unknown;
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: Schema | boolean;
  propertyNames?: Schema;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  minimum?: number;
  maximum?: number;
};

interface Row {
  field: string;
  type: string;
  required: string;
  default: string;
  description: string;
}

const code = (s: string) => `\`${s}\``;
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function variants(s: Schema): Schema[] | undefined {
  return s.oneOf ?? s.anyOf;
}

/** The discriminator of a union's variant: its property with a constant value (`type: header`). */
function labelOf(v: Schema, i: number): string {
  for (const [k, p] of Object.entries(v.properties ?? {})) if (p.const !== undefined) return `${k}: ${String(p.const)}`;
  const key = v.required?.[0];
  return key ? `with ${key}` : `form ${i + 1}`;
}

/** A union of constants (`405 | 501`) reads as an enum. */
function constants(s: Schema): unknown[] | undefined {
  const vs = variants(s);
  return vs?.every((v) => v.const !== undefined) ? vs.map((v) => v.const) : undefined;
}

function typeOf(s: Schema): string {
  const vs = variants(s);
  const consts = constants(s);
  if (consts) return consts.map((c) => code(JSON.stringify(c))).join(' | ');
  if (vs) {
    const nonNull = vs.filter((v) => v.type !== 'null');
    const t = nonNull.length === 1 ? typeOf(nonNull[0]!) : 'one of the forms below';
    return nonNull.length < vs.length ? `${t} or null` : t;
  }
  if (s.const !== undefined) return code(JSON.stringify(s.const));
  if (s.enum) return s.enum.map((e) => code(JSON.stringify(e))).join(' | ');
  if (s.type === 'array') return `array of ${s.items ? typeOf(s.items) : 'any'}`;
  if (s.type === 'object' && !s.properties)
    return `map of ${typeof s.additionalProperties === 'object' ? typeOf(s.additionalProperties) : 'any'}`;
  if (s.type === 'object') return 'object';
  if (s.type === 'integer' || s.type === 'number') {
    const range = s.minimum !== undefined || s.maximum !== undefined ? ` ${s.minimum ?? ''}–${s.maximum ?? ''}` : '';
    return `${s.type}${range}`;
  }
  if (s.type === 'string') return s.pattern ? `string ${code(s.pattern)}` : 'string';
  if (Array.isArray(s.type)) return s.type.join(' or ');
  return s.type ?? 'template (any JSON)';
}

/** Object schemas already listed, by their JSON: a second use (every route) points at the first. */
type Seen = Map<string, string>;

function walk(s: Schema, field: string, required: string, out: Row[], seen: Seen): void {
  const def = s.default === undefined ? '' : code(JSON.stringify(s.default));
  const key = s.properties ? JSON.stringify({ ...s, default: undefined, description: undefined }) : undefined;
  const first = key === undefined ? undefined : seen.get(key);
  const description = first ? `${s.description ?? ''} Fields as in ${code(first)}.`.trim() : (s.description ?? '');
  out.push({ field: code(field), type: typeOf(s), required, default: def, description });
  if (first) return;
  if (key !== undefined) seen.set(key, field);
  const vs = constants(s) ? undefined : variants(s);
  if (vs) {
    const nonNull = vs.filter((v) => v.type !== 'null');
    if (nonNull.length === 1) {
      children(nonNull[0]!, field, '', out, seen);
      return;
    }
    nonNull.forEach((v, i) => {
      const label = labelOf(v, i);
      out.push({ field: `${code(field)} — ${label}`, type: 'form', required: '', default: '', description: v.description ?? '' });
      children(v, field, ` (${label})`, out, seen);
    });
    return;
  }
  children(s, field, '', out, seen);
}

function children(s: Schema, field: string, when: string, out: Row[], seen: Seen): void {
  if (s.properties) {
    for (const [k, p] of Object.entries(s.properties)) {
      if (p.const !== undefined && when) continue; // the discriminator, named in the form's row
      walk(p, `${field}.${k}`, s.required?.includes(k) ? `yes${when}` : '', out, seen);
    }
  } else if (s.type === 'object' && typeof s.additionalProperties === 'object' && s.additionalProperties.properties) {
    children(s.additionalProperties, `${field}.<key>`, when, out, seen);
  } else if (s.type === 'array' && s.items?.properties) children(s.items, `${field}[]`, when, out, seen);
}

/** The reference page, one table per top-level field. */
export function profileReferenceMarkdown(): string {
  const root = profileJsonSchema() as Schema;
  const lines = [
    '# Profile reference',
    '',
    '<!-- Generated from the zod schema (src/contract/profiles.ts) by `npm run profile-reference`; do not edit. -->',
    '',
    `${root.description ?? ''} The guide is [profiles.md](profiles.md); the JSON Schema is`,
    '[`schemas/profile.schema.json`](../schemas/profile.schema.json) (also `jobproof profile schema`, and',
    '`GET /_profiles/schema.json` on a running provider). A field is required where the table says `yes`; a',
    `default applies when the field is left out. "template" is any JSON where \`\${name}\` is replaced (profiles.md).`,
    '',
  ];
  const table = (rows: Row[]) => [
    '| field | type | required | default | description |',
    '| --- | --- | --- | --- | --- |',
    ...rows.map((r) => `| ${r.field} | ${cell(r.type)} | ${r.required} | ${cell(r.default)} | ${cell(r.description)} |`),
    '',
  ];
  const top: Row[] = [];
  const sections: string[] = [];
  const seen: Seen = new Map();
  for (const [k, p] of Object.entries(root.properties ?? {})) {
    const rows: Row[] = [];
    walk(p, k, root.required?.includes(k) ? 'yes' : '', rows, seen);
    if (rows.length === 1) top.push(rows[0]!);
    else sections.push(`## \`${k}\``, '', ...table(rows));
  }
  return `${[...lines, '## Top level', '', ...table(top), ...sections].join('\n').trimEnd()}\n`;
}
