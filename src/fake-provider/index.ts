export { createProvider, type Provider, type ProviderOptions } from './provider.js';
export type { StoreImage } from './store/store-image.js';
export { serve, type RunningServer, type ServeOptions } from './transports/node-server.js';
export { inProcessFetch, IN_PROCESS_BASE, connectionReset } from './transports/in-process-fetch.js';
export { inProcessRequest } from './transports/in-process-request.js';
export { signDelivery } from './webhooks/signing.js';
export { ProfileConflictError } from './profiles/index.js';
