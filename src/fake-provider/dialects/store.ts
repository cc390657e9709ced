import { statementCache, type Db } from '../store/database.js';

/** One input line of a batch, in either dialect: its `custom_id` and what was asked (OpenAI `body`, Anthropic `params`). */
export interface BatchRequest {
  custom_id: string;
  /** OpenAI: `method` and `url` of the line. */
  method?: string;
  url?: string;
  body: Record<string, unknown>;
}

export interface BatchRow {
  seq: number;
  batch_id: string;
  dialect: 'openai' | 'anthropic';
  tenant: string;
  endpoint: string | null;
  input_file_id: string | null;
  completion_window: string | null;
  metadata: Record<string, string> | null;
  /** How many requests the batch has (its requests are read only to render results: see `requests()`). */
  request_count: number;
  /** 1-based positions of requests that error when they run whatever the behaviour (Anthropic: params it refuses). */
  invalid_lines: number[];
  output_file_id: string | null;
  error_file_id: string | null;
  /** OpenAI: what validation found wrong with the input file (the batch then fails, as the real one does). */
  errors: BatchLineError[] | null;
  deleted_at: number | null;
}

export interface BatchLineError {
  code: string;
  message: string;
  line: number | null;
  param: string | null;
}

export interface FileRow {
  seq: number;
  file_id: string;
  tenant: string;
  purpose: string;
  filename: string;
  bytes: number;
  created_at: number;
  /** The uploaded bytes; null for a batch's output and error files, which are rendered from the batch. */
  content: string | null;
  batch_id: string | null;
  role: 'input' | 'output' | 'error';
  /** Seconds after `created_at` when the file expires (OpenAI `expires_after`); null: never. */
  expires_after: number | null;
  /** Times its content was handed out (a one-shot output file is gone after the first). */
  fetched: number;
  deleted_at: number | null;
}

type RawBatch = Omit<BatchRow, 'metadata' | 'errors' | 'invalid_lines'> & {
  metadata: string | null;
  errors: string | null;
  invalid_lines: string | null;
};

function fromRaw(r: RawBatch): BatchRow {
  return {
    ...r,
    metadata: r.metadata ? JSON.parse(r.metadata) : null,
    errors: r.errors ? JSON.parse(r.errors) : null,
    invalid_lines: r.invalid_lines ? JSON.parse(r.invalid_lines) : [],
  };
}

/** Every column but `requests`: a poll must not parse a 50,000-request batch (it did: 234 ms a read). */
const COLUMNS =
  'seq, batch_id, dialect, tenant, endpoint, input_file_id, completion_window, metadata, request_count, invalid_lines, output_file_id, error_file_id, errors, deleted_at';

export type NewBatch = Omit<BatchRow, 'seq' | 'deleted_at' | 'request_count'> & { requests: BatchRequest[] };

export interface ListQuery {
  tenant: string;
  dialect: BatchRow['dialect'];
  /** Older than this batch (seq below). */
  beforeSeq?: number;
  /** Newer than this batch (seq above). */
  afterSeq?: number;
  limit: number;
}

/** The dialects' own data next to the engine's jobs: uploaded files and each batch's dialect-side fields. */
export class DialectRepo {
  private readonly stmts;
  private readonly stmt;

  constructor(private readonly db: Db) {
    this.stmt = statementCache(db);
    this.stmts = {
      insertFile: db.prepare(`INSERT INTO dialect_files (file_id, tenant, purpose, filename, bytes, created_at, content, batch_id, role,
        expires_after) VALUES (@file_id, @tenant, @purpose, @filename, @bytes, @created_at, @content, @batch_id, @role, @expires_after)`),
      file: db.prepare<[string, string], FileRow>('SELECT * FROM dialect_files WHERE file_id = ? AND tenant = ? AND deleted_at IS NULL'),
      fileFetched: db.prepare<[string]>('UPDATE dialect_files SET fetched = fetched + 1 WHERE file_id = ?'),
      deleteFile: db.prepare<[number, string]>('UPDATE dialect_files SET deleted_at = ? WHERE file_id = ?'),
      insertBatch:
        db.prepare(`INSERT INTO dialect_batches (batch_id, dialect, tenant, endpoint, input_file_id, completion_window, metadata, requests,
        request_count, invalid_lines, output_file_id, error_file_id, errors) VALUES (@batch_id, @dialect, @tenant, @endpoint, @input_file_id,
        @completion_window, @metadata, @requests, @request_count, @invalid_lines, @output_file_id, @error_file_id, @errors)`),
      batch: db.prepare<[string, string, string], RawBatch>(
        `SELECT ${COLUMNS} FROM dialect_batches WHERE batch_id = ? AND tenant = ? AND dialect = ? AND deleted_at IS NULL`,
      ),
      anyBatch: db.prepare<[string], RawBatch>(`SELECT ${COLUMNS} FROM dialect_batches WHERE batch_id = ?`),
      requests: db.prepare<[string], { requests: string }>('SELECT requests FROM dialect_batches WHERE batch_id = ?'),
      markDeleted: db.prepare<[number, string]>('UPDATE dialect_batches SET deleted_at = ? WHERE batch_id = ?'),
    };
  }

