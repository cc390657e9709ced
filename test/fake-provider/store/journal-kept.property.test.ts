/**
 * A journal that keeps its entries decoded (`keepDecoded`, short-lived `:memory:` providers) answers every read as
 * one that reads the table each time: random appends (inside a turn's transaction or not, some in a job change's
 * transaction that rolls back), reads from any point with any limit, and resets, on two stores side by side.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../../src/fake-provider/store/database.js';
import { GroupCommit } from '../../../src/fake-provider/store/group-commit.js';
import { JournalRepo } from '../../../src/fake-provider/store/journal-repo.js';

type Op =
  | { kind: 'append'; n: number; turn: boolean; rollback: boolean }
  | { kind: 'read'; since: number; limit: number | undefined }
  | { kind: 'commit' }
  | { kind: 'reset' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('append' as const),
      n: fc.integer({ min: 1, max: 4 }),
      turn: fc.boolean(),
      rollback: fc.boolean(),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('read' as const),
      since: fc.integer({ min: 0, max: 40 }),
      limit: fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'commit' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'reset' as const }) },
);

function side(keepDecoded: boolean): { db: Db; group: GroupCommit; journal: JournalRepo } {
  const db = openDatabase(':memory:');
  const group = new GroupCommit(db);
  return { db, group, journal: new JournalRepo(db, group, { keepDecoded }) };
}

function apply(s: ReturnType<typeof side>, op: Op, at: number): unknown {
  switch (op.kind) {
    case 'append': {
      if (op.turn) s.group.join();
      const write = () => {
        for (let i = 0; i < op.n; i++)
          s.journal.appendTransition({ at: at + i, job_id: `job_${i}`, tenant: 'acme', from: null, to: 'queued', cause: 'create' });
      };
      if (!op.rollback) return write();
      try {
        s.db.transaction(() => {
          write();
          throw new Error('rolled back');
        })();
      } catch {
        // the job change failed: its entries are gone, their numbers not reused
      }
      return undefined;
    }
    case 'read':
      return s.journal.since(op.since, op.limit);
    case 'commit':
      return s.group.commit();
    case 'reset':
      return s.journal.reset();
  }
}

describe('journal kept decoded', () => {
  it('reads what a journal reading its table reads, after any appends, rollbacks and resets', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 40 }), (ops) => {
        const plain = side(false);
        const kept = side(true);
        ops.forEach((op, i) => {
          expect(apply(kept, op, 1_000 * i)).toEqual(apply(plain, op, 1_000 * i));
          expect(kept.journal.lastSeq()).toBe(plain.journal.lastSeq());
        });
        expect(kept.journal.all()).toEqual(plain.journal.all());
        plain.group.close();
        kept.group.close();
        plain.db.close();
        kept.db.close();
      }),
      { numRuns: 200 },
    );
  });
});
