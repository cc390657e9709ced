import { CONFIRM_KEY, type ConfirmEntry } from '../contract/profile-confirm.js';
import { whole } from '../contract/profile-template.js';
import type { ProfileInput } from '../contract/profiles.js';
import { draftWebhooks } from './callbacks.js';
import { draftAuth, draftErrors } from './envelope.js';
import { clientRefOf, draftFind, draftIdempotency } from './lookup.js';
import { deref, isObj, type OpenApiDoc, readOpenApi, type Shape, shapeOf } from './openapi-read.js';
import { findCancel, findCreate, findList, findRead, type Op, operations, profilePath } from './routes.js';
import { derivedStates, findStateField, isFinal, mapStates } from './states.js';
import { draftView, errorTemplate } from './view.js';

/**
 * OpenAPI 3.x document → a draft profile. Everything the document says is written as the profile says it; every
 * guess the document could not settle is written too (so the draft is complete) and listed under `x-jobproof-confirm`
 * for a person, which keeps `profile check` and `serve` refusing the draft until each is confirmed and deleted.
 */
export type Draft =
  | { ok: true; profile: ProfileInput & { [CONFIRM_KEY]: ConfirmEntry[] }; found: string[]; guesses: ConfirmEntry[] }
  | { ok: false; message: string };

/** A profile name (PROFILE_NAME: a letter, then 1-40 of a-z 0-9 -) from the document's title. */
function slug(title: string): string {
  const s = title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^[^a-z]+/, '')
    .slice(0, 41)
    .replace(/-+$/, '');
  return s.length >= 2 ? s : 'drafted-api';
}

function requestShape(doc: OpenApiDoc, op: Op): Shape | undefined {
  const rb = deref(doc, op.op.requestBody);
  const content = isObj(rb) && isObj(rb.content) ? rb.content : undefined;
  const media = content && (Object.entries(content).find(([t]) => /json/i.test(t))?.[1] ?? Object.values(content)[0]);
  return isObj(media) && media.schema !== undefined ? shapeOf(doc, media.schema) : undefined;
}

