import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { OperationStore } from '../../../src/reference-client/store/operation-store.js';
import { PgOperationStore } from '../../../src/reference-client/store/pg-store.js';
import { openRunMemoryStore } from '../../../src/reference-client/store/run-memory.js';
import { SqliteOperationStore } from '../../../src/reference-client/store/sqlite-store.js';
import { canTransition, type EvidenceKind } from '../../../src/reference-client/state-machine.js';
import { dropSchema, pgUrl, uniqueSchema } from '../../helpers/pg.js';
import { tempDir } from '../helpers.js';
import { type Command, commandArb, IDS, play } from './store-commands.js';

/**
 * No sequence of store calls writes a state the transition table does not allow: whatever a caller inserts, leases,
 * commits (legal moves, refused moves, patches that try to name the state), cancels or schedules, every stored
 * history is a walk the table allows from `null`, starting with the submit line, and every record's state is where
 * its history ends.
 */
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

async function playChecked(store: OperationStore, prefix: string, commands: Command[]): Promise<void> {
  const ids = IDS.map((i) => `${prefix}${i}`);
  await play(store, prefix, commands, () => expectOnlyTableMoves(store, ids));
}

const commands = fc.array(commandArb, { minLength: 1, maxLength: 30 });

describe('no sequence of store calls writes a state the transition table does not allow', () => {
  it('SQLite (a file, as a worker process opens it)', async () => {
    const t = tempDir();
    const store = SqliteOperationStore.open(t.dir);
    let run = 0;
    try {
      await fc.assert(
        fc.asyncProperty(commands, (cs) => playChecked(store, `r${++run}-`, cs)),
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
          await playChecked(store, '', cs);
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
          fc.asyncProperty(commands, (cs) => playChecked(store, `r${++run}-`, cs)),
          { numRuns: 40 },
        );
      } finally {
        await store.close();
      }
    },
    120_000,
  );
});
