export { described, seam, unexecuted, type SeamOptions } from './seam.js';
export { ProviderClosedError } from './enact.js';
export { inProgress, reserveThenHold, storedResponse } from './idempotent.js';
