/**
 * The contract every part of jobproof shares — docs/spec/ as zod schemas and the types derived from them: the jobs
 * API, the tasks API, problems and webhook events on the wire, the control API's behaviour, fault and principal
 * shapes, the provider's journal, the client protocol and the invariant ids. It depends on zod alone.
 */
export * from './behavior.js';
export * from './client-protocol.js';
export * from './faults.js';
export * from './invariants.js';
export * from './jobs.js';
export * from './journal.js';
export * from './principals.js';
export * from './tasks.js';
export * from './task-client-protocol.js';
export * from './problems.js';
export * from './webhooks.js';
export * from './control.js';
export { openApiDocument } from './openapi/document.js';
