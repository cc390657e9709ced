import type { Hono } from 'hono';
import { lossOf } from '../http/answer.js';
import { inProcessRequest } from './in-process-request.js';

export const IN_PROCESS_BASE = 'http://jobproof.test';

/** The error a real `fetch` (undici) throws when the server resets the connection. */
export function connectionReset(): TypeError {
  const cause = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
  return new TypeError('fetch failed', { cause });
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/**
 * Apply the app's loss decision the way a real network would: `reset` throws fetch's own TypeError, `hang` never
 * answers until the caller's signal gives up. Otherwise strip the internal header and hand the answer over.
 */
export async function enactLoss(res: Response, signal: AbortSignal | null | undefined): Promise<Response> {
  const loss = lossOf(res);
  if (!loss) return res;
  await res.body?.cancel().catch(() => undefined);
  if (loss === 'reset') throw connectionReset();
  return new Promise<Response>((_resolve, reject) => {
    if (!signal) return; // Like a real socket held open: no answer, ever.
    if (signal.aborted) return reject(abortError(signal));
    signal.addEventListener('abort', () => reject(abortError(signal)), { once: true });
  });
}

/** A `fetch` bound to the provider app: no socket, same failure surface as a real fetch. */
// biome-ignore lint/suspicious/noExplicitAny: any app, whatever its Env; only app.fetch is used
export function inProcessFetch(app: Hono<any>): typeof fetch {
  return async (input: RequestInfo | URL, init?: RequestInit) => {
    const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    if (signal?.aborted) throw abortError(signal);
    const answer = Promise.resolve(app.fetch(inProcessRequest(input, init, IN_PROCESS_BASE)));
    if (!signal) return enactLoss(await answer, signal);
    // A real fetch rejects the moment its signal aborts, whatever the server is still doing: a request the provider
    // holds (a `delay` fault) goes on executing there and is journalled lost, and the caller is not handed its answer.
    let onAbort = () => {};
    const gaveUp = new Promise<never>((_resolve, reject) => {
      onAbort = () => reject(abortError(signal));
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([answer.then((res) => enactLoss(res, signal)), gaveUp]);
    } finally {
      signal.removeEventListener('abort', onAbort);
      // The provider's answer to a request given up on is dropped, as a closed socket drops it.
      answer.then((res) => (signal.aborted ? res.body?.cancel() : undefined)).catch(() => undefined);
    }
  };
}
