import type { ViewValues } from '../store/jobs-repo.js';

/** How many final jobs' answers a provider keeps (a few hundred KB). */
const MAX_ENTRIES = 1024;

interface Entry {
  values: ViewValues;
  body: string;
  settledAt: number;
}

/**
 * The body of a final job's status answer, rendered once (docs/decisions/019-lean-answers.md).
 *
 * A status answer is a function of the job's row (the columns the status read selects) and, through progress, of
 * the time — until `settledAt` (engine/lifecycle.ts progressSettledAt); for a final job nothing else moves it. So a
 * kept body is served only for the very same row values (compared one by one with the row just read: any update,
 * a reset, another tenant's id all miss) at or after its settled time. It saves the parse, the Job object and the
 * JSON text of the answer, not the read of the row. Per provider instance: a restart starts empty.
 */
export class FinalAnswers {
  private readonly byId = new Map<string, Entry>();

  get(values: ViewValues, now: number): string | undefined {
    const e = this.byId.get(values[0]);
    if (!e || now < e.settledAt) return undefined;
    for (let i = 0; i < values.length; i++) if (e.values[i] !== values[i]) return undefined;
    return e.body;
  }

  set(values: ViewValues, body: string, settledAt: number): void {
    if (!this.byId.has(values[0]) && this.byId.size >= MAX_ENTRIES) {
      // Oldest first: Map iterates in insertion order.
      this.byId.delete(this.byId.keys().next().value!);
    }
    this.byId.set(values[0], { values, body, settledAt });
  }
}
