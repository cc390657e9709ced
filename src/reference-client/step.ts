import { isFinalState } from '../lib/client-protocol.js';
import { cancelStep } from './cancel.js';
import { collectStep } from './collect.js';
import { createStep } from './create.js';
import { observeStep } from './observe.js';
import type { OpStep } from './op-step.js';
import { reconcileStep } from './reconcile.js';

/** One turn on one operation: route by local state. Nothing is sent while a Retry-After hold is in force. */
export async function runStep(s: OpStep): Promise<void> {
  const r = s.rec;
  if (isFinalState(r.state)) return;
  if (s.now() < r.not_before) {
    s.commit({ patch: { next_poll_at: r.not_before } });
    return;
  }
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
