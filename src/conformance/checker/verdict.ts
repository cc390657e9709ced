import { z } from 'zod';
import { HistoryEntrySchema } from '../../contract/client-protocol.js';
import { InvariantIdSchema } from '../../contract/invariants.js';

/** One broken promise: which operation, what a person should do about it, and the lines that prove it. */
export const FailureSchema = z.object({
  operation_id: z.string(),
  explanation: z.string(),
  evidence: z.object({ journal_seqs: z.array(z.number().int()), history: z.array(HistoryEntrySchema) }),
});

export const InvariantResultSchema = z.object({
  id: InvariantIdSchema,
  name: z.string(),
  /** not_applicable: the run gave this invariant nothing to judge (e.g. I5 without any cancel). */
  status: z.enum(['held', 'broken', 'not_applicable']),
  failures: z.array(FailureSchema),
});

export const VerdictSchema = z.object({
  ok: z.boolean(),
  scenario: z.string().optional(),
  invariants: z.array(InvariantResultSchema),
});

export type Failure = z.infer<typeof FailureSchema>;
export type InvariantResult = z.infer<typeof InvariantResultSchema>;
export type Verdict = z.infer<typeof VerdictSchema>;
