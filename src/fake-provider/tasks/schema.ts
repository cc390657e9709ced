/** The tasks API's tables as of release 0.1.0; created by the provider store's migration 1 (store/migrations.ts). */
export const TASKS_SCHEMA = `
CREATE TABLE IF NOT EXISTS task_objects (
  tenant TEXT NOT NULL,
  object_ref TEXT NOT NULL,
  version INTEGER NOT NULL,
  data TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (tenant, object_ref)
);
CREATE TABLE IF NOT EXISTS tasks (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  task_id TEXT NOT NULL UNIQUE,
  tenant TEXT NOT NULL,
  object_ref TEXT NOT NULL,
  state TEXT NOT NULL,
  next_step_at INTEGER,
  doc TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS tasks_due ON tasks(next_step_at) WHERE next_step_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS tasks_object ON tasks(tenant, object_ref, state);
CREATE TABLE IF NOT EXISTS task_audit (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  task_id TEXT NOT NULL,
  event TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS task_audit_task ON task_audit(task_id, seq);
`;
