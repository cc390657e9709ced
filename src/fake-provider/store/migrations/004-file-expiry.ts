import type BetterSqlite3 from 'better-sqlite3';

type Db = BetterSqlite3.Database;

/**
 * An OpenAI file's expiry policy in seconds after its creation (`expires_after` on upload, a batch's
 * `output_expires_after` for its output and error files); null: it never expires. Rows written before this step get
 * none, so an old store keeps serving its files.
 */
export function up(db: Db): void {
  db.exec('ALTER TABLE dialect_files ADD COLUMN expires_after INTEGER');
}
