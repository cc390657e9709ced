/**
 * The Idempotency-Key header of the IETF draft: a Structured Field string (`"abc"`), also accepted bare (`abc`).
 * Both forms name the same key. Returns the key, or an error message for a malformed one.
 */
export type KeyParse = { ok: true; key: string } | { ok: false; message: string } | { ok: 'missing' };

const VISIBLE = /^[\x21-\x7e]+$/;

export function parseIdempotencyKey(raw: string | null | undefined): KeyParse {
  if (raw === null || raw === undefined) return { ok: 'missing' };
  const v = raw.trim();
  if (v === '') return { ok: 'missing' };
  let key: string;
  if (v.startsWith('"')) {
    const m = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/.exec(v);
    if (!m) return { ok: false, message: 'Idempotency-Key: malformed Structured Field string' };
    key = m[1]!.replace(/\\(["\\])/g, '$1');
    // The quoted form may carry spaces; the key itself is still 1-255 visible ASCII characters.
    if (!VISIBLE.test(key)) return { ok: false, message: 'Idempotency-Key must be 1-255 visible ASCII characters' };
  } else {
    if (!VISIBLE.test(v)) return { ok: false, message: 'Idempotency-Key must be 1-255 visible ASCII characters' };
    key = v;
  }
  if (key.length < 1 || key.length > 255) return { ok: false, message: 'Idempotency-Key must be 1-255 characters' };
  return { ok: true, key };
}
