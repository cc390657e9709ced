import { createBy, sendCreate } from './create.js';
import type { OpStep } from './op-step.js';
import { reconcileStep } from './reconcile.js';

/** Before the job is known: cancel before any send, hand an ambiguous or late create to reconciliation, else create. */
export async function createStep(s: OpStep): Promise<void> {
  const r = s.rec;
  if (r.cancel && r.create_attempts === 0) {
    await s.commit({
      moves: [{ to: 'cancelled', evidence: 'cancel_intent', cause: `cancelled by ${r.cancel.actor} before any create was sent` }],
      patch: { reason: r.cancel.reason },
    });
    return;
  }
  // An earlier attempt (its worker died before the answer was kept) may have made a job: past the create deadline, or
  // where the API takes no key (a second send would make a second job), look it up before creating again.
  if (r.cancel || (r.create_attempts > 0 && (s.now() >= createBy(r) || !s.wire.idempotencyKeys))) return reconcileStep(s);
  if (s.now() >= createBy(r)) {
    const which = r.create_deadline_at <= r.result_deadline_at ? 'create' : 'result';
    await s.commit({
      moves: [{ to: 'failed', evidence: 'create_deadline', cause: `${which} deadline passed before any create was sent` }],
      patch: { reason: `${which} deadline passed before any create was sent` },
    });
    return;
  }
  await sendCreate(s, null, []);
}
