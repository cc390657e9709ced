import { isFinalState, type OperationState } from '../../contract/client-states.js';
import { walk } from '../state-machine.js';
import { UNPATCHABLE, type OperationRow } from '../types.js';
import type { FencedChange } from './operation-store.js';
import { COLUMNS } from './sqlite-schema.js';

const FIXED = new Set<string>(UNPATCHABLE);
const KNOWN = new Set<string>(COLUMNS);

/** What a fenced commit writes, decided the same way by every store before it touches a row. */
export interface PlannedWrite {
  /** Columns to set, state included when the history moved it. */
  sets: [keyof OperationRow, unknown][];
  /** The state the record ends in. */
  target: OperationState;
  final: boolean;
}

/**
 * Plan a commit from the stored state: the history is walked against the transition table (a refused move throws
 * and nothing is written), and the patch may name only patchable columns (types.ts UNPATCHABLE; the type forbids
 * them, this refuses a cast). A final record leaves the schedule and the lease whatever the patch said.
 */
export function planCommit(current: OperationState, change: FencedChange): PlannedWrite {
  const target = walk(current, change.history) ?? current;
  const final = isFinalState(target);
  const sets: [keyof OperationRow, unknown][] = [];
  for (const [k, v] of Object.entries(change.patch)) {
    if (!KNOWN.has(k) || FIXED.has(k)) throw new Error(`a patch may not write ${k}`);
    if (final && k === 'next_poll_at') continue;
    sets.push([k as keyof OperationRow, v]);
  }
  if (target !== current) sets.push(['state', target]);
  if (final) sets.push(['next_poll_at', null], ['lease_owner', null], ['lease_expires_at', null]);
  return { sets, target, final };
}
