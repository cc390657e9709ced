// The README's "Programmatic use" example, run as is by test/package/pack.test.ts against the packed tarball.
import { createProvider, serve, VirtualClock } from 'jobproof';

const clock = new VirtualClock();
const provider = createProvider({ db: ':memory:', clock, behavior: { default: { duration_ms: 5000 } } });
const headers = { authorization: 'Bearer dev-token', 'idempotency-key': 'example-1', 'content-type': 'application/json' };
const res = await provider.fetch('/v1/jobs', {
  method: 'POST',
  headers,
  body: JSON.stringify({ kind: 'report', input: { account: 'a-1' } }),
}); // no socket
const { job_id } = await res.json();
await clock.advance(5000); // the job finishes, webhooks fire, on virtual time
const journal = provider.journal.all(); // the ground truth
const server = await serve(provider, { port: 0 }); // or over real HTTP
const job = await (await fetch(`${server.url}/v1/jobs/${job_id}`, { headers: { authorization: 'Bearer dev-token' } })).json();
await server.close();
provider.close();

console.log(JSON.stringify({ created: res.status, state: job.state, journal: journal.map((e) => e.type) }));
