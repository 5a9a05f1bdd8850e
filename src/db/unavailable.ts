/** Prisma's codes for "cannot reach the database" (P1xxx) and "no connection to be had" (pool time-out, too many connections). */
const UNAVAILABLE_PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2037']);
/** What a driver adapter reports (DriverAdapterError `kind`) when the server is away or out of connections. */
const UNAVAILABLE_ADAPTER_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
]);
const UNAVAILABLE_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EPIPE',
]);
/** PostgreSQL SQLSTATEs: admin/crash shutdown, starting up (57P0x), class 08 connection exceptions, too many connections. */
const UNAVAILABLE_SQLSTATE = /^(57P0[1-3]|08...|53300)$/;
/** pg's own errors carry no code: a connection lost mid-query, a pool that cannot connect in time. */
const UNAVAILABLE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Can't reach database server/;

/**
 * True when `error` (or what it wraps: a GraphQL error's original, a cause, Prisma's driver-adapter
 * error) says the database could not be reached, rather than that the query was wrong. Such a
 * request is answered 503 DATABASE_UNAVAILABLE, and the same request succeeds once the database is
 * back: the pg pool opens fresh connections.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (const { code, kind, message } of causes(error)) {
    if (
      typeof code === 'string' &&
      (UNAVAILABLE_PRISMA_CODES.has(code) || UNAVAILABLE_SOCKET_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))
    )
      return true;
    if (typeof kind === 'string' && UNAVAILABLE_ADAPTER_KINDS.has(kind)) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message)) return true;
  }
  return false;
}

/** SQLSTATE query_canceled: a statement_timeout ran out (the server's connections have one: db/client.ts). */
const QUERY_CANCELED = '57014';

/**
 * True when `error` (or what it wraps, as isDatabaseUnavailable reads it) is a statement PostgreSQL
 * cancelled at its statement_timeout: a request that ran out of its time (TIMEOUT).
 */
export function isStatementTimeout(error: unknown): boolean {
  for (const { code } of causes(error)) if (code === QUERY_CANCELED) return true;
  return false;
}

type Cause = { code?: unknown; kind?: unknown; message?: unknown };

/** `error` and what it wraps: a GraphQL error's original, a cause, Prisma's driver-adapter error. */
function* causes(error: unknown): Generator<Cause> {
  const seen = new Set<unknown>();
  const pending: unknown[] = [error];
  while (pending.length) {
    const e = pending.pop();
    if (!e || typeof e !== 'object' || seen.has(e) || seen.size > 10) continue;
    seen.add(e);
    const { cause, originalError, meta } = e as {
      cause?: unknown;
      originalError?: unknown;
      meta?: { driverAdapterError?: { cause?: unknown } };
    };
    yield e as Cause;
    pending.push(cause, originalError, meta?.driverAdapterError, meta?.driverAdapterError?.cause);
  }
}
