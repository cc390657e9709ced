import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { settle, type VirtualClock } from '../../src/lib/clock.js';
import type { OperationRow } from '../../src/reference-client/types.js';
import { newOperationRow } from '../../src/reference-client/new-operation-row.js';
import { SUBMITTED_STATE } from '../../src/reference-client/state-machine.js';

export function tempDir(prefix = 'jp-rc-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Run virtual time until `done` settles. Fails loudly instead of spinning for ever. */
export async function drive<T>(clock: VirtualClock, done: Promise<T>, maxVirtualMs = 3_600_000): Promise<T> {
  let finished = false;
  done.then(
    () => (finished = true),
    () => (finished = true),
  );
  const start = clock.now();
  let idle = 0;
  while (!finished) {
    if (clock.now() - start > maxVirtualMs) throw new Error(`virtual time ran past ${maxVirtualMs} ms without finishing`);
    const stepped = await clock.step();
    if (!stepped) {
      await settle(10);
      if (++idle > 1000) throw new Error('nothing scheduled and not finished');
    } else idle = 0;
  }
  return done;
}

/** A record as the pure functions see it (`state` defaults to the first); a store ignores the state it is given. */
export function row(id: string, now: number, over: Partial<OperationRow> = {}): OperationRow {
  const { state = SUBMITTED_STATE, ...rest } = over;
  const fresh = newOperationRow(
    {
      operation_id: id,
      kind: 'report',
      input: { n: 1 },
      request_fingerprint: 'sha256:x',
      idempotency_key: `idem_${id}`,
      trace_id: `tr_${id}`,
      submitted_at: now,
      create_deadline_at: now + 60_000,
      result_deadline_at: now + 600_000,
    },
    rest,
  );
  return { ...fresh, state };
}
