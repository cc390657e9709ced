import type { Db } from './database.js';

/** Small JSON settings that must survive a restart: behaviour config, fault plan and its counters. */
export class SettingsRepo {
  private readonly getStmt;
  private readonly putStmt;
  private readonly delStmt;

  constructor(db: Db) {
    this.getStmt = db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE name = ?');
    this.putStmt = db.prepare('INSERT INTO settings(name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value');
    this.delStmt = db.prepare('DELETE FROM settings WHERE name = ?');
  }

  get<T>(name: string): T | undefined {
    const row = this.getStmt.get(name);
    return row ? (JSON.parse(row.value) as T) : undefined;
  }

  put(name: string, value: unknown): void {
    this.putStmt.run(name, JSON.stringify(value));
  }

  delete(name: string): void {
    this.delStmt.run(name);
  }
}
