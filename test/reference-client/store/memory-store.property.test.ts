import fc from 'fast-check';
import { expect, it } from 'vitest';
import { MemoryOperationStore } from '../../../src/reference-client/store/memory-store.js';
import type { OperationStore } from '../../../src/reference-client/store/operation-store.js';
import { SqliteOperationStore } from '../../../src/reference-client/store/sqlite-store.js';
import { T0 } from './contract.js';
import { type Command, commandArb, IDS, play } from './store-commands.js';

/** Everything a caller can observe of a store after a call: every record, its history, the audit and the schedule. */
async function observe(s: OperationStore): Promise<unknown> {
  const now = T0 + 1_500;
  return {
    records: await Promise.all(IDS.map((id) => s.get(id))),
    histories: await Promise.all(IDS.map((id) => s.history(id))),
    audit: await s.auditRows(),
    head: await s.auditHead(),
    open: [await s.countOpen(), await s.hasOpen()],
    wake: [await s.nextWakeAt('w1', now), await s.nextWakeAt('w2', now, new Set(['a']))],
  };
}

async function trace(s: OperationStore, cs: Command[]): Promise<unknown[]> {
  const out: unknown[] = [];
  await play(s, '', cs, async (cmd, outcome) => void out.push([cmd.c, outcome, await observe(s)]));
  return out;
}

// The in-process run store stands in for SQLite's: every answer and every state after every call must be SQLite's.
it('the memory store answers every sequence of calls as the SQLite store does', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(commandArb, { minLength: 1, maxLength: 40 }), async (cs) => {
      const sqlite = new SqliteOperationStore(':memory:');
      const memory = new MemoryOperationStore();
      try {
        expect(await trace(memory, cs)).toEqual(await trace(sqlite, cs));
      } finally {
        await sqlite.close();
      }
    }),
    { numRuns: 200 },
  );
});
