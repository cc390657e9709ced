import { expect, it } from 'vitest';
import { openRunMemoryStore } from '../../../src/reference-client/store/run-memory.js';
import { row } from '../helpers.js';
import { storeContract, T0 } from './contract.js';

let runs = 0;

// The run store is plain JavaScript: the contract without its SQL-only checks (triggers, query plan).
storeContract('in memory, one in-process run', {
  async open() {
    const state = `/nonexistent/run-${++runs}`;
    const a = openRunMemoryStore(state);
    const b = openRunMemoryStore(state); // a second worker of the same run
    return {
      a,
      b,
      cleanup: async () => undefined,
      bulkInsert: async (n) => {
        for (let i = 0; i < n; i++) await a.insertOperation(row(`op${i}`, T0, { next_poll_at: T0 + i * 1000 }), 'w', []);
      },
    };
  },
});

it('keeps a run store while any of its clients is open, and only then lets it go', async () => {
  const a = openRunMemoryStore('/nonexistent/shared');
  const b = openRunMemoryStore('/nonexistent/shared');
  const other = openRunMemoryStore('/nonexistent/other-run');
  await a.insertOperation(row('op1', T0), 'w', []);
  expect(await other.get('op1')).toBeUndefined();
  // A worker of the run closes (or was killed and closed at the end): the others still see everything.
  await a.close();
  await a.close();
  expect(await b.get('op1')).toEqual(row('op1', T0));
  const c = openRunMemoryStore('/nonexistent/shared');
  expect(await c.get('op1')).toEqual(row('op1', T0));
  await b.close();
  await c.close();
  // The run is over: a new one on the same state starts empty (a migrated store, no file left behind).
  const d = openRunMemoryStore('/nonexistent/shared');
  expect(await d.get('op1')).toBeUndefined();
  expect(await d.countOpen()).toBe(0);
  await d.close();
  await other.close();
});
