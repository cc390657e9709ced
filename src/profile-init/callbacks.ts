import type { JobState } from '../contract/jobs.js';
import { whole } from '../contract/profile-template.js';
import type { ProfileInput, ProfileTemplate } from '../contract/profiles.js';
import { isObj, type Obj, type OpenApiDoc, deref, shapeOf } from './openapi-read.js';
import { answerOf, type Op } from './routes.js';
import { engineStateOf } from './states.js';
import { fillRequired } from './view.js';

/**
 * Webhooks from the create's OpenAPI `callbacks`: the URL comes from the request body field the callback expression
 * names (`{$request.body#/webhook_url}`), the payload is the callback's request schema — the job itself (`${view}`)
 * when it is the job schema, else its id field and a status field carrying the API's event name — and an event per
 * engine state the status enum names (every final state when it names none).
 */
export interface CallbackDraft {
  webhooks: NonNullable<ProfileInput['webhooks']>;
  name: string;
}

const ENGINE_EVENTS: JobState[] = ['running', 'succeeded', 'failed', 'cancelled', 'expired'];

export function draftWebhooks(doc: OpenApiDoc, create: Op, jobRef: string | undefined): CallbackDraft | undefined {
  const callbacks = isObj(create.op.callbacks) ? create.op.callbacks : {};
  for (const [name, raw] of Object.entries(callbacks)) {
    const cb = deref(doc, raw);
    if (!isObj(cb)) continue;
    for (const [expression, item] of Object.entries(cb)) {
      const field = /^\{\$request\.body#\/([^}]+)\}$/.exec(expression)?.[1];
      const post = isObj(item) ? deref(doc, (item as Obj).post) : undefined;
      if (!field || !isObj(post)) continue;
      const body = answerOf(doc, post.requestBody, 200);
      const ref = body.ref;
      const url_field = field.split('/').join('.');
      if (!body.body || (jobRef && ref === jobRef)) {
        const events = Object.fromEntries(ENGINE_EVENTS.filter((s) => s !== 'running').map((s) => [`job.${s}`, name]));
        return { name, webhooks: { url_field, events, payload: whole('view'), signing: 'none' } };
      }
      const given: Record<string, ProfileTemplate> = {};
      const events: Record<string, string> = {};
      for (const [prop, node] of Object.entries(body.body.properties)) {
        const s = shapeOf(doc, node);
        const values = (s.enum ?? []).filter((v): v is string => typeof v === 'string');
        if (/^(id|\w+_id|\w+Id)$/.test(prop) && s.types.includes('string') && !Object.values(given).includes(whole('id')))
          given[prop] = whole('id');
        else if (values.some((v) => engineStateOf(v))) {
          given[prop] = whole('event');
          for (const v of values) {
            const state = engineStateOf(v);
            if (state && ENGINE_EVENTS.includes(state)) events[`job.${state}`] ??= v;
          }
          const failed = events['job.failed'];
          for (const s of ['cancelled', 'expired'] as const) if (failed && !events[`job.${s}`]) events[`job.${s}`] = failed;
        }
      }
      if (!Object.keys(events).length) for (const s of ENGINE_EVENTS.slice(1)) events[`job.${s}`] = name;
      return { name, webhooks: { url_field, events, payload: fillRequired(doc, body.body, given), signing: 'none' } };
    }
  }
  return undefined;
}
