import type { Http } from './http.js';

export type CheckStatus = 'passed' | 'failed' | 'not_run';

export interface CheckResult {
  name: string;
  status: CheckStatus;
  /** What was sent and seen, short lines a person can follow. */
  evidence: string[];
  explanation: string;
  duration_ms?: number;
}

export interface VerifyOptions {
  url: string;
  token: string;
  token2?: string;
  otherTenantToken?: string;
  reviewerToken?: string;
  controlToken?: string;
  /** Per-request time limit (default 10 s). */
  requestTimeoutMs?: number;
  /** How long to wait for a job or task to get somewhere (default 20 s). */
  waitMs?: number;
  /** Only these checks (by name); default all. */
  only?: string[];
}

/** What a check may use: HTTP as the tokens, the control API when present, and shared facts learnt once. */
export interface CheckContext {
  opts: VerifyOptions;
  http: Http;
  /** Unique per run; every key and object ref a check makes starts with it. */
  runId: string;
  control: boolean;
  /** Why the control API is not used, when it is not. */
  controlWhy: string;
  /** Kinds the runner set up through the control API (quick and slow jobs); default kind otherwise. */
  kinds: { fast: string; slow: string; configured: boolean };
  key(label: string): string;
  /** The tenant of --token, when it could be learnt (control API principals or jobs). */
  tenant(): Promise<string | null>;
}

export class NotRun extends Error {}
export class Failed extends Error {}

/** A named check: throws NotRun or Failed (or any error → failed) to say so; returns the explanation on success. */
export interface Check {
  name: string;
  description: string;
  run(ctx: CheckContext, evidence: string[]): Promise<string>;
}
