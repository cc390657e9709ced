/**
 * PostgreSQL errors that mean "the database cannot answer right now", after which the same step is simply tried
 * again later: the server restarting or unreachable (connection errors, 57P01-57P03 admin shutdown / crash shutdown /
 * cannot connect now, 08xxx connection exceptions), a statement cancelled (57014), a lock not granted in time
 * (55P03) or a session ended for idling in a transaction while its process was paused (25P03), and serialization or deadlock
 * conflicts (40001, 40P01). Anything else (a trigger refusing an UPDATE of history, a constraint) is a bug.
 */
const TRANSIENT_SQLSTATE = /^(08...|57P0[1-3]|57014|40001|40P01|53300|55P03|25P03)$/;
const TRANSIENT_NODE = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN']);

export function isTransientPgError(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (!e) return false;
  if (typeof e.code === 'string' && (TRANSIENT_SQLSTATE.test(e.code) || TRANSIENT_NODE.has(e.code))) return true;
  const msg = typeof e.message === 'string' ? e.message : '';
  // node-postgres reports a socket closed under a query with these messages and no code.
  return /Connection terminated|connection timeout|Client has encountered a connection error|terminating connection/i.test(msg);
}
