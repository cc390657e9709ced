import type { Profile } from '../../contract/profiles.js';
import type { Scenario } from '../../scenarios/index.js';
import type { ClientDialect } from './batch-input.js';
import { apiLacks, type Capability, type Lacks } from './capabilities.js';

/**
 * Catalog scenarios whose fault a wire API cannot express (docs/dialects.md, "What maps to what"; profiles.md): they
 * are `not_applicable` there, with the reason, never run and silently passed. Everything else runs as it is, on the
 * same fault rules (route names are shared by every API). One rule for dialects and profiles alike: a scenario needs
 * some capabilities of the API (below), the API lacks some (capabilities.ts: fixed for a dialect, read from a
 * profile's declarations), and the reason names both.
 */
interface Need {
  /** Any one of these lets the scenario mean something. */
  anyOf: Capability[];
  /** What the scenario judges that the missing capability takes away. */
  why: string;
}

const NAMED: Record<string, Need> = {
  'corrupt-result': { anyOf: ['digest'], why: 'a digest mismatch cannot be expressed' },
  'error-row': {
    anyOf: ['error_row'],
    why: 'a results row that is no item of the job cannot be told from a good one, so the scenario has nothing to judge',
  },
  'foreign-job-id': { anyOf: ['idempotency_key'], why: 'there is no replayed create to answer with a foreign job id' },
  'cancel-while-create-held': {
    anyOf: ['idempotency_key'],
    why: 'a create held past the client giving up cannot be told from no create, so a client either creates again or waits without end; the scenario judges what a key lets a client know',
  },
  'create-in-flight': {
    anyOf: ['idempotency_key'],
    why: 'no second create can meet the first still in flight under the same key (no 409 idempotency_request_in_progress)',
  },
};

/** What a scenario needs of the API: its named needs, and those its faults and actions imply. */
export function needsOf(s: Pick<Scenario, 'name' | 'faults' | 'actions'>): Need[] {
  const needs: Need[] = NAMED[s.name] ? [NAMED[s.name]!] : [];
  const rules = s.faults.rules;
  if (rules.some((r) => r.on === 'webhook')) needs.push({ anyOf: ['webhooks'], why: "the scenario's faults are on webhook deliveries" });
  if (s.actions.some((a) => a.type === 'cancel')) needs.push({ anyOf: ['cancel'], why: 'the scenario judges how a cancel is carried out' });
  const lostCreate = rules.some((r) => r.on === 'create' && (r.fault.type === 'lose_response' || r.fault.type === 'error_after_commit'));
  if (lostCreate || s.actions.some((a) => a.type === 'kill_worker'))
    needs.push({
      anyOf: ['idempotency_key', 'lookup'],
      why: 'after a lost create answer (or a worker killed mid-create) no client can find its job or create again safely, so the scenario would judge the API, not the client',
    });
  return needs;
}

/** Why the scenario means nothing in the API (a dialect, or a profile), or null when it runs there. */
export function notApplicableIn(api: ClientDialect | Profile, s: Pick<Scenario, 'name' | 'faults' | 'actions'>): string | null {
  return notApplicableWith(apiLacks(api), s);
}

/** The same, from what an API lacks. */
export function notApplicableWith(lacks: Lacks, s: Pick<Scenario, 'name' | 'faults' | 'actions'>): string | null {
  for (const n of needsOf(s)) {
    const missing = n.anyOf.map((c) => lacks[c]);
    if (missing.every((m) => m !== undefined)) return `${missing.join(' and ')}: ${n.why}`;
  }
  return null;
}
