import { migratedImage } from '../../lib/sqlite-image.js';
import { migrateSqlite } from '../../lib/sqlite-migrations.js';
import { SQLITE_OPERATION_MIGRATIONS } from './sqlite-schema.js';

/** An empty operation store at the latest schema, serialized once per thread: in-memory stores are opened per run. */
export const migratedSqliteImage = migratedImage((db) => migrateSqlite(db, ':memory:', SQLITE_OPERATION_MIGRATIONS));
