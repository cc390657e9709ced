/**
 * The Request the provider app sees for an in-process call, built as cheaply as the semantics allow.
 *
 * A Request built with a `signal` follows it through an AbortController of its own, a WeakRef and a finalizer
 * registration (undici): a tenth of an in-process exchange. The app only ever reads the signal (`aborted`, and the
 * hang of a lost answer waits on it), so the caller's own signal is handed to it as the request's: the same object,
 * aborted at the same moment, as a server sees the client hang up. The body guard keeps it when it rebuilds a
 * request (`keepCallerSignal`). Only requests whose body is text or absent take this path; any other body (a
 * multipart upload) keeps undici's own.
 *
 * No `Content-Length` is added although undici's fetch would send one: without it the body guard reads the body
 * stream, and those reads are awaits that order a schedule's concurrent requests — adding it changes which request
 * of a schedule the provider serves first, and so the journals of seeded runs.
 */
export function inProcessRequest(input: RequestInfo | URL, init: RequestInit | undefined, base: string): Request {
  if (input instanceof Request) return init ? new Request(input, init) : input;
  const url = typeof input === 'string' && input.startsWith(base) ? input : new URL(String(input), base).href;
  const body = init?.body;
  if (!init?.signal || (body != null && typeof body !== 'string')) return new Request(url, init);
  const { signal, ...rest } = init;
  const req = new Request(url, rest);
  Object.defineProperty(req, 'signal', { value: signal });
  return req;
}

/** A request rebuilt from `from` (the body guard's) keeps an in-process caller's signal (above); undici's follows by itself. */
export function keepCallerSignal(from: Request, to: Request): Request {
  if (Object.hasOwn(from, 'signal')) Object.defineProperty(to, 'signal', { value: from.signal });
  return to;
}
