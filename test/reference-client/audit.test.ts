import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyAudit } from '../../src/reference-client/index.js';
import { SqliteOperationStore } from '../../src/reference-client/store/sqlite-store.js';
import { bench, op, type Bench } from './harness.js';

/** A finished run's audit, then the attacker: drop the append-only triggers and edit, insert, delete, cut. */
describe('audit log', () => {
  let b: Bench;
  afterEach(() => b?.close());

  async function finishedRun(): Promise<SqliteOperationStore> {
    b = bench({ faults: { rules: [{ on: 'create', nth: 1, fault: { type: 'lose_response', mode: 'reset' } }] } });
    const c = b.client();
    await c.submit(op('op_1'));
    await c.submit(op('op_2'));
    await c.cancel('op_2', { actor: 'frank', reason: 'not needed', cancel_deadline_ms: 1000 });
    await b.work(c);
    const s = SqliteOperationStore.open(b.dir);
    s.raw.exec('DROP TRIGGER audit_no_update; DROP TRIGGER audit_no_delete;');
    return s;
  }

  it('records intents, calls with request ids, transitions and who asked for cancel — and verifies', async () => {
    const s = await finishedRun();
    const rows = await s.auditRows();
    const kinds = new Set(rows.map((r) => r.kind));
    expect(kinds).toEqual(new Set(['intent', 'call', 'transition', 'lease']));
    expect(rows.some((r) => r.kind === 'intent' && r.actor === 'frank' && r.detail.includes('not needed'))).toBe(true);
    expect(rows.filter((r) => r.kind === 'call').every((r) => /"request_id":("req_|null)/.test(r.detail))).toBe(true);
    expect(rows.some((r) => r.kind === 'call' && r.detail.includes('"request_id":"req_'))).toBe(true);
    expect(await verifyAudit(b.dir)).toEqual({ ok: true, entries: rows.length });
    await s.close();
  });

  it('never holds the token or the webhook secret', async () => {
    const s = await finishedRun();
    await s.close();
    const bytes =
      readFileSync(join(b.dir, 'client.db')).toString('latin1') +
      readFileSync(join(b.dir, 'client.db-wal'), { flag: 'a+' }).toString('latin1');
    expect(bytes).not.toContain('dev-token');
    expect(bytes).not.toContain('Bearer');
  });

  const attacks: [string, (s: SqliteOperationStore) => unknown][] = [
    [
      'an edited line',
      (s) => s.raw.prepare("UPDATE audit SET detail = replace(detail, 'frank', 'mallory') WHERE detail LIKE '%frank%'").run(),
    ],
    ['an edited actor', (s) => s.raw.prepare("UPDATE audit SET actor = 'mallory' WHERE seq = 3").run()],
    ['a deleted line', (s) => s.raw.prepare('DELETE FROM audit WHERE seq = 4').run()],
    [
      'an inserted line',
      async (s) => {
        const rows = await s.auditRows();
        s.raw.exec('UPDATE audit SET seq = seq + 1000');
        s.raw.exec('UPDATE audit SET seq = seq - 1000 WHERE seq <= 1005');
        const r = rows[4]!;
        s.raw
          .prepare('INSERT INTO audit VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
          .run(6, r.at, 'mallory', 'intent', r.operation_id, '{}', r.hash, r.hash);
        s.raw.exec('UPDATE audit SET seq = seq - 999 WHERE seq > 1005');
      },
    ],
    ['a cut tail', (s) => s.raw.prepare('DELETE FROM audit WHERE seq > (SELECT MAX(seq) - 2 FROM audit)').run()],
    [
      'a cut tail with the head moved back',
      async (s) => {
        s.raw.prepare('DELETE FROM audit WHERE seq > (SELECT MAX(seq) - 2 FROM audit)').run();
        const last = (await s.auditRows()).at(-1)!;
        // Without also forging the head the cut is caught; with it, only the head itself could tell (documented).
        s.raw.prepare('UPDATE audit_head SET seq = ?, hash = ? WHERE id = 1').run(last.seq, 'sha256:forged');
      },
    ],
  ];
  for (const [name, attack] of attacks) {
    it(`detects ${name}`, async () => {
      const s = await finishedRun();
      await attack(s);
      await s.close();
      const v = await verifyAudit(b.dir);
      expect(v.ok).toBe(false);
      expect(v.problem?.reason).toBeTruthy();
    });
  }
});
