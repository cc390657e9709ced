import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';

const LOOPBACK = ['localhost', '127.0.0.1', '::1', '[::1]'];

/** The host name of a `Host` header, without the port ('[::1]:4010' → '::1'). */
export function hostName(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^\[([0-9a-fA-F:.]+)\](?::\d+)?$/.exec(header) ?? /^([^:]+)(?::\d+)?$/.exec(header);
  return m ? m[1]!.toLowerCase() : null;
}

/**
 * DNS-rebinding guard: a page on an attacker's domain that resolves to 127.0.0.1 reaches this server with its own
 * name in `Host`. Only loopback names, `*.localhost` and the names the operator configured are served.
 */
export function hostAllowed(header: string | undefined, extra: readonly string[]): boolean {
  const name = hostName(header);
  if (!name) return false;
  if (LOOPBACK.includes(name) || name.endsWith('.localhost')) return true;
  return extra.some((h) => h.toLowerCase().replace(/^\[|\]$/g, '') === name);
}

const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** A per-process CSRF token embedded in every form; a cross-site page cannot read it. */
export class Csrf {
  readonly token = randomBytes(18).toString('base64url');

  /** Form field `csrf` must match, and a browser's `Origin` (when sent) must be this very host. */
  check(c: Context, form: Record<string, unknown>): string | null {
    const sent = typeof form.csrf === 'string' ? form.csrf : '';
    if (!same(sent, this.token)) return 'the form is stale or came from another site (CSRF token mismatch); reload the page';
    const origin = c.req.header('origin');
    if (origin && origin !== 'null') {
      let host: string | null = null;
      try {
        host = new URL(origin).host;
      } catch {
        host = null;
      }
      if (host !== (c.req.header('host') ?? new URL(c.req.url).host)) return `cross-origin form post from ${origin} refused`;
    }
    return null;
  }
}

export function controlTokenOk(sent: unknown, expected: string): boolean {
  return typeof sent === 'string' && same(sent.trim(), expected);
}
