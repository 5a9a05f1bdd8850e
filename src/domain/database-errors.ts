// What a database error says, read from its codes and from what it wraps: pure, so every layer that
// meets one (db/unavailable.ts, runtime/deadline.ts) reads it the same way.

/** SQLSTATE query_canceled: a statement_timeout ran out (the server's connections have one: db/client.ts). */
const QUERY_CANCELED = '57014';

/**
 * True when `error` (or what it wraps, as isDatabaseUnavailable reads it) is a statement PostgreSQL
 * cancelled at its statement_timeout: a request that ran out of its time (TIMEOUT).
 */
export function isStatementTimeout(error: unknown): boolean {
  for (const { code, originalCode } of causes(error))
    if (code === QUERY_CANCELED || originalCode === QUERY_CANCELED) return true;
  return false;
}

export type Cause = { code?: unknown; originalCode?: unknown; kind?: unknown; message?: unknown };

/** `error` and what it wraps: a GraphQL error's original, a cause, Prisma's driver-adapter error. */
export function* causes(error: unknown): Generator<Cause> {
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
