/**
 * A client's requests on tape: the in-process factory wrapped so every request the client makes is kept (method,
 * path, headers, body, the virtual time it was made) with the answer it got, to be replayed elsewhere.
 */
import type { InProcessClientFactory } from '../../../src/contract/client-protocol.js';

export interface TapeStep {
  at: number;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** The answer's body as the client received it; undefined when it was lost. */
  answer?: string;
}
export type Tape = TapeStep[];

const DROPPED = new Set(['authorization', 'content-length', 'host', 'connection']);

export function recordingFactory(factory: InProcessClientFactory, tape: Tape): InProcessClientFactory {
  return (opts) => {
    const inner = opts.fetch;
    const recorded: typeof fetch = async (input, init) => {
      const req = new Request(input, init);
      const url = new URL(req.url);
      const headers: Record<string, string> = {};
      req.headers.forEach((v, k) => {
        if (!DROPPED.has(k)) headers[k] = v;
      });
      const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : await req.text();
      const step: TapeStep = { at: opts.clock.now(), method: req.method, path: url.pathname + url.search, headers, body };
      tape.push(step);
      const res = await inner(input, init);
      // Never awaited here: a held answer must reach the client as it would unrecorded.
      res
        .clone()
        .text()
        .then(
          (t) => {
            step.answer = t;
          },
          () => undefined,
        );
      return res;
    };
    return factory({ ...opts, fetch: recorded });
  };
}
