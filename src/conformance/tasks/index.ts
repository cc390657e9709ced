export {
  checkTasks,
  TASK_INVARIANTS,
  TASK_INVARIANT_IDS,
  type TaskInvariantId,
  type TaskInvariantResult,
  type TaskVerdict,
} from './check.js';
export type { HarnessEvent, ProviderTask, TaskEvidence } from './evidence.js';
export {
  TASK_SCENARIOS,
  TASK_SCENARIO_INPUTS,
  TaskScenarioSchema,
  TaskStepActionSchema,
  taskScenario,
  type TaskScenario,
  type TaskScenarioInput,
  type TaskStepAction,
} from '../../scenarios/index.js';
export { runTaskScenario, type TaskClientEnv, type TaskClientFactory, type TaskScenarioRun } from './runner.js';
export { runTaskScenarioProcess, scaleTaskScenario, type TaskProcessOptions } from './process-runner.js';
