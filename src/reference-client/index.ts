import type { InProcessClientFactory, InProcessClientOptions } from '../contract/client-protocol.js';
import { verifyChain, type AuditVerdict } from './audit.js';
import { ReferenceClient } from './client.js';
import { SqliteOperationStore } from './store/sqlite-store.js';

export { ReferenceClient, toRecord } from './client.js';
export { SqliteOperationStore } from './store/sqlite-store.js';
export type { OperationStore, Lease } from './store/operation-store.js';
export { createTaskClient, type TaskClient, type TaskClientOptions } from './tasks/index.js';
export { TRANSITIONS, EVIDENCE_CLASS, EVIDENCE_KINDS, canTransition, transition } from './state-machine.js';

/** The in-process factory of client-protocol.md. */
export const createReferenceClient: InProcessClientFactory = (opts: InProcessClientOptions) => new ReferenceClient(opts);

/** Check the audit chain of a client state directory: any edit, insertion or deletion is reported. */
export function verifyAudit(stateDir: string): AuditVerdict {
  const store = SqliteOperationStore.open(stateDir);
  try {
    return verifyChain(store.auditRows(), store.auditHead());
  } finally {
    store.close();
  }
}
