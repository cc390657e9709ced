/**
 * Model-based test of the tasks state machine against the provider (its HTTP app, in process): random reviews,
 * revocations, role changes through /_control/principals, object edits, applies with retries and lost answers.
 * Every answer is compared with a small model; the object changes once per applied proposal, never otherwise.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createProvider, type Provider } from '../../../src/fake-provider/index.js';

type Role = 'submitter' | 'reviewer';
const TOKENS = ['dev-token', 'dev-token-2', 'reviewer-token', 'rev-b'] as const;
type Token = (typeof TOKENS)[number];
const SUBJECT: Record<Token, string> = {
  'dev-token': 'agent-1',
  'dev-token-2': 'agent-2',
  'reviewer-token': 'reviewer-1',
  'rev-b': 'reviewer-2',
};
const ROLE_SETS: Role[][] = [[], ['submitter'], ['reviewer'], ['submitter', 'reviewer']];

type Action =
  | { t: 'create'; by: Token }
  | { t: 'review'; by: Token; task: number; decision: 'approve' | 'reject' | 'revoke'; stale: boolean }
  | { t: 'roles'; token: Token; roles: number }
  | { t: 'edit' }
  | { t: 'apply'; by: Token; task: number; reuseKey: boolean; lose: boolean };

const token = fc.constantFrom(...TOKENS);
const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ t: fc.constant('create' as const), by: fc.constantFrom<Token>('dev-token', 'dev-token-2') }) },
  {
    weight: 4,
    arbitrary: fc.record({
      t: fc.constant('review' as const),
      by: token,
      task: fc.nat(5),
      decision: fc.constantFrom('approve' as const, 'approve' as const, 'reject' as const, 'revoke' as const),
      stale: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('roles' as const), token, roles: fc.nat(3) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('edit' as const) }) },
  {
    weight: 4,
    arbitrary: fc.record({ t: fc.constant('apply' as const), by: token, task: fc.nat(5), reuseKey: fc.boolean(), lose: fc.boolean() }),
  },
);

interface MTask {
  id: string;
  initiator: string;
  state: string;
  pv: number;
  base: number;
  approver: string | null;
  lapse: 'object_changed' | 'approver_lost_role' | null;
}

class Model {
  roles: Record<Token, Role[]> = {
    'dev-token': ['submitter'],
    'dev-token-2': ['submitter'],
    'reviewer-token': ['reviewer'],
    'rev-b': ['reviewer'],
  };
  version = 1;
  edits = 0;
  applied = 0;
  tasks: MTask[] = [];
  /** Stored apply answers by subject + key. */
  keys = new Map<string, { status: number; code: string | null }>();
  lastKey = new Map<string, string>();

  isReviewer(subject: string): boolean {
    return TOKENS.some((t) => SUBJECT[t] === subject && this.roles[t].includes('reviewer'));
  }

  redraftAll(except?: MTask): void {
    for (const t of this.tasks) {
      if (t === except || (t.state !== 'awaiting_review' && t.state !== 'approved')) continue;
      t.pv += 1;
      t.base = this.version;
      if (t.state === 'approved') t.lapse = 'object_changed';
      t.state = 'awaiting_review';
      t.approver = null;
    }
  }

  review(by: Token, t: MTask, decision: string, pv: number): { status: number; code: string | null } {
    if (!this.roles[by].includes('reviewer')) return { status: 403, code: 'forbidden_role' };
    if (SUBJECT[by] === t.initiator) return { status: 403, code: 'self_review_forbidden' };
    if (['applied', 'rejected', 'failed', 'apply_failed'].includes(t.state)) return { status: 409, code: 'invalid_state' };
    if (pv !== t.pv) return { status: 409, code: 'stale_proposal' };
    if (decision === 'revoke') {
      if (t.state !== 'approved') return { status: 409, code: 'invalid_state' };
      t.state = 'awaiting_review';
      t.approver = null;
      return { status: 200, code: null };
    }
    if (t.state !== 'awaiting_review') return { status: 409, code: 'invalid_state' };
    if (decision === 'approve') {
      t.state = 'approved';
      t.approver = SUBJECT[by];
      t.lapse = null;
    } else t.state = 'rejected';
    return { status: 200, code: null };
  }

  apply(by: Token, t: MTask, key: string): { status: number; code: string | null; replayed: boolean } {
    if (!this.roles[by].includes('submitter')) return { status: 403, code: 'forbidden_role', replayed: false };
    const stored = this.keys.get(`${SUBJECT[by]}|${key}`);
    if (stored) return { ...stored, replayed: true };
    const refuse = (code: string) => ({ status: 409, code, replayed: false });
    if (t.state === 'applied') return refuse('already_applied');
    if (['rejected', 'failed', 'apply_failed'].includes(t.state)) return refuse('invalid_state');
    if (t.state !== 'approved')
      return refuse(t.state === 'awaiting_review' && t.lapse === 'object_changed' ? 'stale_object_version' : 'approval_required');
    if (!this.isReviewer(t.approver!)) {
      t.state = 'awaiting_review';
      t.approver = null;
      t.lapse = 'approver_lost_role';
      return refuse('approval_required');
    }
    t.state = 'applied';
    this.version += 1;
    this.applied += 1;
    this.redraftAll(t);
    this.keys.set(`${SUBJECT[by]}|${key}`, { status: 200, code: null });
    return { status: 200, code: null, replayed: false };
  }
}

