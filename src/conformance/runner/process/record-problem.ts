import type { z } from 'zod';
import { OperationRecordSchema, type OperationRecord } from '../../../contract/client-protocol.js';

/** What `show` printed, read against client-protocol.md: the record, or what is wrong with it, named by field and value. */
export type ShowReading = { record: OperationRecord } | { problem: string };

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root;
  for (const k of path) v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}

function shown(v: unknown): string {
  if (v === undefined) return 'missing';
  const s = JSON.stringify(v);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

/** `field = value (what the protocol wants)` for each issue, the first few only: one line a person can act on. */
function describeIssues(root: unknown, issues: z.ZodError['issues']): string {
  const parts = issues.slice(0, 3).map((i) => {
    const field = i.path.length ? i.path.map(String).join('.') : '(the record)';
    return `${field} = ${shown(valueAt(root, i.path))} (${i.message})`;
  });
  return parts.join('; ') + (issues.length > 3 ? `; and ${issues.length - 3} more` : '');
}

export function readShowOutput(stdout: string): ShowReading {
  let raw: unknown;
  try {
    raw = JSON.parse(stdout);
  } catch {
    return { problem: `stdout is not JSON: ${shown(stdout.trim())}` };
  }
  const parsed = OperationRecordSchema.safeParse(raw);
  return parsed.success ? { record: parsed.data } : { problem: describeIssues(raw, parsed.error.issues) };
}
