import type { JournalEntry, RequestEntry, TransitionEntry, WebhookEntry } from '../../contract/journal.js';
import { TERMINAL_JOB_STATES, type JobState } from '../../contract/jobs.js';
import type { RunEvidence } from './evidence.js';
import { ms } from './helpers.js';

export interface JobFacts {
  job_id: string;
  transitions: TransitionEntry[];
  /** The provider's own webhook deliveries about the job: what it told the client that way. */
  webhooks: WebhookEntry[];
  /** Forged deliveries (a `forge` fault): never the provider's word; I13 judges a client that acts on one. */
  forged: WebhookEntry[];
  /** The first terminal transition: a terminal state never changes again. */
  final?: { state: JobState; at: number; seq: number };
  /** When the job came to be (its first transition), if the journal says. */
  createdAt?: number;
}

/** The journal cut to the client's own requests, and per-job facts, for quick lookups by the invariants. */
export interface JournalIndex {
  requests: RequestEntry[];
  jobs: Map<string, JobFacts>;
  /** Time of the last journal entry: how long the run was watched. */
  endAt: number;
}

export function indexJournal(evidence: RunEvidence): JournalIndex {
  const { tenant, subject } = evidence.principal;
  const bySeq = [...evidence.journal].sort((a, b) => a.seq - b.seq);
  const requests = bySeq.filter((e): e is RequestEntry => e.type === 'request' && e.tenant === tenant && e.subject === subject);
  const jobs = new Map<string, JobFacts>();
  const facts = (job_id: string) => {
    let f = jobs.get(job_id);
    if (!f) {
      f = { job_id, transitions: [], webhooks: [], forged: [] };
      jobs.set(job_id, f);
    }
    return f;
  };
  for (const e of bySeq) {
    if (e.type === 'transition' && e.tenant === tenant) {
      const f = facts(e.job_id);
      f.transitions.push(e);
      f.createdAt ??= ms(e.at);
      if (!f.final && (TERMINAL_JOB_STATES as readonly string[]).includes(e.to)) f.final = { state: e.to, at: ms(e.at), seq: e.seq };
    } else if (e.type === 'webhook' && jobs.has(e.job_id)) {
      // Webhooks follow the job's first transition, so a job of another tenant is never in the map here.
      if (e.forged) facts(e.job_id).forged.push(e);
      else facts(e.job_id).webhooks.push(e);
    }
  }
  return { requests, jobs, endAt: bySeq.reduce((m, e) => Math.max(m, ms(e.at)), 0) };
}

export function entrySeqs(entries: readonly JournalEntry[]): number[] {
  return entries.map((e) => e.seq);
}
