import type { ProviderCore } from '../../core.js';
import type { KeyScope, StoredAnswer } from '../../store/idempotency-repo.js';
import { leanAnswer } from '../answer.js';
import type { Ctx } from '../context.js';
import { problem } from '../problem.js';
import { unexecuted } from './seam.js';

/**
 * A stored idempotent answer as a Response; a replay says so with `Idempotent-Replayed: true`. Built lean
 * (http/answer.ts, decision 019) like any answer of `problem`/`jsonAnswer`: a web `Headers` here, then the journal
 * middleware's stamp through it, cost a durable create ~10 % of its CPU. Names are lower-cased as `Headers` did
 * (stored answers of older versions may hold any case), so the set of headers on the wire is the same.
 */
export function storedResponse(c: Ctx, a: StoredAnswer, replayed: boolean): Response {
  const headers: Record<string, string> = {};
  for (const k in a.headers) headers[k.toLowerCase()] = a.headers[k]!;
  if (replayed) headers['idempotent-replayed'] = 'true';
  return leanAnswer(c, a.body, a.status, headers);
}

/**
 * Reserve an idempotency key, then let the seam hold the request if a `delay` fault asks for it: the key stays in
 * flight meanwhile, which is how a concurrent duplicate meets 409. A request that dies while held frees its key.
 */
export async function reserveThenHold(core: ProviderCore, c: Ctx, scope: KeyScope, fp: string): Promise<void> {
  core.idempotency.reserve(scope, fp, core.clock.now(), core.options.idempotencyTtlMs);
  try {
    await c.get('hold')();
  } catch (err) {
    core.idempotency.release(scope);
    throw err;
  }
}

/** 409 while the first request with this key is still being processed. */
export function inProgress(core: ProviderCore, c: Ctx): Response {
  return unexecuted(
    problem(
      c,
      409,
      'idempotency_request_in_progress',
      'the first request with this Idempotency-Key is still being processed',
      {},
      {
        'retry-after': String(core.options.pollAdviceSeconds),
      },
    ),
  );
}
