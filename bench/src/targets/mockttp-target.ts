/** Bench comparison: mockttp (default options, so it records traffic) serving the fixed stub. Prints its URL. */
import { getLocal } from 'mockttp';
import { readStub } from './stub.js';

const stub = readStub(process.argv[2]);
const server = getLocal();
await server.start();
// With explicit headers mockttp sends exactly those: without a Content-Length the body would be close-delimited and
// keep-alive impossible, so it is given here.
const headers = (body: string) => ({ 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
await server
  .forGet(/\/v1\/jobs\/[^/]+$/)
  .always()
  .thenReply(stub.status.status, stub.status.body, headers(stub.status.body));
await server
  .forPost(/\/v1\/jobs$/)
  .always()
  .thenReply(stub.create.status, stub.create.body, headers(stub.create.body));
process.stdout.write(`mockttp listening on http://127.0.0.1:${server.port}\n`);
process.once('SIGTERM', () => void server.stop().then(() => process.exit(0)));
