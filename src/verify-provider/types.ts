import type { Http } from './http.js';
import type { PilotPlan } from './plan.js';

export type CheckStatus = 'passed' | 'failed' | 'not_run';

export interface CheckResult {
  name: string;
  status: CheckStatus;
  /** What was sent and seen, short lines a person can follow. */
  evidence: string[];
  explanation: string;
  duration_ms?: number;
  /** The answer(s) the check's main step expected, and the one it got (e.g. `409 stale_object_version`). */
  expected?: string;
  got?: string;
  /** The audit record of the check's task as `GET /v1/tasks/{id}/audit` showed it afterwards, one line per event. */
  audit?: string[];
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
  /** A subject of the first tenant holding both roles (self_review_forbidden without a control API). */
  bothRolesToken?: string;
  /** Tenant per token, when known without a control API (from the pilot plan). */
  tenants?: Record<string, string>;
  /** The pilot plan, when the run is driven by one (`--plan`). */
  plan?: PilotPlan;
}

/** What the running check found out, for its report row (expected/got, the tasks whose audit to show). */
export interface CheckFacts {
  name: string;
  expected?: string;
  got?: string;
  tasks: string[];
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
  /** The tenant of --token, when it could be learnt (the plan, or control API principals or jobs). */
  tenant(): Promise<string | null>;
  /** The facts of the check now running (checks run one at a time). */
  facts: CheckFacts;
}

export class NotRun extends Error {}
export class Failed extends Error {}

/** A named check: throws NotRun or Failed (or any error → failed) to say so; returns the explanation on success. */
export interface Check {
  name: string;
  description: string;
  /** The contract it checks; a plan that leaves that API out has it not run. Default: jobs. */
  api?: 'jobs' | 'tasks';
  /** The answers tasks-api.md allows for the check's main step (a plan may narrow them, never widen). */
  expects?: readonly string[];
  run(ctx: CheckContext, evidence: string[]): Promise<string>;
}
