/** msw 2 handlers for the fake provider: a separate entry point, so that only code that uses msw loads it. */
export { jobproofHandlers, type MswOptions } from './transports/msw-handlers.js';