async function call(p: Provider, method: string, path: string, tok: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await p.fetch(path, {
    method,
    headers: { authorization: `Bearer ${tok}`, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined, replayed: res.headers.get('idempotent-replayed') === 'true' };
}

async function runActions(actions: Action[]): Promise<void> {
  const p = createProvider({
    tokens: {
      tokens: {
        'dev-token': { tenant: 'acme', subject: 'agent-1', roles: ['submitter'] },
        'dev-token-2': { tenant: 'acme', subject: 'agent-2', roles: ['submitter'] },
        'reviewer-token': { tenant: 'acme', subject: 'reviewer-1', roles: ['reviewer'] },
        'rev-b': { tenant: 'acme', subject: 'reviewer-2', roles: ['reviewer'] },
      },
    },
  });
  const m = new Model();
  const ctl = (method: string, path: string, body?: unknown) => call(p, method, `/_control${path}`, 'control-token', body);
  let keySeq = 0;
  try {
    await ctl('PUT', '/task-behavior', { draft_ms: 0 });
    await ctl('PUT', '/objects/obj', { tenant: 'acme', data: { n: 0 } });
    for (const [i, a] of actions.entries()) {
      const where = `action ${i} ${JSON.stringify(a)}`;
      if (a.t === 'create') {
        const r = await call(
          p,
          'POST',
          '/v1/tasks',
          a.by,
          { type: 'propose_update', object_ref: 'obj', object_version: m.version, input: { changes: { [`k${i}`]: i } } },
          { 'idempotency-key': `c${i}` },
        );
        if (!m.roles[a.by].includes('submitter')) expect(r.status, where).toBe(403);
        else {
          expect(r.status, where).toBe(202);
          m.tasks.push({
            id: r.json.task_id,
            initiator: SUBJECT[a.by],
            state: 'awaiting_review',
            pv: 1,
            base: m.version,
            approver: null,
            lapse: null,
          });
        }
      } else if (a.t === 'roles') {
        m.roles[a.token] = ROLE_SETS[a.roles]!;
        const r = await ctl('PUT', '/principals', {
          tokens: { [a.token]: { tenant: 'acme', subject: SUBJECT[a.token], roles: m.roles[a.token] } },
        });
        expect(r.status, where).toBe(200);
      } else if (a.t === 'edit') {
        await ctl('PUT', '/objects/obj', { tenant: 'acme', data: { n: 0, edit: i } });
        m.version += 1;
        m.edits += 1;
        m.redraftAll();
      } else if (m.tasks.length > 0) {
        const t = m.tasks[a.task % m.tasks.length]!;
        if (a.t === 'review') {
          const pv = a.stale ? (t.pv > 1 ? t.pv - 1 : t.pv + 1) : t.pv;
          const want = m.review(a.by, t, a.decision, pv);
          const r = await call(p, 'POST', `/v1/tasks/${t.id}/review`, a.by, { decision: a.decision, proposal_version: pv });
          expect({ status: r.status, code: r.json?.code ?? null }, where).toEqual(want);
        } else {
          const ks = `${SUBJECT[a.by]}|${t.id}`;
          const key = a.reuseKey && m.lastKey.has(ks) ? m.lastKey.get(ks)! : `a${++keySeq}`;
          m.lastKey.set(ks, key);
          const want = m.apply(a.by, t, key);
          // Refusals before execution (role, key) are answered as they are, like create's: only what executed is lost.
          if (a.lose && want.code !== 'forbidden_role') {
            await ctl('PUT', '/faults', { rules: [{ on: 'apply', nth: 1, fault: { type: 'lose_response' } }] });
            await expect(call(p, 'POST', `/v1/tasks/${t.id}/apply`, a.by, undefined, { 'idempotency-key': key }), where).rejects.toThrow();
            await ctl('DELETE', '/faults');
            // The retry, same key: a replay of what happened (or the same refusal, recomputed).
            const again = m.apply(a.by, t, key);
            const r = await call(p, 'POST', `/v1/tasks/${t.id}/apply`, a.by, undefined, { 'idempotency-key': key });
            expect(
              { status: r.status, code: r.json?.code ?? null, replayed: r.replayed },
              `${where} (retry after the lost answer)`,
            ).toEqual(again);
          } else {
            const r = await call(p, 'POST', `/v1/tasks/${t.id}/apply`, a.by, undefined, { 'idempotency-key': key });
            expect({ status: r.status, code: r.json?.code ?? null, replayed: r.replayed }, where).toEqual(want);
          }
        }
      }
    }
    // The object changed once per applied proposal and per edit, never otherwise.
    // A task created by the last action is drafted by the next request (or timer): any read brings it up to date.
    expect((await call(p, 'GET', '/v1/objects/obj', 'dev-token')).status).toBe(200);
    const version = p.tasks.objects.get('acme', 'obj')!.version;
    expect(version).toBe(1 + m.edits + m.applied);
    expect(version).toBe(m.version);
    for (const t of m.tasks) {
      const row = p.tasks.tasks.get(t.id)!;
      expect({ state: row.state, pv: row.result?.proposal.proposal_version, base: row.result?.proposal.base_version }).toEqual({
        state: t.state,
        pv: t.pv,
        base: t.base,
      });
      expect(row.application !== null).toBe(t.state === 'applied');
    }
    const appliedEntries = p.journal.all().filter((e) => e.type === 'request' && e.route === 'apply' && e.effect === 'applied');
    expect(appliedEntries).toHaveLength(m.applied);
  } finally {
    p.close();
  }
}

describe('tasks state machine: model vs provider', () => {
  it('random reviews, revocations, role changes, edits, applies with retries and lost answers', async () => {
    await fc.assert(fc.asyncProperty(fc.array(action, { minLength: 5, maxLength: 40 }), runActions), { numRuns: 150 });
  }, 60_000);

  it('a scripted run: approve, lose the apply answer, retry, apply again with another key', async () => {
    await runActions([
      { t: 'create', by: 'dev-token' },
      { t: 'review', by: 'reviewer-token', task: 0, decision: 'approve', stale: false },
      { t: 'apply', by: 'dev-token', task: 0, reuseKey: false, lose: true },
      { t: 'apply', by: 'dev-token-2', task: 0, reuseKey: false, lose: false },
      { t: 'edit' },
      { t: 'create', by: 'dev-token-2' },
      { t: 'roles', token: 'reviewer-token', roles: 0 },
      { t: 'review', by: 'rev-b', task: 1, decision: 'approve', stale: false },
      { t: 'roles', token: 'rev-b', roles: 1 },
      { t: 'apply', by: 'dev-token', task: 1, reuseKey: false, lose: false },
    ]);
  });
});
