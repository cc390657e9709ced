import { describe, expect, it } from 'vitest';
import { check } from '../../../src/conformance/checker/index.js';
import type { RunEvidenceInput } from '../../../src/conformance/checker/evidence.js';
import { profileFacts, profileSubmission } from '../../../src/conformance/dialect/profile-input.js';
import { loadProfile } from '../../../src/contract/profile-files.js';
import type { Profile } from '../../../src/contract/profiles.js';
import { JournalBuilder, T0, iso } from './support/journal-builder.js';

/**
 * The judge in an API profile (profiles.md, "Clients under test"): with no key and no client reference in the API
 * (replicate), a create is linked to its operation by the reference the harness put in the input, found in the
 * request body of the job it made; with a client reference (the seed's reports), by the journal's client_ref.
 */
function profile(name: string): Profile {
  const l = loadProfile(name);
  if (!l.ok) throw new Error('profile');
  return l.profile;
}

function evidence(p: Profile, refField: 'input' | 'client_ref'): RunEvidenceInput {
  const subs = ['op_1', 'op_2'].map((id) =>
    profileSubmission(p, {
      operation_id: id,
      kind: 'report',
      input: { account: 'a', range: 'r', format: 'csv' },
      create_deadline_ms: 3000,
      result_deadline_ms: 8000,
    }),
  );
  const j = new JournalBuilder();
  const made: Array<[string, number, string]> = [
    ['job_a', 0, 'lost'],
    ['job_b', 0, 'delivered'],
    ['job_c', 1, 'delivered'],
  ];
  for (const [i, [job, op, delivery]] of made.entries()) {
    j.request(T0 + 10 + i, {
      method: 'POST',
      path: `${p.prefix}/create`,
      route: 'create',
      dialect: p.name,
      effect: 'created',
      job_id: job,
      client_ref: refField === 'client_ref' ? (subs[op]!.input.client_ref as string) : null,
      delivery: delivery as 'lost' | 'delivered',
    });
    j.transition(T0 + 10 + i, job, null, 'queued', 'created');
  }
  return {
    dialect: 'native',
    profile: profileFacts(p),
    principal: { tenant: 'acme', subject: 'agent-1' },
    journal: j.build(),
    records: subs.map((s, i) => ({
      operation_id: s.operation_id,
      state: 'create_unknown',
      remote_job_id: i === 0 ? 'job_b' : 'job_c',
      idempotency_key: null,
      request_fingerprint: 'x',
      trace_id: null,
      history: [{ at: iso(T0), actor: 'submit', from: null, to: 'create_pending', cause: 'submit' }],
    })),
    submissions: subs.map((s) => ({ operation_id: s.operation_id, request: s, submitted_at: iso(T0), exit_code: 0 })),
    jobs: made.map(([job, op]) => ({ job_id: job, state: 'queued', input: { profile: p.name, request: subs[op]!.input } })),
  };
}

describe('linking in a profile', () => {
  it.each([
    ['replicate', 'input'],
    [loadProfile('examples/profiles/reports.json').file, 'client_ref'],
  ] as const)('%s: two jobs of one operation break I1 there, and only there (linked by %s)', (name, by) => {
    const v = check(evidence(profile(name), by));
    const i1 = v.invariants.find((i) => i.id === 'I1')!;
    expect(i1.status).toBe('broken');
    expect(i1.failures.map((f) => f.operation_id)).toEqual(['op_1']);
    expect(i1.failures[0]!.explanation).toMatch(/caused 2 jobs \(job_a, job_b\)/);
  });
});
