export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export interface CallOptions {
  token?: string | null;
  headers?: Record<string, string>;
  /** Objects go as JSON; strings as they are. */
  body?: unknown;
  timeoutMs?: number;
}

/** The answer, or the network error of a request whose answer never came (reset, timeout). */
export type Outcome = { ok: true; answer: Answer } | { ok: false; error: string };

/** Global fetch against the provider under test, with one token by default and a time limit per request. */
export class Http {
  constructor(
    readonly base: string,
    readonly defaultToken: string,
    readonly timeoutMs = 10_000,
  ) {}

  async try(method: string, path: string, opts: CallOptions = {}): Promise<Outcome> {
    const headers: Record<string, string> = { ...opts.headers };
    const token = opts.token === undefined ? this.defaultToken : opts.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    try {
      const res = await fetch(new URL(path, this.base), {
        method,
        headers,
        body,
        signal: AbortSignal.timeout(opts.timeoutMs ?? this.timeoutMs),
      });
      const text = await res.text();
      let json: any;
      try {
        json = text === '' ? undefined : JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { ok: true, answer: { status: res.status, headers: res.headers, text, json } };
    } catch (err) {
      const e = err as Error & { cause?: { code?: string } };
      return { ok: false, error: `${e.name}: ${e.message}${e.cause?.code ? ` (${e.cause.code})` : ''}` };
    }
  }

  async call(method: string, path: string, opts: CallOptions = {}): Promise<Answer> {
    const out = await this.try(method, path, opts);
    if (!out.ok) throw new Error(`${method} ${path}: no answer (${out.error})`);
    return out.answer;
  }
}

export function brief(a: Answer): string {
  const code = a.json && typeof a.json === 'object' && 'code' in a.json ? ` ${a.json.code}` : '';
  const replay = a.headers.get('idempotent-replayed') ? ' [Idempotent-Replayed]' : '';
  return `${a.status}${code}${replay}`;
}
