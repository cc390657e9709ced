import { z } from 'zod';
import { DialectSchema, JournalEntrySchema, type JournalEntry } from '../../contract/journal.js';
import { JobStateSchema } from '../../contract/jobs.js';
import { CancelInputSchema, OperationRecordSchema, SubmitInputSchema } from '../../contract/client-protocol.js';

/**
 * Everything the judge looks at for one run. The runner collects it: the provider journal (ground truth), what
 * `show` printed per operation, what the harness did. The judge is a pure function of this.
 */

const isoTime = z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'an RFC 3339 time');

export const SubmissionSchema = z.object({
  operation_id: z.string(),
  request: SubmitInputSchema,
  submitted_at: isoTime,
  /** Exit code of `submit`, when known: a changed request for an existing id must exit 3 (I2). */
  exit_code: z.number().int().optional(),
});

export const CancelIntentSchema = CancelInputSchema.extend({ operation_id: z.string(), requested_at: isoTime });

export const HarnessEventSchema = z.object({
  at: isoTime,
  /** `exit`: a worker ended by itself (`work` returns when everything it saw was final). */
  /** `provider_restart` when the provider goes down, `provider_up` when it answers again. */
  type: z.enum(['kill', 'start', 'pause', 'resume', 'lease_expired', 'provider_restart', 'provider_up', 'exit']),
  worker_id: z.string().optional(),
});

/**
 * A job as `GET /_control/jobs` shows it, loosely: the judge needs the result digest and the behaviour's result
 * flags (I3, I11), which the journal does not carry. Extra fields pass through.
 */
export const ProviderJobSchema = z
  .object({
    job_id: z.string(),
    state: JobStateSchema,
    tenant: z.string().optional(),
    result: z
      .object({ sha256: z.string(), items_total: z.number().int(), items_failed: z.number().int() })
      .passthrough()
      .nullable()
      .optional(),
    behavior: z
      .object({ corrupt_digest: z.boolean(), error_row: z.boolean(), one_shot_results: z.boolean(), items_failed: z.number().int() })
      .partial()
      .passthrough()
      .optional(),
  })
  .passthrough();

/** Tolerances and budgets. Every number the verdict depends on is here, with its default. */
export const CheckOptionsSchema = z
  .object({
    /** I7: a request may come this much before `at + Retry-After` and still count as waiting. */
    retry_after_tolerance_ms: z.number().min(0).default(100),
    /** I8: the budget's backoff starts here and doubles… */
    poll_base_ms: z.number().positive().default(100),
    /** …up to this cap. */
    poll_cap_ms: z.number().positive().default(5000),
    /** I8: polls allowed on top of the computed budget, per job. */
    poll_slack: z.number().int().min(0).default(5),
    /** I3, I12, I13: how long after a deadline or a job's end the client may take to act on it. */
    deadline_grace_ms: z.number().min(0).default(1000),
    /** Comparisons of a record's time with a journal time (same host, but two writers). */
    clock_tolerance_ms: z.number().min(0).default(50),
    /**
     * I5: an answer delivered to a worker killed within this long after it, before that worker sent anything else,
     * may never have been read (the bytes arrived, the process died before acting on them).
     */
    kill_read_window_ms: z.number().min(0).default(100),
  })
  .strict();

export const RunEvidenceSchema = z.object({
  scenario: z.string().optional(),
  /**
   * The wire dialect the client spoke (spec/dialects.md). In a dialect, operations are linked to batches by the
   * `custom_id`s of their submitted input, and invariants the dialect cannot express are not applicable.
   */
  dialect: DialectSchema.default('native'),
  /**
   * profiles.md: the API profile the client spoke (its requests are journalled under its name), and whether it takes
   * an idempotency key. Operations are linked to jobs by key, client reference or the reference the harness put in
   * the input; the invariants are the native ones, with a keyless profile's I2 and I10 read as a dialect's, and
   * inline results fetched by the read that shows them.
   */
  profile: z
    .object({
      name: z.string(),
      keyed: z.boolean(),
      /** The final view carries the results (`results.mode: inline`): a delivered read of the succeeded job hands them out. */
      inline_results: z.boolean().default(false),
    })
    .optional(),
  /** Tenant and subject of the client's token: only the client's own journal entries are judged. */
  principal: z.object({ tenant: z.string(), subject: z.string() }),
  journal: z.array(JournalEntrySchema),
  /** What `show` printed. Several snapshots of one operation are allowed, oldest first (I15 checks append-only). */
  records: z.array(OperationRecordSchema),
  submissions: z.array(SubmissionSchema),
  cancels: z.array(CancelIntentSchema).default([]),
  harness: z.array(HarnessEventSchema).default([]),
  jobs: z.array(ProviderJobSchema).default([]),
  options: CheckOptionsSchema.prefault({}),
});

export type Submission = z.infer<typeof SubmissionSchema>;
export type CancelIntent = z.infer<typeof CancelIntentSchema>;
export type HarnessEvent = z.infer<typeof HarnessEventSchema>;
export type ProviderJob = z.infer<typeof ProviderJobSchema>;
export type CheckOptions = z.output<typeof CheckOptionsSchema>;
export type RunEvidence = z.output<typeof RunEvidenceSchema>;

/**
 * Evidence a live run gathered, its journal read from the provider object itself: that journal is already what the
 * schema outputs (the store's decoder gives the parsed shape, key order included; the journal codec's property test
 * holds the two equal), so only what a client or the harness supplied is parsed. Parsing the ~20 provider entries of
 * a schedule again would be most of the evidence's parse, a few per cent of an in-process schedule.
 */
const LiveEvidenceSchema = RunEvidenceSchema.omit({ journal: true });
export type LiveEvidenceInput = Omit<RunEvidenceInput, 'journal'> & { journal: JournalEntry[] };
export function parseLiveEvidence(e: LiveEvidenceInput): RunEvidence {
  const { journal, ...rest } = e;
  return { ...LiveEvidenceSchema.parse(rest), journal };
}
export type RunEvidenceInput = z.input<typeof RunEvidenceSchema>;
