import fc from 'fast-check';
import { FINAL_STATES, WORKING_STATES } from '../../../src/contract/client-protocol.js';
import type { Lease, OperationStore } from '../../../src/reference-client/store/operation-store.js';
import { EVIDENCE_KINDS, RefusedTransitionError, TRANSITIONS, type EvidenceKind } from '../../../src/reference-client/state-machine.js';
import type { OperationPatch } from '../../../src/reference-client/types.js';
import { row } from '../helpers.js';
import { line, T0 } from './contract.js';

/**
 * Random sequences of store calls (inserts, leases, commits of legal and refused moves, cancels, releases, schedule
 * hints, time passing), played on any OperationStore: the transition property test and the memory store's
 * equivalence test draw from the same commands.
 */
export const OPERATION_STATES = [...WORKING_STATES, ...FINAL_STATES];
export const IDS = ['a', 'b', 'c'];
const WORKERS = ['w1', 'w2'];
export const LEASE_MS = 1_000;

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

export const commandArb = fc.oneof(
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
export type Command = typeof commandArb extends fc.Arbitrary<infer C> ? C : never;

export function legalMoves(from: string): [string, EvidenceKind][] {
  const out: [string, EvidenceKind][] = [];
  for (const [to, kinds] of Object.entries(TRANSITIONS[from as keyof typeof TRANSITIONS] ?? {}))
    for (const k of kinds ?? []) out.push([to, k]);
  return out;
}

/**
 * Play `commands` on `store` (ids prefixed by `prefix`); after each, `after(cmd, outcome)` sees what the call returned
 * (or the error it was refused with).
 */
export async function play(
  store: OperationStore,
  prefix: string,
  commands: Command[],
  after: (cmd: Command, outcome: unknown) => Promise<void>,
): Promise<void> {
  let now = T0;
  const leases = new Map<string, Lease>(); // `${worker}/${id}` → the lease that worker believes it holds
  for (const cmd of commands) {
    let outcome: unknown = null;
    switch (cmd.c) {
      case 'insert':
        outcome = await store.insertOperation(row(`${prefix}${cmd.id}`, now, { state: cmd.state }), 'w', []);
        break;
      case 'claim': {
        const held = new Map([...leases].filter(([k]) => k.startsWith(`${cmd.w}/`)).map(([, l]) => [l.operation_id, l.token]));
        const got = await store.claimDue(cmd.w, now, LEASE_MS, 10, held);
        for (const l of got) leases.set(`${cmd.w}/${l.operation_id}`, l);
        outcome = got;
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
          outcome = await store.commit(lease, { patch: cmd.patch as OperationPatch, history, audit: [] });
        } catch (err) {
          if (!(err instanceof RefusedTransitionError) && !/may not write/.test(String(err))) throw err;
          outcome = `refused: ${(err as Error).message}`;
        }
        break;
      }
      case 'cancel':
        outcome = await store.recordCancelIntent(
          `${prefix}${cmd.id}`,
          { actor: 'u', reason: 'r', cancel_deadline_ms: 1, requested_at: now, deadline_at: now + 1 },
          [{ at: now, actor: 'u', kind: 'intent', operation_id: `${prefix}${cmd.id}`, detail: { reason: 'r' } }],
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
    await after(cmd, outcome);
  }
}
