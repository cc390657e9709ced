import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../helpers/provider-server.js';
import { PROFILES, op, profileOf, startProfileRig, workOut, type ProfileRig } from './profile-rig.js';

/**
 * The reference client through the one generic profile adapter, against the fake serving each profile over real
 * HTTP: a whole create → observe → verified result cycle, a create → cancel cycle confirmed by the API, and a lost
 * create answer recovered without a second job (every built-in has an idempotency key or a lookup).
 */
let rig: ProfileRig;
beforeAll(async () => {
  rig = await startProfileRig();
});
afterAll(() => rig.close());

describe.each(PROFILES)('profile %s', (nameOrFile) => {
  const p = profileOf(nameOrFile);
  const created = (opId: string) =>
    rig.requests(p).filter((e) => e.route === 'create' && e.effect === 'created' && e.trace_id !== null && opIds.get(e.trace_id) === opId);
  const opIds = new Map<string, string>();
  const remember = async (c: Awaited<ReturnType<ProfileRig['client']>>, opId: string) => opIds.set((await c.show(opId)).trace_id, opId);

  it('creates, observes and collects verified results', { timeout: 30_000 }, async () => {
    await rig.faults([]);
    await rig.behave({ duration_ms: 300, items: 3, items_failed: 1 });
    const c = rig.client(p);
    const id = `${p.name}-ok`;
    await c.submit(op(p, id));
    await remember(c, id);
    await workOut(c);
    const rec = await c.show(id);
    expect(rec.state, JSON.stringify(rec.history)).toBe('succeeded');
    expect(rec.result).toMatchObject({ items_total: 3, items_failed: 1 });
    expect(rec.result?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(rec.history.map((h) => h.to)).toEqual(expect.arrayContaining(['accepted', 'result_collecting', 'succeeded']));
    expect(created(id)).toHaveLength(1);
    // Every request went to this profile's routes, each carrying the operation's trace id.
    const mine = rig.server.provider.journal.all().filter((e) => e.type === 'request' && e.trace_id === rec.trace_id);
    expect(mine.length).toBeGreaterThan(1);
    expect(mine.every((e) => e.type === 'request' && (e.dialect ?? 'native') === p.name && e.path.startsWith(p.prefix))).toBe(true);
    const key = p.idempotency.source === 'none' ? null : expect.stringMatching(/^idem_/);
    expect(rec.idempotency_key).toEqual(key);
    if (key) expect(created(id)[0]!.idempotency_key).toBe(rec.idempotency_key);
  });

  it('takes a job finished inside the create as the create answer shows it', { timeout: 30_000 }, async () => {
    await rig.faults([]);
    await rig.behave({ mode: 'sync', items: 2 });
    const c = rig.client(p);
    const id = `${p.name}-sync`;
    await c.submit(op(p, id));
    await workOut(c);
    const rec = await c.show(id);
    expect(rec.state, JSON.stringify(rec.history)).toBe('succeeded');
    expect(rec.result).toMatchObject({ items_total: 2, items_failed: 0 });
    // Where the create answer carries the job's view it is the job's first read; otherwise the status route is.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a profile template, not a JavaScript one
    const view = [p.create.sync_body, p.create.body].find((b) => b !== undefined) === '${view}';
    expect(rec.history.map((h) => h.to).slice(0, 3)).toEqual(
      view ? ['create_pending', 'result_collecting', 'succeeded'] : ['create_pending', 'accepted', 'result_collecting'],
    );
  });

  it('cancels a running job and ends cancelled only once the API says so', { timeout: 30_000 }, async () => {
    await rig.faults([]);
    await rig.behave({ duration_ms: 20_000, items: 3 });
    const c = rig.client(p);
    const id = `${p.name}-cancel`;
    await c.submit(op(p, id));
    const done = workOut(c);
    await waitFor(async () => ['accepted', 'observing'].includes((await c.show(id)).state), 15_000);
    await c.cancel(id, { actor: 'test', reason: 'no longer needed', cancel_deadline_ms: 15_000 });
    await done;
    const rec = await c.show(id);
    expect(rec.state, JSON.stringify(rec.history)).toBe('cancelled');
    expect(rec.history.map((h) => h.to)).toEqual(expect.arrayContaining(['cancel_requested', 'cancelled']));
    const cancels = rig.requests(p).filter((e) => e.route === 'cancel' && e.trace_id === rec.trace_id);
    expect(cancels.map((e) => e.effect)).toContain('cancel_requested');
    // The job the API cancelled is the operation's own.
    expect(cancels.every((e) => e.job_id === rec.remote_job_id)).toBe(true);
  });

  it('recovers a lost create answer without a second job', { timeout: 40_000 }, async () => {
    await rig.behave({ duration_ms: 300, items: 2 });
    await rig.faults([{ on: 'create', times: 1, fault: { type: 'lose_response', mode: 'reset' } }]);
    const c = rig.client(p);
    const id = `${p.name}-lost`;
    await c.submit(op(p, id));
    await remember(c, id);
    await workOut(c);
    await rig.faults([]);
    const rec = await c.show(id);
    expect(rec.state, JSON.stringify(rec.history)).toBe('succeeded');
    const lost = rig.requests(p).filter((e) => e.route === 'create' && e.delivery === 'lost' && e.trace_id === rec.trace_id);
    expect(lost).toHaveLength(1);
    // One job, and it is the one the lost answer was about.
    expect(created(id).map((e) => e.job_id)).toEqual([lost[0]!.job_id]);
    expect(rec.remote_job_id).toBe(lost[0]!.job_id);
    expect(rec.history.map((h) => h.to)).toContain('create_unknown');
    // Without a key the create is never sent again: the job was found by the lookup route and adopted.
    const sent = rig.requests(p).filter((e) => e.trace_id === rec.trace_id);
    if (p.idempotency.source === 'none') {
      expect(sent.filter((e) => e.route === 'create')).toHaveLength(1);
      expect(sent.some((e) => e.route === 'list')).toBe(true);
    }
  });
});
