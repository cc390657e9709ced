/**
 * The wire APIs a client may speak (docs/spec/dialects.md), without zod: the journal's DialectSchema is built from
 * this list, and a client process checks JOBPROOF_DIALECT against it without building schemas.
 */
export const DIALECT_NAMES = ['native', 'openai', 'anthropic'] as const;
