import type { Db } from '../store/database.js';
import type { AuditEvent } from '../../contract/tasks.js';

export type NewAuditEvent = Omit<AuditEvent, 'seq'>;

/** Per-task audit trail, append-only, in order. Callers never put tokens here: actors are subjects. */
export class AuditRepo {
  private readonly insertStmt;
  private readonly listStmt;

  private readonly resetStmt;

  constructor(db: Db) {
    this.resetStmt = db.prepare('DELETE FROM task_audit');
    this.insertStmt = db.prepare('INSERT INTO task_audit (task_id, event) VALUES (?, ?)');
    this.listStmt = db.prepare<[string], { seq: number; event: string }>(
      'SELECT seq, event FROM task_audit WHERE task_id = ? ORDER BY seq',
    );
  }

  append(taskId: string, event: NewAuditEvent): void {
    this.insertStmt.run(taskId, JSON.stringify(event));
  }

  list(taskId: string): AuditEvent[] {
    return this.listStmt.all(taskId).map((r, i) => ({ seq: i + 1, ...(JSON.parse(r.event) as NewAuditEvent) }) as AuditEvent);
  }

  /** Forget every row (the provider's reset). */
  reset(): void {
    this.resetStmt.run();
  }
}