export function draftProfile(text: string, name?: string): Draft {
  const read0 = readOpenApi(text);
  if (!read0.ok) return read0;
  const doc = read0.doc;
  const ops = operations(doc);
  const create = findCreate(doc, ops);
  if (!create)
    return {
      ok: false,
      message:
        'no asynchronous create route found: no POST/PUT answers 202 or 201, a Location / Operation-Location header, x-ms-long-running-operation, or a body with a job state (an enum such as queued/running/succeeded)',
    };
  const read = findRead(doc, ops, create);
  if (!read)
    return {
      ok: false,
      message: `found the create ${create.op.method} ${create.op.path} but no status read: a GET whose last path segment is the job id and whose answer has a state enum`,
    };
  const found: string[] = [`create: ${create.op.method} ${create.op.path} (${create.reasons.join(', ')})`, `read: GET ${read.op.path}`];
  const guesses: ConfirmEntry[] = [];
  const guess = (path: string, g: string, why: string) => guesses.push({ path, guess: g, why });
  if (create.others.length)
    guess(
      'create.route',
      `the create is ${create.op.method} ${create.op.path}`,
      `other routes looked like a create too: ${create.others.join(', ')}`,
    );
  if (read.others.length)
    guess('read.route', `the status read is GET ${read.op.path}`, `other reads showed a job too: ${read.others.join(', ')}`);

  const state = findStateField(doc, read.answer.body);
  const request = requestShape(doc, create.op);
  const view = draftView(doc, read.answer.body, state?.path ?? '', request);
  let stateBlock: ProfileInput['state'];
  if (state) {
    const states = mapStates(state.values);
    stateBlock = { values: states.values, serve_as: states.serveAs };
    guess(
      `view.${state.path}`,
      `the field ${state.path} holds the job's state`,
      state.rivals.length
        ? `other enums looked like a state too: ${state.rivals.join(', ')}`
        : 'the document does not say which field is the state',
    );
    const finals = Object.entries(states.values)
      .filter(([, s]) => isFinal(s))
      .map(([v]) => v);
    guess('state.values', `the final values are ${finals.join(', ')}`, 'the document lists the values but not which of them end the job');
    for (const u of states.unknown) guess(`state.values.${u}`, `"${u}" means running`, 'no known word for a job state');
    for (const [s, shown] of Object.entries(states.serveAs))
      guess(`state.serve_as.${s}`, `the engine state ${s} is shown as "${shown}"`, `the API documents no value for ${s}`);
  } else {
    const code = view.errorField && shapeOf(doc, view.errorField.shape.properties.code);
    const numeric = !!code && (code.types.includes('integer') || code.types.includes('number'));
    stateBlock = { values: {}, derived: derivedStates(numeric) };
    guess(
      'state.derived',
      `running until done; then failed when error is present${numeric ? ' (cancelled when error.code is 1)' : ''}, else succeeded`,
      'the job has no state enum, only done (AIP-151)',
    );
  }
  if (view.timeFields.length && view.times !== 'iso')
    guess(
      'times',
      `times are ${view.times === 'unix_s' ? 'unix seconds' : 'unix milliseconds'}`,
      `${view.timeFields.join(', ')} are numbers without a unit`,
    );
  if (view.resultField) guess(`view.${view.resultField}`, `${view.resultField} holds the result`, 'the result field is chosen by its name');
  else guess('results', 'the results are inline in a "result" field', 'no field of the job is named like a result');
  if (!view.idField) guess('view', 'the job id is shown in "id"', 'no field of the job is named like its id');
  const collection = /([^/{}:]+)\/\{[^}]+\}[^/]*$/.exec(read.op.path)?.[1];
  if (view.idField === 'name' && collection) {
    view.view.name = `${collection}/${whole('id')}`;
    guess('view.name', `the name is "${collection}/" and the id`, 'a resource name (AIP-122) is read as the collection and the id');
  }

  const cancel = findCancel(doc, ops, read);
  const cancelPath = cancel && profilePath(cancel.op.path, read.idParam);
  if (cancel) found.push(`cancel: ${cancel.op.method} ${cancel.op.path}`);
  if (cancel?.isDelete) guess('cancel.route', `DELETE ${cancelPath} cancels the job`, 'a DELETE may delete the job rather than cancel it');
  if (!cancel) guess('cancel', 'the API has no cancel (405)', 'no cancel route was found');

  const idem = draftIdempotency(create.op, request);
  if (idem.from) found.push(`idempotency: ${idem.from}`);
  else
    guess(
      'idempotency',
      'the API has no idempotency key',
      'no Idempotency-Key, Operation-Id, Repeatability-Request-ID header or request_id field was found',
    );
  const clientRef = clientRefOf(request);
  const list = findList(doc, ops, read);
  const find = list && draftFind(doc, list, profilePath(list.op.path, read.idParam), idem.keyName, clientRef);
  if (list) found.push(`list: GET ${list.op.path}`);
  if (!find?.filtered)
    guess(
      find ? 'find.filters' : 'idempotency',
      find ? 'a lost create is found by paging the whole list' : 'a lost create cannot be looked up',
      find ? 'no list parameter filters by the idempotency key or a client reference' : 'no list route beside the status read',
    );
  for (const c of find?.constants ?? [])
    guess(`find.body.${c}`, `${c} is always false`, 'a profile cannot compute it; the client must page by the token');
  if (list && list.itemsRef !== read.answer.ref)
    guess('find.body', 'the list shows each job as the status read does', 'the list items have their own schema');

  const errors = draftErrors(doc, [create.op, read.op]);
  if (errors.from) found.push(`errors: ${errors.from}`);
  else guess('errors.body', 'errors are {"error": {"code", "message"}}', 'no 4xx or default answer with a schema');
  const auth = draftAuth(doc);
  if (auth.from) found.push(`auth: ${auth.from}`);
  else guess('auth', 'bearer tokens', 'the document has no securitySchemes');
  const retryAfter = read.answer.headers.some((h) => /^retry-after$/i.test(h));
  if (retryAfter) found.push('Retry-After on the status read');
  const lro = create.op.op['x-ms-long-running-operation-options'];
  if (isObj(lro) && typeof lro['final-state-via'] === 'string') found.push(`final state via ${lro['final-state-via']}`);

  const hooks = draftWebhooks(doc, create.op, read.answer.ref);
  if (hooks) {
    found.push(`webhooks: the ${hooks.name} callback to the request's ${hooks.webhooks.url_field}`);
    const sent = Object.entries(hooks.webhooks.events).map(([e, n]) => `${e} as "${n}"`);
    guess('webhooks.events', `the callback is sent for ${sent.join(', ')}`, 'a callback does not say on which events it is sent');
    guess('webhooks.signing', 'deliveries are not signed', 'the document describes no signature');
  }

  const monitor = create.answer.headers.find((h) => /^(operation-location|location|azure-asyncoperation)$/i.test(h));
  const createBody = create.answer.body ? whole('view') : null;
  if (create.answer.body && create.answer.ref !== read.answer.ref)
    guess('create.body', 'the create answers with the job as the status read shows it', 'its answer has another schema');
  const title = isObj(doc.root.info) && typeof doc.root.info.title === 'string' ? doc.root.info.title : 'drafted api';
  const profileName = slug(name ?? title);
  const profile = {
    [CONFIRM_KEY]: guesses,
    profile: 1 as const,
    name: profileName,
    description:
      `Drafted by jobproof profile init from ${title}${isObj(doc.root.info) ? ` ${String(doc.root.info.version ?? '')}` : ''}`.trim(),
    prefix: `/profiles/${profileName}`,
    auth: auth.auth,
    id: { source: 'generated' as const, prefix: '' },
    state: stateBlock,
    times: view.times,
    view: view.resultField || view.idField ? view.view : { id: whole('id'), ...view.view, result: whole('result.items?') },
    ...(view.errorField
      ? {
          job_error: {
            template: errorTemplate(doc, view.errorField.shape),
            states: { failed: {}, expired: {}, ...(state ? {} : { cancelled: { code: 1 } }) },
          },
        }
      : {}),
    create: {
      route: { method: create.op.method as 'POST', path: create.op.path },
      status: create.answer.status,
      body: createBody,
      headers: monitor ? { [monitor]: whole('url.read') } : {},
      required: request?.required.filter((r) => request.properties[r] !== undefined) ?? [],
      ...(clientRef ? { client_ref: clientRef } : {}),
    },
    read: { route: { method: 'GET' as const, path: profilePath(read.op.path, read.idParam) } },
    idempotency: idem.idempotency,
    ...(find ? { find: find.find } : {}),
    cancel: cancel
      ? {
          route: { method: cancel.op.method as 'POST', path: cancelPath! },
          status: cancel.answer.status,
          body: cancel.answer.body ? whole('view') : null,
        }
      : {
          unsupported: {
            route: { method: 'POST' as const, path: `${profilePath(read.op.path, read.idParam)}/cancel` },
            status: 405 as const,
          },
        },
    results: { mode: 'inline' as const },
    ...(retryAfter ? { retry_after: { reads: true } } : {}),
    ...(hooks ? { webhooks: hooks.webhooks } : {}),
    errors: errors.errors,
  };
  return { ok: true, profile, found, guesses };
}
