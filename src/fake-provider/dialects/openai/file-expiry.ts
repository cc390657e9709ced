import { z } from 'zod';
import type { DialectRepo, FileRow } from '../store.js';

/** The document: files with `purpose=batch` expire after 30 days by default; the policy takes 1 hour to 30 days. */
export const BATCH_FILE_EXPIRY_S = 30 * 24 * 3600;

export const ExpiresAfterSchema = z
  .object({ anchor: z.literal('created_at'), seconds: z.coerce.number().int().min(3600).max(2_592_000) })
  .strict();

/** When a file expires (ms), or null if it never does. */
export function fileExpiresAt(f: Pick<FileRow, 'created_at' | 'expires_after'>): number | null {
  return f.expires_after === null ? null : f.created_at + f.expires_after * 1000;
}

/** A file as its tenant sees it at `now`: an expired file is gone, as a deleted one is. */
export function liveFile(repo: DialectRepo, fileId: string, tenant: string, now: number): FileRow | undefined {
  const f = repo.file(fileId, tenant);
  const at = f && fileExpiresAt(f);
  return f && (at === null || now < at!) ? f : undefined;
}
