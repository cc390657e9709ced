import type { OpStep } from './op-step.js';
import { cancelStep } from './cancel.js';
import { pollOnce } from './poll.js';

/** Observing a job: a cancel intent hands over to the cancel step; otherwise one status read under the result deadline. */
export async function observeStep(s: OpStep): Promise<void> {
  if (s.rec.cancel) {
    await s.commit({
      moves: [
        { to: 'cancel_requested', evidence: 'cancel_intent', cause: `cancel asked by ${s.rec.cancel.actor}: ${s.rec.cancel.reason}` },
      ],
      patch: { attempt: 0 },
    });
    return cancelStep(s);
  }
  await pollOnce(s, {
    deadlineAt: s.rec.result_deadline_at,
    onDeadline: { to: 'result_timed_out', evidence: 'result_deadline', cause: 'result deadline passed before the job was final' },
  });
}
