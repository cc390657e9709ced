import type { TaskInvariantId } from '../../../contract/invariants.js';
import type { TaskEvidence } from '../evidence.js';
import type { TaskLine } from '../task-lines.js';

/** One task invariant: its violations in the evidence, and whether the evidence held anything for it to judge. */
export interface TaskCheck {
  id: TaskInvariantId;
  judge(ev: TaskEvidence, lines: Map<string, TaskLine>): { violations: string[]; judged: boolean };
}
