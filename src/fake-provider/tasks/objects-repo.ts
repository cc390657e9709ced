import type { Db } from '../store/database.js';
import type { ObjectRow } from './model.js';

interface Raw {
  tenant: string;
  object_ref: string;
  version: number;
  data: string;
  updated_at: number;
}

/** The records tasks work on, per tenant. Every write raises the version by one. */
export class ObjectsRepo {
  private readonly getStmt;
  private readonly upsertStmt;

  private readonly resetStmt;

  constructor(db: Db) {
    this.resetStmt = db.prepare('DELETE FROM task_objects');
    this.getStmt = db.prepare<[string, string], Raw>('SELECT * FROM task_objects WHERE tenant = ? AND object_ref = ?');
    this.upsertStmt = db.prepare(
      `INSERT INTO task_objects (tenant, object_ref, version, data, updated_at) VALUES (?, ?, 1, ?, ?)
       ON CONFLICT(tenant, object_ref) DO UPDATE SET version = version + 1, data = excluded.data, updated_at = excluded.updated_at`,
    );
  }

  get(tenant: string, ref: string): ObjectRow | undefined {
    const r = this.getStmt.get(tenant, ref);
    return r ? { ...r, data: JSON.parse(r.data) } : undefined;
  }

  /** Create (version 1) or change (version + 1) an object; returns it as stored. */
  write(tenant: string, ref: string, data: Record<string, unknown>, now: number): ObjectRow {
    this.upsertStmt.run(tenant, ref, JSON.stringify(data), now);
    return this.get(tenant, ref)!;
  }

  /** Forget every row (the provider's reset). */
  reset(): void {
    this.resetStmt.run();
  }
}
