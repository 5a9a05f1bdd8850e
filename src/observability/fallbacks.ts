import { Counter } from 'prom-client';
import type { Logger } from './log.js';
import type { Metrics } from './metrics.js';

/**
 * Every way the gateway answers something other than by its first choice, and why: the one table of
 * them (docs/operations.md#metrics). Reasons are a fixed set per path, never a message, so the
 * series stay few.
 */
export const FALLBACK_REASONS = {
  /** The planner (graphql/plan/) leaves an operation to graphql-js and the resolvers. */
  planner: [
    /** The document has a field, fragment or directive the planner does not know (planDocument's reason), or its arguments a way the field's plan leaves to its resolver (a ranked search, a lookup by ISIN). */
    'not_plannable',
    /** The caller lacks a resource the document reads: the resolvers word the refusal. */
    'entitlement',
    /** Variables or arguments graphql-js or a service refuses: they word the error. */
    'arguments',
    /** The rows read give no answer the plan may build: a null where the type forbids one, a value its type refuses. */
    'answer',
    /** Anything else thrown while planning or running a plan: logged at error level. */
    'error',
  ],
  /** The reads of one turn of a request (db/pg-read.ts) go out as single statements, not one combined. */
  combined: [
    /** Reads of a batch whose result columns no standalone run has taught yet. */
    'unlearned',
    /** A combined statement failed: its reads fail with it, and are taught again alone. */
    'error',
  ],
  /** A POST to /graphql goes through the fetch adapter instead of the direct way (http/direct.ts). */
  direct: [
    /** A query string on /graphql. */
    'query_string',
    /** An Upgrade. */
    'connection',
    /** An If-None-Match: the response cache answers it in an adapter hook. */
    'conditional',
    /** Not `application/json` (a GraphQL body, a form). */
    'content_type',
    /** No declared length, chunked, empty, or past 64 KiB. */
    'body',
    /** An Accept that takes no JSON answer, or a stream (SSE, multipart). */
    'accept',
  ],
} as const;

export type FallbackPath = keyof typeof FALLBACK_REASONS;
export type FallbackReason<P extends FallbackPath> = (typeof FALLBACK_REASONS)[P][number];

/** What was thrown, and the request it was thrown in, for the error line of an `error` fallback. */
export interface FallbackFailure {
  err: unknown;
  requestId?: string | undefined;
}

export interface Fallbacks {
  /** Counts one fallback on `mdg_fallback_total{path,reason}`; a failure is logged at error level. */
  record<P extends FallbackPath>(path: P, reason: FallbackReason<P>, failure?: FallbackFailure): void;
}

/**
 * Per app, as its metrics: every path and reason is on /metrics from the first scrape, at 0. A
 * failure's line carries the request id given, else the one of the request it is logged in (log.ts).
 */
export function createFallbacks({
  metrics,
  logger,
}: {
  metrics: Pick<Metrics, 'registry'>;
  logger: Logger;
}): Fallbacks {
  const counter = new Counter({
    name: 'mdg_fallback_total',
    help: 'Answers that fell back from the first way to the next (planner -> resolvers, combined -> single statements, search index -> SQL, direct -> fetch adapter), by path and reason',
    labelNames: ['path', 'reason'] as const,
    registers: [metrics.registry],
  });
  for (const [path, reasons] of Object.entries(FALLBACK_REASONS))
    for (const reason of reasons) counter.inc({ path, reason }, 0);
  return {
    record(path, reason, failure) {
      counter.inc({ path, reason });
      if (failure)
        logger.error(
          { ...(failure.requestId && { requestId: failure.requestId }), fallback: { path, reason }, err: failure.err },
          `${path} fell back (${reason}): ${(failure.err as Error)?.message ?? String(failure.err)}`,
        );
    },
  };
}
