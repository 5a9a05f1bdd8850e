import { causes, isStatementTimeout } from '../domain/database-errors.js';
import { AppError, databaseUnavailable } from '../errors.js';

/**
 * Prisma's codes for a database that cannot be used, whatever the request: out of reach (P1001,
 * P1002, P1008, P1017), refusing this user (P1000 authentication failed, P1010 access denied), not
 * there (P1003 no such database, P2021 no such table: dropped, or re-created empty and not migrated
 * yet), no connection to be had (P2024 pool time-out, P2037 too many connections).
 */
const UNAVAILABLE_PRISMA_CODES = new Set([
  'P1000',
  'P1001',
  'P1002',
  'P1003',
  'P1008',
  'P1010',
  'P1017',
  'P2021',
  'P2024',
  'P2037',
]);
/** What a driver adapter reports (DriverAdapterError `kind`) for the same states. */
const UNAVAILABLE_ADAPTER_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
  'AuthenticationFailed',
  'DatabaseAccessDenied',
  'DatabaseDoesNotExist',
  'TableDoesNotExist',
]);
const UNAVAILABLE_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EPIPE',
]);
/**
 * PostgreSQL SQLSTATEs, as pg reports them (`code`) and the adapter passes them on (`originalCode`):
 * class 08 connection exceptions, 28000/28P01 connection refused for this user (pg_hba.conf, a
 * password), 3D000 no such database, 3F000 no such schema, 42P01 no such table, 53300 too many
 * connections, 57P01-57P03 shut down or starting up. A missing column (42703, P2022) is not among
 * them: tables without a column this version reads are a schema of another version, or a bug, and
 * /readyz (db/readiness.ts) migrates a database that is behind.
 */
const UNAVAILABLE_SQLSTATE = /^(08...|28000|28P01|3D000|3F000|42P01|53300|57P0[1-3])$/;
/** pg's own errors carry no code: a connection lost mid-query, a pool that cannot connect in time. */
const UNAVAILABLE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Can't reach database server/;

/**
 * True when `error` (or what it wraps: a GraphQL error's original, a cause, Prisma's driver-adapter
 * error) says the database cannot be used as it is (unreachable, refusing us, dropped, without its
 * tables), rather than that the query was wrong. Such a request is answered 503
 * DATABASE_UNAVAILABLE, and the same request succeeds once the database is back: the pg pool opens
 * fresh connections, and db/readiness.ts migrates a database that came back empty.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (const { code, originalCode, kind, message } of causes(error)) {
    if (
      typeof code === 'string' &&
      (UNAVAILABLE_PRISMA_CODES.has(code) || UNAVAILABLE_SOCKET_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))
    )
      return true;
    if (typeof originalCode === 'string' && UNAVAILABLE_SQLSTATE.test(originalCode)) return true;
    if (typeof kind === 'string' && UNAVAILABLE_ADAPTER_KINDS.has(kind)) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message)) return true;
  }
  return false;
}

/**
 * What a thrown error tells a client: an AppError as it is, a database that cannot be used as 503
 * DATABASE_UNAVAILABLE with Retry-After, a statement cancelled at its statement_timeout as
 * `timedOut` words it (the request's TIMEOUT); undefined for anything else (an INTERNAL error to its caller).
 */
export function knownError(thrown: unknown, timedOut?: () => AppError): AppError | undefined {
  if (thrown instanceof AppError) return thrown;
  if (isDatabaseUnavailable(thrown)) return databaseUnavailable();
  return timedOut && isStatementTimeout(thrown) ? timedOut() : undefined;
}
