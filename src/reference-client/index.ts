import type { InProcessClientFactory, InProcessClientOptions } from '../contract/client-protocol.js';
import { verifyChain, type AuditVerdict } from './audit.js';
import { ReferenceClient } from './client.js';
import { openOperationStore } from './store/open-store.js';
import { openRunMemoryStore } from './store/run-memory.js';
import type { WireChoice } from './wire/index.js';

export { ReferenceClient } from './client.js';
export { toRecord } from './show.js';
export { SqliteOperationStore } from './store/sqlite-store.js';
export type { OperationStore, Lease } from './store/operation-store.js';
export { PgOperationStore } from './store/pg-store.js';
export { openOperationStore } from './store/open-store.js';
export { SchemaTooNewError } from './store/migrations.js';
export { createTaskClient, type TaskClient, type TaskClientOptions } from './tasks/index.js';
export type { WireChoice } from './wire/index.js';
export { TRANSITIONS, EVIDENCE_CLASS, EVIDENCE_KINDS, canTransition, transition } from './state-machine.js';

/** The in-process factory of client-protocol.md. */
export const createReferenceClient: InProcessClientFactory = (opts: InProcessClientOptions) => new ReferenceClient(opts);

/**
 * The same client with its store in memory, shared by every client of one `state` until the last closes
 * (store/run-memory.ts): for in-process runs, whose harness never ends the process, so no crash can lose it.
 */
export const createInMemoryReferenceClient: InProcessClientFactory = (opts: InProcessClientOptions) =>
  new ReferenceClient(opts, openRunMemoryStore(opts.state));

/** The in-memory client speaking another API: a dialect, or a profile (certify --profile runs it in-process). */
export function inMemoryReferenceClientFor(api: WireChoice): InProcessClientFactory {
  return (opts: InProcessClientOptions) => new ReferenceClient({ ...opts, api }, openRunMemoryStore(opts.state));
}

/** Check the audit chain of a client state directory: any edit, insertion or deletion is reported. */
export async function verifyAudit(stateDir: string, db?: string): Promise<AuditVerdict> {
  const store = openOperationStore(stateDir, db);
  try {
    return verifyChain(await store.auditRows(), await store.auditHead());
  } finally {
    await store.close();
  }
}
