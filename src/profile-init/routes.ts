import { isObj, type Json, type Obj, type OpenApiDoc, type Shape, deref, shapeOf } from './openapi-read.js';
import { isJobShape } from './states.js';

/**
 * Finding the job routes of a document: the create (a POST answered 202/201, or with a `Location` /
 * `Operation-Location` header, or marked `x-ms-long-running-operation`, or answered with a body that has a job
 * state), the status read (a GET whose last segment is a path parameter and whose answer has the state), its cancel
 * and the list beside it.
 */
export interface Op {
  method: string;
  path: string;
  op: Obj;
  params: Obj[];
}
export interface Answer {
  status: number;
  body?: Shape;
  /** The schema's `$ref`, to tell two answers of the same schema. */
  ref?: string;
  mediaType?: string;
  headers: string[];
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export function operations(doc: OpenApiDoc): Op[] {
  const out: Op[] = [];
  for (const [path, item0] of Object.entries(doc.root.paths as Obj)) {
    const item = deref(doc, item0);
    if (!isObj(item)) continue;
    const shared = Array.isArray(item.parameters) ? item.parameters : [];
    for (const m of METHODS) {
      const op = deref(doc, item[m]);
      if (!isObj(op)) continue;
      const own = Array.isArray(op.parameters) ? op.parameters : [];
      const params = [...shared, ...own].map((p) => deref(doc, p)).filter(isObj);
      out.push({ method: m.toUpperCase(), path, op, params });
    }
  }
  return out;
}

/** The first 2xx answer (202, then 201, then 200, then any 2XX). */
export function successOf(doc: OpenApiDoc, op: Op): Answer | undefined {
  const responses = isObj(op.op.responses) ? op.op.responses : {};
  const code = ['202', '201', '200', '204', '2XX', '2xx'].find((c) => c in responses);
  if (!code) return undefined;
  return answerOf(doc, responses[code], code === '2XX' || code === '2xx' ? 200 : Number(code));
}

export function answerOf(doc: OpenApiDoc, node: Json | undefined, status: number): Answer {
  const r = deref(doc, node);
  const out: Answer = { status, headers: [] };
  if (!isObj(r)) return out;
  if (isObj(r.headers)) out.headers = Object.keys(r.headers);
  const content = isObj(r.content) ? r.content : {};
  const mediaType = Object.keys(content).find((t) => /json/i.test(t)) ?? Object.keys(content)[0];
  const media = mediaType ? content[mediaType] : undefined;
  if (mediaType && isObj(media) && media.schema !== undefined) {
    out.mediaType = mediaType;
    out.body = shapeOf(doc, media.schema);
    if (isObj(media.schema) && typeof media.schema.$ref === 'string') out.ref = media.schema.$ref;
  }
  return out;
}

const MONITOR_HEADER = /^(operation-location|location|azure-asyncoperation)$/i;
const segments = (p: string) => p.split('/').filter(Boolean);
const lastParam = (p: string) => /\{([^}]+)\}[^/{}]*$/.exec(p)?.[1];

export interface CreateFound {
  op: Op;
  answer: Answer;
  reasons: string[];
  others: string[];
}

export function findCreate(doc: OpenApiDoc, ops: Op[]): CreateFound | undefined {
  const scored = ops
    .filter((o) => o.method === 'POST' || o.method === 'PUT')
    .map((o) => {
      const answer = successOf(doc, o);
      const monitor = answer?.headers.find((h) => MONITOR_HEADER.test(h));
      const signs: Array<[boolean, number, string]> = [
        [o.op['x-ms-long-running-operation'] === true, 10, 'x-ms-long-running-operation: true'],
        [answer?.status === 202, 6, 'answers 202'],
        [answer?.status === 201, 3, 'answers 201'],
        [monitor !== undefined, 5, `answers a ${monitor} header`],
        [!!answer?.body && isJobShape(doc, answer.body), 5, 'answers a body with a job state'],
      ];
      const held = signs.filter(([yes]) => yes);
      const reasons = held.map(([, , why]) => why);
      const score = held.reduce((n, [, points]) => n + points, 0);
      return { op: o, answer, reasons, score };
    })
    .filter((c): c is typeof c & { answer: Answer } => c.answer !== undefined && c.score >= 5 && !/cancel/i.test(c.op.path))
    .sort((a, b) => b.score - a.score);
  const best = scored[0];
  if (!best) return undefined;
  return { op: best.op, answer: best.answer, reasons: best.reasons, others: scored.slice(1).map((c) => `${c.op.method} ${c.op.path}`) };
}

