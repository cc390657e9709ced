import { expect } from 'vitest';
import { verifyChain } from '../../../src/reference-client/audit.js';
import type { Fleet } from './rig.js';

export interface FleetFigures {
  operations: number;
  duplicateCreates: number;
  lostResults: number;
  takeovers: number;
  staleAnswers: number;
  historyLinesOutOfFence: number;
}

/**
 * The fleet's outcome against the provider's journal and the database: at most one job per operation, every job
 * that succeeded is the operation's verified result, and every history line was written under the fencing token
 * the audit shows its writer holding (a stale writer's line would carry an older token or the wrong writer).
 */
export async function judgeFleet(f: Fleet, ids: string[]): Promise<FleetFigures> {
  const reqs = f.requests();
  f.provider.control.clearFaults();
  const lookup = async (jobId: string) =>
    (await (await f.provider.fetch(`/v1/jobs/${jobId}`, { headers: { authorization: 'Bearer dev-token' } })).json()) as {
      state: string;
      result: { sha256: string } | null;
    };
  let duplicateCreates = 0;
  let lostResults = 0;
  for (const id of ids) {
    const rec = await f.submitter.show(id);
    const created = reqs.filter((e) => e.route === 'create' && e.effect === 'created' && e.client_ref === id);
    duplicateCreates += Math.max(0, created.length - 1);
    if (created.length === 0) {
      expect(['cancelled', 'cancellation_unconfirmed'], id).toContain(rec.state);
      continue;
    }
    const job = await lookup(created[0]!.job_id!);
    if (job.state === 'succeeded' && !(rec.state === 'succeeded' && rec.result?.sha256 === job.result!.sha256)) lostResults++;
    if (job.state !== 'succeeded') expect([rec.state, job.state], id).toEqual(['cancelled', 'cancelled']);
  }
  const audit = await f.store.auditRows();
  expect(verifyChain(audit, await f.store.auditHead()).ok).toBe(true);
  // Who held which token, from the database's own audit of every takeover.
  const holder = new Map<string, string>();
  for (const a of audit.filter((x) => x.kind === 'lease')) holder.set(`${a.operation_id}:${JSON.parse(a.detail).fencing_token}`, a.actor);
  const lines = (
    await f.store.pool.query<{ operation_id: string; actor: string; fencing_token: number; seq: number }>(
      'SELECT operation_id, actor, fencing_token, seq FROM history WHERE seq > 1 ORDER BY operation_id, seq',
    )
  ).rows;
  let historyLinesOutOfFence = 0;
  const lastToken = new Map<string, number>();
  for (const l of lines) {
    const before = lastToken.get(l.operation_id) ?? 0;
    if (l.fencing_token < before || holder.get(`${l.operation_id}:${l.fencing_token}`) !== l.actor) historyLinesOutOfFence++;
    lastToken.set(l.operation_id, l.fencing_token);
  }
  return {
    operations: ids.length,
    duplicateCreates,
    lostResults,
    takeovers: audit.filter((a) => a.kind === 'lease' && JSON.parse(a.detail).taken_from !== null).length,
    staleAnswers: audit.filter((a) => a.kind === 'stale_answer').length,
    historyLinesOutOfFence,
  };
}
