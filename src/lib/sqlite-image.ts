import Database from 'better-sqlite3';

/**
 * An empty SQLite database at the latest schema, built by `migrate` once per thread and serialized: stores opened
 * by the thousand (a provider or a client store per in-process run) start from a copy instead of migrating anew.
 */
export function migratedImage(migrate: (db: Database.Database) => void): () => Buffer {
  let image: Buffer | undefined;
  return () => {
    if (!image) {
      const db = new Database(':memory:');
      migrate(db);
      image = db.serialize();
      db.close();
    }
    return image;
  };
}
