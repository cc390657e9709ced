import { FaultPlanSchema, type FaultPlan, type FaultPlanInput, type FaultRoute } from '../../contract/faults.js';
import type { SettingsRepo } from '../store/settings-repo.js';
import { decide, emptyFaultState, ruleId, type FaultState, type FiredRule } from './decide.js';

const PLAN = 'fault_plan';
const STATE = 'fault_state';

/** The installed plan and its counters, kept in SQLite so a restarted provider carries on the same schedule. */
export class FaultEngine {
  private plan: FaultPlan;
  private state: FaultState;

  constructor(private readonly settings: SettingsRepo) {
    this.plan = settings.get<FaultPlan>(PLAN) ?? { seed: 0, rules: [] };
    this.state = settings.get<FaultState>(STATE) ?? emptyFaultState(this.plan);
  }

  install(input: FaultPlanInput | FaultPlan): FaultPlan {
    this.plan = FaultPlanSchema.parse(input);
    this.state = emptyFaultState(this.plan);
    this.settings.put(PLAN, this.plan);
    this.settings.put(STATE, this.state);
    return this.plan;
  }

  clear(): void {
    this.install({ seed: 0, rules: [] });
  }

  decide(route: FaultRoute): FiredRule | null {
    if (this.plan.rules.length === 0) return null;
    const fired = decide(this.plan, this.state, route);
    this.settings.put(STATE, this.state);
    return fired;
  }

  /** The plan as `GET /_control/faults` shows it: each rule with its hit count. */
  describe(): { seed: number; rules: Array<Record<string, unknown>>; counts: FaultState['counts'] } {
    return {
      seed: this.plan.seed,
      rules: this.plan.rules.map((r, i) => ({ ...r, id: ruleId(r, i), hits: this.state.hits[i] ?? 0 })),
      counts: this.state.counts,
    };
  }

  current(): FaultPlan {
    return this.plan;
  }
}
