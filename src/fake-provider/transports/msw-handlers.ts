import { http, HttpResponse, type HttpHandler } from 'msw';
import { lossOf } from '../http/answer.js';
import type { Provider } from '../provider.js';

export interface MswOptions {
  /** The base URL the code under test calls; requests under it go to the fake provider. */
  baseUrl?: string;
}

/**
 * msw 2 request handlers that put the fake provider behind the global `fetch`, so code written against a real
 * provider URL is tested unchanged: `setupServer(...jobproofHandlers(provider))`. A lost answer is a network error
 * (`HttpResponse.error()`, which `fetch` surfaces as a TypeError); a hung answer waits for the caller's signal.
 */
export function jobproofHandlers(provider: Provider, opts: MswOptions = {}): HttpHandler[] {
  const base = (opts.baseUrl ?? 'http://jobproof.test').replace(/\/$/, '');
  return [
    http.all(`${base}/*`, async ({ request }) => {
      const res = await provider.app.fetch(request);
      const loss = lossOf(res);
      if (!loss) return res;
      await res.body?.cancel().catch(() => undefined);
      if (loss === 'reset') return HttpResponse.error();
      await new Promise<void>((resolve) => {
        if (request.signal.aborted) return resolve();
        request.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      return HttpResponse.error();
    }),
  ];
}