export interface ReadFound {
  op: Op;
  answer: Answer & { body: Shape };
  idParam: string;
  others: string[];
}

/** The GET of one job: last segment a path parameter, answered with a state; nearest the create's path first. */
export function findRead(doc: OpenApiDoc, ops: Op[], create: CreateFound): ReadFound | undefined {
  const createSegs = segments(create.op.path);
  const scored = ops
    .filter((o) => o.method === 'GET' && lastParam(o.path))
    .map((o) => ({ op: o, answer: successOf(doc, o) }))
    .filter((c): c is { op: Op; answer: Answer & { body: Shape } } => !!c.answer?.body && isJobShape(doc, c.answer.body))
    .map((c) => {
      const segs = segments(c.op.path);
      let common = 0;
      while (common < segs.length && segs[common] === createSegs[common]) common++;
      const sameSchema = c.answer.ref !== undefined && c.answer.ref === create.answer.ref ? 3 : 0;
      const monitor = create.answer.body ? 0 : /operation|status/i.test(c.op.path) ? 3 : 0;
      return { ...c, score: common * 2 + sameSchema + monitor - Math.abs(segs.length - createSegs.length - 1) };
    })
    .sort((a, b) => b.score - a.score);
  const best = scored[0];
  if (!best) return undefined;
  return { op: best.op, answer: best.answer, idParam: lastParam(best.op.path)!, others: scored.slice(1).map((c) => `GET ${c.op.path}`) };
}

export interface CancelFound {
  op: Op;
  answer: Answer;
  /** The route is a DELETE of the job, which may delete rather than cancel. */
  isDelete: boolean;
}

export function findCancel(doc: OpenApiDoc, ops: Op[], read: ReadFound): CancelFound | undefined {
  const idSeg = `{${read.idParam}}`;
  const custom = ops.find(
    (o) => (o.method === 'POST' || o.method === 'PUT') && (o.path === `${read.op.path}:cancel` || o.path === `${read.op.path}/cancel`),
  );
  const named = custom ?? ops.find((o) => o.method === 'POST' && /cancel/i.test(o.path) && o.path.includes(idSeg));
  const del = ops.find((o) => o.method === 'DELETE' && o.path === read.op.path);
  const op = named ?? del;
  if (!op) return undefined;
  return { op, answer: successOf(doc, op) ?? { status: 200, headers: [] }, isDelete: !named };
}

export interface ListFound {
  op: Op;
  answer: Answer & { body: Shape };
  /** The property holding the array of jobs, and its items' `$ref` (to tell whether they are the job schema). */
  itemsAt: string;
  itemsRef?: string;
}

/** The GET of the collection the read route is a member of, answered with an array of jobs. */
export function findList(doc: OpenApiDoc, ops: Op[], read: ReadFound): ListFound | undefined {
  const parent = read.op.path.replace(/\/[^/]*\{[^}]+\}[^/]*$/, '');
  const op = ops.find((o) => o.method === 'GET' && o.path === parent);
  const answer = op && successOf(doc, op);
  if (!op || !answer?.body) return undefined;
  const itemsAt = Object.entries(answer.body.properties).find(([, p]) => shapeOf(doc, p).types.includes('array'))?.[0];
  if (!itemsAt) return undefined;
  const items = shapeOf(doc, answer.body.properties[itemsAt]).items;
  const itemsRef = isObj(items) && typeof items.$ref === 'string' ? items.$ref : undefined;
  return { op, answer: answer as ListFound['answer'], itemsAt, itemsRef };
}

/** The route path with the job's parameter written `{id}`, as profiles name it. */
export const profilePath = (path: string, idParam: string) => path.replaceAll(`{${idParam}}`, '{id}');
