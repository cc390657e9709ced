import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { FINAL_STATES, WORKING_STATES } from '../../../src/contract/client-protocol.js';
import type { Lease, OperationStore } from '../../../src/reference-client/store/operation-store.js';
import { PgOperationStore } from '../../../src/reference-client/store/pg-store.js';
import { openRunMemoryStore } from '../../../src/reference-client/store/run-memory.js';
import { SqliteOperationStore } from '../../../src/reference-client/store/sqlite-store.js';
import {
  canTransition,
  EVIDENCE_KINDS,
  RefusedTransitionError,
  TRANSITIONS,
  type EvidenceKind,
} from '../../../src/reference-client/state-machine.js';
import type { OperationPatch } from '../../../src/reference-client/types.js';
import { dropSchema, pgUrl, uniqueSchema } from '../../helpers/pg.js';
import { row, tempDir } from '../helpers.js';
import { line, T0 } from './contract.js';

/**
 * No sequence of store calls writes a state the transition table does not allow: whatever a caller inserts, leases,
 * commits (legal moves, refused moves, patches that try to name the state), cancels or schedules, every stored
 * history is a walk the table allows from `null`, starting with the submit line, and every record's state is where
 * its history ends.
 */
const OPERATION_STATES = [...WORKING_STATES, ...FINAL_STATES];
const IDS = ['a', 'b', 'c'];
const WORKERS = ['w1', 'w2'];
const LEASE_MS = 1_000;

const lineArb = fc.record({
  /** true: one of the table's edges from the state the caller last read; false: any state on any evidence. */
  legal: fc.boolean(),
  pick: fc.nat(),
  to: fc.constantFrom(...OPERATION_STATES),
  kind: fc.constantFrom(...EVIDENCE_KINDS, 'made_up'),
});

const patchArb = fc.oneof(
  fc.constant<Record<string, unknown>>({}),
  fc.record({ attempt: fc.nat(9), next_poll_at: fc.integer({ min: T0, max: T0 + 5_000 }) }),
  // What the type forbids, through a cast: the stores must refuse it at run time too.
  fc.constantFrom<Record<string, unknown>>({ state: 'succeeded' }, { state: 'create_pending' }, { fencing_token: 7 }, { lease_owner: 'x' }),
);

const commandArb = fc.oneof(
  fc.record({ c: fc.constant('insert' as const), id: fc.constantFrom(...IDS), state: fc.constantFrom(...OPERATION_STATES) }),
  fc.record({ c: fc.constant('claim' as const), w: fc.constantFrom(...WORKERS) }),
  fc.record({
    c: fc.constant('commit' as const),
    w: fc.constantFrom(...WORKERS),
    id: fc.constantFrom(...IDS),
    lines: fc.array(lineArb, { maxLength: 4 }),
    patch: patchArb,
  }),
  fc.record({ c: fc.constant('cancel' as const), id: fc.constantFrom(...IDS) }),
  fc.record({ c: fc.constant('release' as const), w: fc.constantFrom(...WORKERS), id: fc.constantFrom(...IDS) }),
  fc.record({ c: fc.constant('poll_soon' as const), id: fc.constantFrom(...IDS) }),
  fc.record({ c: fc.constant('tick' as const), ms: fc.integer({ min: 1, max: 2 * LEASE_MS }) }),
);
type Command = typeof commandArb extends fc.Arbitrary<infer C> ? C : never;

function legalMoves(from: string): [string, EvidenceKind][] {
  const out: [string, EvidenceKind][] = [];
  for (const [to, kinds] of Object.entries(TRANSITIONS[from as keyof typeof TRANSITIONS] ?? {}))
    for (const k of kinds ?? []) out.push([to, k]);
  return out;
}

