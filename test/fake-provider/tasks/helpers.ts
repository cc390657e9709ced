import { expect } from 'vitest';
import { newKey, type ProviderServer } from '../../helpers/provider-server.js';

let refSeq = 0;
export function newRef(label = 'obj'): string {
  refSeq += 1;
  return `${label}-${process.pid}-${refSeq}`;
}

export async function putObject(
  ps: ProviderServer,
  ref: string,
  data: Record<string, unknown> = { amount: 1 },
  tenant = 'acme',
): Promise<number> {
  const a = await ps.control('PUT', `/_control/objects/${ref}`, { body: { tenant, data } });
  expect(a.status).toBe(200);
  return a.json.version;
}

export function taskBody(ref: string, version: number, input: Record<string, unknown> = { changes: { status: 'paid' } }) {
  return { type: 'propose_update', object_ref: ref, object_version: version, input };
}

export async function createTask(
  ps: ProviderServer,
  ref: string,
  version: number,
  opts: { token?: string; key?: string; input?: Record<string, unknown> } = {},
) {
  const a = await ps.call('POST', '/v1/tasks', {
    token: opts.token,
    headers: { 'idempotency-key': opts.key ?? newKey('t') },
    body: taskBody(ref, version, opts.input),
  });
  expect(a.status, a.text).toBe(202);
  return a;
}

export async function readTask(ps: ProviderServer, id: string, token?: string) {
  return ps.call('GET', `/v1/tasks/${id}`, { token });
}

/** A fresh object and a task on it, awaiting review (draft_ms is 0 in these tests: the next request drafts it). */
export async function awaitingTask(ps: ProviderServer, data: Record<string, unknown> = { amount: 1 }) {
  const ref = newRef();
  const version = await putObject(ps, ref, data);
  const created = await createTask(ps, ref, version);
  const task = (await readTask(ps, created.json.task_id)).json;
  expect(task.state).toBe('awaiting_review');
  return { ref, version, id: created.json.task_id as string, task };
}

export async function review(ps: ProviderServer, id: string, decision: string, proposalVersion: number, token = 'reviewer-token') {
  return ps.call('POST', `/v1/tasks/${id}/review`, { token, body: { decision, proposal_version: proposalVersion } });
}

export async function apply(ps: ProviderServer, id: string, key: string | null = newKey('a'), token?: string) {
  return ps.call('POST', `/v1/tasks/${id}/apply`, { token, headers: key === null ? {} : { 'idempotency-key': key } });
}

export async function objectVersion(ps: ProviderServer, ref: string): Promise<number> {
  return (await ps.call('GET', `/v1/objects/${ref}`)).json.version;
}
