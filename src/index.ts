/**
 * jobproof's root export: the handful of names most users need. Everything else is under a subpath —
 * `jobproof/provider`, `jobproof/client`, `jobproof/conformance`, `jobproof/scenarios`, `jobproof/verify-provider`,
 * `jobproof/msw`, `jobproof/contract` (docs/decisions/009-contract-module.md).
 */
export {
  createProvider,
  serve,
  type Provider,
  type ProviderOptions,
  type RunningServer,
  type ServeOptions,
} from './fake-provider/index.js';
export { createReferenceClient } from './reference-client/index.js';
export {
  certifyInProcess,
  expectCertified,
  propertyRun,
  type CertifyInProcessOptions,
  type ClientUnderTest,
  type InProcessCertification,
  type PropertyRunOptions,
  type PropertyRunResult,
} from './conformance/index.js';
export { verifyProvider, type VerifyReport } from './verify-provider/index.js';
export { RealClock, VirtualClock, realClock, type Clock } from './lib/clock.js';
export type { InProcessClient, InProcessClientFactory, InProcessClientOptions } from './contract/client-protocol.js';
