import { whole } from '../contract/profile-template.js';
import type { ProfileInput, ProfileTemplate } from '../contract/profiles.js';
import { isObj, type Obj, type OpenApiDoc, type Shape, shapeOf } from './openapi-read.js';
import { answerOf, type Op } from './routes.js';

/**
 * The API's error envelope (from a 4xx answer of the job routes, else `default`) as an errors template, and the
 * auth scheme from `securitySchemes`. Each says whether it was read or assumed, so the draft can mark the latter.
 */
export interface EnvelopeDraft {
  errors: ProfileInput['errors'];
  /** Where the envelope was read from, or undefined when it is jobproof's assumption. */
  from?: string;
}

const v = whole;

function envelopeOf(doc: OpenApiDoc, s: Shape, depth = 0): Record<string, ProfileTemplate> {
  const out: Record<string, ProfileTemplate> = {};
  for (const [name, node] of Object.entries(s.properties)) {
    const p = shapeOf(doc, node);
    if (/^error$/i.test(name) && p.types.includes('object') && depth === 0) out[name] = envelopeOf(doc, p, 1);
    else if (/^(message|detail|error|error_?description)$/i.test(name) && p.types.includes('string')) out[name] = v('message');
    else if (/^(code|error_?code|reason)$/i.test(name)) out[name] = v('code');
    else if (/^status(_?code)?$/i.test(name) && (p.types.includes('integer') || p.types.includes('number'))) out[name] = v('status');
    else if (/^title$/i.test(name)) out[name] = v('title');
    else if (/^type$/i.test(name) && p.types.includes('string') && !p.enum) out[name] = v('type');
    else if (/^(request_?id|requestId|traceId)$/i.test(name)) out[name] = v('request_id');
    else if (s.required.includes(name) && p.enum?.length === 1) out[name] = p.enum[0]!;
  }
  return out;
}

export function draftErrors(doc: OpenApiDoc, ops: Op[]): EnvelopeDraft {
  for (const op of ops) {
    const responses = isObj(op.op.responses) ? op.op.responses : {};
    const code = Object.keys(responses).find((c) => /^4\d\d$|^4XX$/i.test(c)) ?? ('default' in responses ? 'default' : undefined);
    if (!code) continue;
    const a = answerOf(doc, responses[code], 400);
    if (!a.body) continue;
    const body = envelopeOf(doc, a.body);
    if (!JSON.stringify(body).includes(v('message'))) continue;
    return { errors: { content_type: a.mediaType ?? 'application/json', body }, from: `the ${code} answer of ${op.method} ${op.path}` };
  }
  return { errors: { body: { error: { code: v('code'), message: v('message') } } } };
}

export interface AuthDraft {
  auth: ProfileInput['auth'];
  from?: string;
}

export function draftAuth(doc: OpenApiDoc): AuthDraft {
  const schemes = isObj(doc.root.components) && isObj(doc.root.components.securitySchemes) ? doc.root.components.securitySchemes : {};
  for (const [name, raw] of Object.entries(schemes)) {
    const s = raw as Obj;
    if (s.type === 'http' && String(s.scheme).toLowerCase() === 'bearer')
      return { auth: { type: 'bearer' }, from: `securitySchemes.${name}` };
    if (s.type === 'apiKey' && s.in === 'header' && typeof s.name === 'string')
      return { auth: { type: 'header', name: s.name }, from: `securitySchemes.${name}` };
    if (s.type === 'oauth2' || s.type === 'openIdConnect')
      return { auth: { type: 'bearer' }, from: `securitySchemes.${name} (${s.type} tokens as bearer)` };
  }
  return { auth: { type: 'bearer' } };
}
