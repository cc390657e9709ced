// A mutant a worker thread can load by module name (property lanes cannot take a function across threads): the
// reference client built by `npm run build`, sending a fresh Idempotency-Key when it retries a create (mutants.ts
// new-key-on-retry, but only on a retry). Only schedules whose faults make the client retry a create catch it (I2),
// so the first failure lies somewhere inside the seeded sequence, not at its start.
import { randomBytes } from 'node:crypto';
import { ReferenceClient } from '../../../dist/reference-client/index.js';

export const newKeyOnRetry = (opts) => {
  const sent = new Set();
  const fetch = (input, init) => {
    const req = new Request(input, init);
    const key = req.headers.get('idempotency-key');
    if (req.method !== 'POST' || new URL(req.url).pathname !== '/v1/jobs' || !key) return opts.fetch(req);
    if (!sent.has(key)) {
      sent.add(key);
      return opts.fetch(req);
    }
    const headers = new Headers(req.headers);
    headers.set('idempotency-key', `idem_${randomBytes(8).toString('hex')}`);
    return opts.fetch(new Request(req, { headers }));
  };
  return new ReferenceClient({ ...opts, fetch });
};
