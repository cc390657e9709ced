import { isFinalState } from '../contract/client-protocol.js';
import { cancelStep } from './cancel.js';
import { giveUpAt, governingDeadline } from './deadlines.js';
import { collectStep } from './collect.js';
import { createStep } from './create-step.js';
import { observeStep } from './observe.js';
import type { OpStep } from './op-step.js';
import { giveUpCancel, giveUpResult, reconcileStep } from './reconcile.js';

/** One turn on one operation: route by local state. Nothing is sent while a Retry-After hold is in force. */
export async function runStep(s: OpStep): Promise<void> {
  const r = s.rec;
  if (isFinalState(r.state)) return;
  const deadline = governingDeadline(r);
  // Nothing is sent during a Retry-After hold; but a deadline's give-up time still wakes us (to end without sending).
  if (s.now() < r.not_before && (deadline === null || s.now() < giveUpAt(deadline))) {
    await s.commit({ patch: { next_poll_at: deadline === null ? r.not_before : Math.min(r.not_before, giveUpAt(deadline)) } });
    return;
  }
  if (s.now() < r.not_before) return endWithoutRequest(s);
  switch (r.state) {
    case 'create_pending':
      return createStep(s);
    case 'create_unknown':
    case 'reconciliation':
      return reconcileStep(s);
    case 'accepted':
    case 'observing':
      return observeStep(s);
    case 'cancel_requested':
    case 'cancelling':
      return cancelStep(s);
    case 'result_collecting':
      return collectStep(s);
  }
}

/** Past a deadline's grace while the provider still holds us off: end as the deadline says, sending nothing. */
async function endWithoutRequest(s: OpStep): Promise<void> {
  const r = s.rec;
  const detail = 'deadline passed during a Retry-After hold';
  switch (r.state) {
    case 'accepted':
    case 'observing':
      await s.commit({
        moves: [{ to: 'result_timed_out', evidence: 'result_deadline', cause: 'result deadline passed before the job was final', detail }],
      });
      return;
    case 'cancel_requested':
    case 'cancelling':
      await s.commit({
        moves: [
          {
            to: 'cancellation_unconfirmed',
            evidence: 'cancel_deadline',
            cause: 'cancel deadline passed without the provider confirming',
            detail,
          },
        ],
      });
      return;
    default:
      if (r.cancel) await giveUpCancel(s, undefined, [], `cancel deadline passed during a Retry-After hold, before the job was confirmed`);
      else await giveUpResult(s, undefined, [], `result deadline passed during a Retry-After hold, before the job was confirmed`);
  }
}