async function expectOnlyTableMoves(store: OperationStore, ids: string[]): Promise<void> {
  for (const id of ids) {
    const rec = await store.get(id);
    const history = await store.history(id);
    if (!rec) {
      expect(history).toEqual([]);
      continue;
    }
    expect(history[0]).toMatchObject({ from: null, to: 'create_pending', evidence: { kind: 'submit' } });
    let at: string | null = null;
    for (const h of history) {
      expect(h.from).toBe(at);
      expect(canTransition(h.from, h.to, h.evidence.kind as EvidenceKind), `${h.from} -> ${h.to} on ${h.evidence.kind}`).toBe(true);
      at = h.to;
    }
    expect(rec.state).toBe(at);
  }
}

async function play(store: OperationStore, prefix: string, commands: Command[]): Promise<void> {
  let now = T0;
  const leases = new Map<string, Lease>(); // `${worker}/${id}` → the lease that worker believes it holds
  const ids = IDS.map((i) => `${prefix}${i}`);
  for (const cmd of commands) {
    switch (cmd.c) {
      case 'insert':
        await store.insertOperation(row(`${prefix}${cmd.id}`, now, { state: cmd.state }), 'w', []);
        break;
      case 'claim': {
        const held = new Map([...leases].filter(([k]) => k.startsWith(`${cmd.w}/`)).map(([, l]) => [l.operation_id, l.token]));
        for (const l of await store.claimDue(cmd.w, now, LEASE_MS, 10, held)) leases.set(`${cmd.w}/${l.operation_id}`, l);
        break;
      }
      case 'commit': {
        const id = `${prefix}${cmd.id}`;
        const lease = leases.get(`${cmd.w}/${id}`) ?? { operation_id: id, owner: cmd.w, token: 1, expires_at: now };
        let from = (await store.get(id))?.state ?? 'create_pending';
        const history = cmd.lines.map((l) => {
          const moves = legalMoves(from);
          const [to, kind] = l.legal && moves.length ? moves[l.pick % moves.length]! : [l.to, l.kind];
          from = to as typeof from;
          return line(to as typeof from, kind);
        });
        try {
          await store.commit(lease, { patch: cmd.patch as OperationPatch, history, audit: [] });
        } catch (err) {
          if (!(err instanceof RefusedTransitionError) && !/may not write/.test(String(err))) throw err;
        }
        break;
      }
      case 'cancel':
        await store.recordCancelIntent(
          `${prefix}${cmd.id}`,
          { actor: 'u', reason: 'r', cancel_deadline_ms: 1, requested_at: now, deadline_at: now + 1 },
          [],
        );
        break;
      case 'release': {
        const l = leases.get(`${cmd.w}/${prefix}${cmd.id}`);
        if (l) await store.release(l);
        break;
      }
      case 'poll_soon':
        await store.pollSoon(`${prefix}${cmd.id}`, now);
        break;
      case 'tick':
        now += cmd.ms;
        break;
    }
    await expectOnlyTableMoves(store, ids);
  }
}

const commands = fc.array(commandArb, { minLength: 1, maxLength: 30 });

describe('no sequence of store calls writes a state the transition table does not allow', () => {
  it('SQLite (a file, as a worker process opens it)', async () => {
    const t = tempDir();
    const store = SqliteOperationStore.open(t.dir);
    let run = 0;
    try {
      await fc.assert(
        fc.asyncProperty(commands, (cs) => play(store, `r${++run}-`, cs)),
        { numRuns: 150 },
      );
    } finally {
      await store.close();
      t.cleanup();
    }
  });

  it('the in-memory run store (in-process property runs)', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(commands, async (cs) => {
        const store = openRunMemoryStore(`/nonexistent/transitions-${++run}`);
        try {
          await play(store, '', cs);
        } finally {
          await store.close();
        }
      }),
      { numRuns: 100 },
    );
  });

  const url = pgUrl();
  const schema = uniqueSchema('transitions');
  afterAll(async () => {
    if (url) await dropSchema(url, schema);
  });
  it.skipIf(url === null)(
    'PostgreSQL',
    async () => {
      const store = new PgOperationStore(url!, schema);
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
