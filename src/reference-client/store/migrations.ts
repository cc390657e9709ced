/**
 * One migrations concept for every store and both databases: an ordered list of numbered steps, each applied once
 * in its own transaction together with the new version number. SQLite keeps the number in `PRAGMA user_version`,
 * PostgreSQL in a `schema_version` row of the store's schema. A store written by a newer release is refused (it may
 * hold meanings this code would misread); an older one is brought forward step by step.
 */
export interface Migration {
  /** 1, 2, 3…: contiguous, never renumbered, never edited once released. */
  version: number;
  name: string;
  sql: string;
}

export class SchemaTooNewError extends Error {
  constructor(
    readonly store: string,
    readonly found: number,
    readonly known: number,
  ) {
    super(
      `${store} has schema version ${found}, but this jobproof release knows versions up to ${known}: ` +
        'it was written by a newer release. Upgrade jobproof (or use another JOBPROOF_STATE); the store was not touched.',
    );
    this.name = 'SchemaTooNewError';
  }
}

/** The steps to apply to a store at `current`; throws when the store is newer than the code. Pure. */
export function pendingMigrations(store: string, current: number, list: readonly Migration[]): Migration[] {
  list.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`${store}: migration ${m.name} is numbered ${m.version}, expected ${i + 1}`);
  });
  const latest = list.length;
  if (current > latest) throw new SchemaTooNewError(store, current, latest);
  return list.slice(current);
}