  insertFile(f: Omit<FileRow, 'seq' | 'fetched' | 'deleted_at'>): void {
    this.stmts.insertFile.run(f);
  }

  /** A file as its tenant sees it: another tenant's file does not exist. */
  file(fileId: string, tenant: string): FileRow | undefined {
    return this.stmts.file.get(fileId, tenant);
  }

  /** A tenant's files past a cursor, in `order` of creation, without their content (`limit` rows at most). */
  files(tenant: string, order: 'asc' | 'desc', afterSeq: number | undefined, limit: number): Array<Omit<FileRow, 'content'>> {
    const cursor = afterSeq === undefined ? '' : order === 'desc' ? 'AND seq < ?' : 'AND seq > ?';
    const sql = `SELECT seq, file_id, tenant, purpose, filename, bytes, created_at, NULL AS content, batch_id, role, fetched, deleted_at,
      expires_after
      FROM dialect_files WHERE tenant = ? AND deleted_at IS NULL ${cursor} ORDER BY seq ${order === 'desc' ? 'DESC' : 'ASC'} LIMIT ?`;
    return this.stmt(sql).all(...(afterSeq === undefined ? [tenant, limit] : [tenant, afterSeq, limit])) as Array<Omit<FileRow, 'content'>>;
  }

  fileFetched(fileId: string): void {
    this.stmts.fileFetched.run(fileId);
  }

  deleteFile(fileId: string, at: number): void {
    this.stmts.deleteFile.run(at, fileId);
  }

  insertBatch(b: NewBatch): void {
    this.stmts.insertBatch.run({
      ...b,
      metadata: b.metadata ? JSON.stringify(b.metadata) : null,
      requests: JSON.stringify(b.requests),
      request_count: b.requests.length,
      invalid_lines: b.invalid_lines.length ? JSON.stringify(b.invalid_lines) : null,
      errors: b.errors ? JSON.stringify(b.errors) : null,
    });
  }

  /** A batch's requests, in input order (to render its results). */
  requests(batchId: string): BatchRequest[] {
    const r = this.stmts.requests.get(batchId);
    return r ? JSON.parse(r.requests) : [];
  }

  /** A batch of this dialect as its tenant sees it (deleted ones are gone). */
  batch(batchId: string, tenant: string, dialect: BatchRow['dialect']): BatchRow | undefined {
    const r = this.stmts.batch.get(batchId, tenant, dialect);
    return r ? fromRaw(r) : undefined;
  }

  /** Whatever batch a job is, for the webhook shaper (no tenant filter: the engine's own lookup). */
  anyBatch(batchId: string): BatchRow | undefined {
    const r = this.stmts.anyBatch.get(batchId);
    return r ? fromRaw(r) : undefined;
  }

  markDeleted(batchId: string, at: number): void {
    this.stmts.markDeleted.run(at, batchId);
  }

  /** Newest first, one dialect and tenant; `afterSeq` pages towards newer batches (still returned newest first). */
  list(q: ListQuery): BatchRow[] {
    const where = ['tenant = ?', 'dialect = ?', 'deleted_at IS NULL'];
    const args: (string | number)[] = [q.tenant, q.dialect];
    if (q.beforeSeq !== undefined) {
      where.push('seq < ?');
      args.push(q.beforeSeq);
    }
    if (q.afterSeq !== undefined) {
      where.push('seq > ?');
      args.push(q.afterSeq);
    }
    // Paging towards newer batches takes the oldest `limit` of them, then shows them newest first like every page.
    const order = q.afterSeq !== undefined ? 'ASC' : 'DESC';
    const rows = (
      this.stmt(`SELECT ${COLUMNS} FROM dialect_batches WHERE ${where.join(' AND ')} ORDER BY seq ${order} LIMIT ?`).all(
        ...args,
        q.limit,
      ) as RawBatch[]
    ).map(fromRaw);
    return order === 'ASC' ? rows.reverse() : rows;
  }

  seqOf(batchId: string, tenant: string, dialect: BatchRow['dialect']): number | undefined {
    return this.batch(batchId, tenant, dialect)?.seq;
  }

  /** Every batch of every tenant and dialect, deleted ones included, oldest first (the control API's ground truth). */
  allBatches(): BatchRow[] {
    return (this.stmt(`SELECT ${COLUMNS} FROM dialect_batches ORDER BY seq`).all() as RawBatch[]).map(fromRaw);
  }

  reset(): void {
    this.db.prepare('DELETE FROM dialect_files').run();
    this.db.prepare('DELETE FROM dialect_batches').run();
  }
}
