import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TaskLease } from '../../../src/reference-client/tasks/lease.js';
import { PgTaskStore } from '../../../src/reference-client/tasks/pg-store.js';
import { canTaskTransition, TASK_TRANSITIONS } from '../../../src/reference-client/tasks/state-machine.js';
import { SqliteTaskStore, type TaskStore } from '../../../src/reference-client/tasks/store.js';
import { TASK_OP_STATES, type NewTaskOpRow, type TaskOpState, type TaskPatch } from '../../../src/reference-client/tasks/types.js';
import { dropSchema, pgUrl, uniqueSchema } from '../../helpers/pg.js';

/**
 * No sequence of task store calls writes a state the task transition table does not allow: whatever is inserted,
 * claimed, changed (legal moves, refused moves, patches naming the state) or released, every stored history is a
 * walk the table allows from `null`, and every record's state is where it ends.
 */
const IDS = ['a', 'b'];
const WORKERS = ['w1', 'w2'];

const fresh = (id: string): NewTaskOpRow => ({
  task_op_id: id,
  type: 'propose_update',
  object_ref: 'inv-1',
  object_version: 1,
  input: {},
  create_key: `tcreate_${id}`,
  apply_key: null,
  trace_id: `tr_${id}`,
  task_id: null,
  initiator: null,
  proposal_version: null,
  approval: null,
  application: null,
  reason: null,
  create_attempts: 0,
  apply_attempts: 0,
  read_failures: 0,
  submitted_at: 0,
  deadline_at: 1000,
  updated_at: 0,
});

const commandArb = fc.oneof(
  fc.record({ c: fc.constant('insert' as const), id: fc.constantFrom(...IDS) }),
  fc.record({ c: fc.constant('claim' as const), id: fc.constantFrom(...IDS), w: fc.constantFrom(...WORKERS) }),
  fc.record({
    c: fc.constant('change' as const),
    id: fc.constantFrom(...IDS),
    w: fc.constantFrom(...WORKERS),
    legal: fc.boolean(),
    pick: fc.nat(),
    to: fc.option(fc.constantFrom(...TASK_OP_STATES)),
    patch: fc.constantFrom<Record<string, unknown>>({}, { reason: 'r' }, { state: 'applied' }, { fencing_token: 5 }),
  }),
  fc.record({ c: fc.constant('release' as const), id: fc.constantFrom(...IDS), w: fc.constantFrom(...WORKERS) }),
  fc.record({ c: fc.constant('tick' as const), ms: fc.integer({ min: 1, max: 2_000 }) }),
);
type Command = typeof commandArb extends fc.Arbitrary<infer C> ? C : never;

async function check(store: TaskStore, ids: string[]): Promise<void> {
  for (const id of ids) {
    const rec = await store.get(id);
    const history = await store.history(id);
    if (!rec) {
      expect(history).toEqual([]);
      continue;
    }
    let at: TaskOpState | null = null;
    for (const h of history) {
      expect(h.from).toBe(at);
      expect(canTaskTransition(h.from, h.to), `${h.from} -> ${h.to}`).toBe(true);
      at = h.to;
    }
    expect(rec.state).toBe(at);
  }
}

async function play(store: TaskStore, prefix: string, commands: Command[]): Promise<void> {
  let now = 0;
  const leases = new Map<string, TaskLease>();
  for (const cmd of commands) {
    const id = `${prefix}${'id' in cmd ? cmd.id : ''}`;
    const key = 'w' in cmd ? `${cmd.w}/${id}` : '';
    switch (cmd.c) {
      case 'insert':
        await store.insert(fresh(id), {});
        break;
      case 'claim': {
        const l = await store.claim(id, cmd.w, now, 1_000, leases.get(key)?.token ?? null);
        if (l) leases.set(key, l);
        break;
      }
      case 'change': {
        const lease = leases.get(key) ?? { task_op_id: id, owner: cmd.w, token: 1, expires_at: now };
        const from = (await store.get(id))?.state ?? 'create_pending';
        const legal = TASK_TRANSITIONS[from];
        const to = cmd.legal && legal.length ? legal[cmd.pick % legal.length]! : cmd.to;
        try {
          await store.change(lease, cmd.patch as TaskPatch, to ? { at: 'x', to, cause: 'c' } : undefined);
        } catch (err) {
          if (!/not allowed|may not write|taken over|is final|unknown task/.test(String(err))) throw err;
        }
        break;
      }
      case 'release': {
        const l = leases.get(key);
        if (l) await store.release(l);
        break;
      }
      case 'tick':
        now += cmd.ms;
        break;
    }
    await check(
      store,
      IDS.map((i) => `${prefix}${i}`),
    );
  }
}

const commands = fc.array(commandArb, { minLength: 1, maxLength: 25 });

describe('no sequence of task store calls writes a state the task transition table does not allow', () => {
  it('SQLite', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jp-task-prop-'));
    const store = SqliteTaskStore.open(dir);
    let run = 0;
    try {
      await fc.assert(
        fc.asyncProperty(commands, (cs) => play(store, `r${++run}-`, cs)),
        { numRuns: 150 },
      );
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const url = pgUrl();
  const schema = uniqueSchema('task_transitions');
  afterAll(async () => {
    if (url) await dropSchema(url, schema);
  });
  it.skipIf(url === null)(
    'PostgreSQL',
    async () => {
      const store = new PgTaskStore(url!, schema);
      let run = 0;
      try {
        await fc.assert(
          fc.asyncProperty(commands, (cs) => play(store, `r${++run}-`, cs)),
          { numRuns: 40 },
        );
      } finally {
        await store.close();
      }
    },
    120_000,
  );
});
