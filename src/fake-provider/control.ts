import { z } from 'zod';
import { parseBehaviorConfig, type BehaviorConfig, type BehaviorConfigInput } from '../contract/behavior.js';
import { FaultPlanSchema, type FaultPlanInput } from '../contract/faults.js';
import type { Principal } from '../contract/principals.js';
import type { ProviderCore } from './core.js';
import type { FaultEngine } from './faults/fault-engine.js';

/** A catalog scenario's provider side, by name (`serve` passes the catalog's). */
export type ScenarioLookup = (name: string) => { behavior: BehaviorConfigInput; faults: FaultPlanInput } | undefined;
/** A change that validates its input: the new value, or why the input was refused. */
export type Checked<T> = { ok: true; value: T } | { ok: false; error: z.ZodError };
export type FaultPlanView = ReturnType<FaultEngine['describe']>;

export interface ControlDeps {
  core: ProviderCore;
  /** Each module's part of a reset (its repos' tables), inside the provider's reset transaction. */
  resets: Array<() => void>;
  /** The token table as configured at start: a reset forgets principals changed at run time. */
  configuredTokens: Record<string, Principal>;
  lookup?: ScenarioLookup;
}

/**
 * The provider-wide changes an operator makes — fault plan, behaviour, scenario, reset — in one place: the control
 * API (`/_control`, http/routes/control-routes.ts and the modules' additions), the dashboard's forms and
 * `Provider.control` all call these, so they validate and act alike.
 */
export class ProviderControl {
  constructor(private readonly d: ControlDeps) {}

  /** Whether named scenarios can be switched to (`PUT /_control/scenario` exists only then). */
  get hasScenarios(): boolean {
    return this.d.lookup !== undefined;
  }

  faults(): FaultPlanView {
    return this.d.core.faults.describe();
  }

  installFaults(input: unknown): Checked<FaultPlanView> {
    const plan = FaultPlanSchema.safeParse(input);
    if (!plan.success) return { ok: false, error: plan.error };
    this.d.core.faults.install(plan.data);
    return { ok: true, value: this.faults() };
  }

  clearFaults(): FaultPlanView {
    this.d.core.faults.clear();
    return this.faults();
  }

  behavior(): BehaviorConfig {
    return this.d.core.behaviors.get();
  }

  /** How new jobs behave from now on. */
  setBehavior(input: unknown): Checked<BehaviorConfig> {
    try {
      this.d.core.behaviors.set(parseBehaviorConfig(input as BehaviorConfigInput));
    } catch (err) {
      if (err instanceof z.ZodError) return { ok: false, error: err };
      throw err;
    }
    return { ok: true, value: this.behavior() };
  }

  /** Behaviour and fault plan of the named scenario; undefined when there is none of that name. */
  switchScenario(name: string): { behavior: BehaviorConfig; faults: FaultPlanView } | undefined {
    const s = this.d.lookup?.(name);
    if (!s) return undefined;
    this.d.core.behaviors.set(parseBehaviorConfig(s.behavior));
    this.d.core.faults.install(s.faults);
    return { behavior: this.behavior(), faults: this.faults() };
  }

  /** Forget everything: journal, keys, each module's state (one transaction), the fault plan, run-time principals. */
  reset(): void {
    const { core } = this.d;
    core.db.transaction(() => {
      core.journal.reset();
      core.idempotency.reset();
      for (const r of this.d.resets) r();
    })();
    core.faults.clear();
    core.tokens.tokens = { ...this.d.configuredTokens };
  }
}
