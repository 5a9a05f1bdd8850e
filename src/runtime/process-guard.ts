import type { Logger } from '../observability/log.js';
import type { MetricRegistrar } from '../observability/metrics.js';

/**
 * What the process does with an error nothing else caught (server.ts installs it; nothing starts
 * on import). Node's default is to print it and end the process, with every request in flight:
 * one input that reaches such a path would take the instance down.
 *
 * - An unhandled rejection is a promise nobody awaited: logged at `error` (with the request id of
 *   the request it came from, which the logger's scope still holds), counted, and the instance goes
 *   on — the request it belonged to has its own answer or time limit.
 * - An uncaught exception leaves the process in a state nobody knows: logged at `fatal`, counted,
 *   and `onFatal` runs (server.ts: /readyz answers 503, the server drains its requests in flight
 *   and exits 1, for the supervisor to start a fresh one). Further ones while it drains are only
 *   logged and counted.
 */
export type ProcessErrorKind = 'unhandled_rejection' | 'uncaught_exception';

const counts: Record<ProcessErrorKind, number> = { unhandled_rejection: 0, uncaught_exception: 0 };

/** Errors the guard caught since the process started, by kind (mdg_process_errors_total). */
export function processErrorCounts(): Readonly<Record<ProcessErrorKind, number>> {
  return counts;
}

export function registerProcessErrorMetrics(metrics: MetricRegistrar): void {
  metrics.counter(
    {
      name: 'mdg_process_errors_total',
      help: 'Errors nothing else caught, by kind: unhandled_rejection (the instance goes on) or uncaught_exception (it drains and exits)',
      label: 'kind',
    },
    processErrorCounts,
  );
}

export function installProcessGuard(logger: Logger, onFatal: (error: unknown) => void): void {
  let fatal = false;
  process.on('unhandledRejection', (reason) => {
    counts.unhandled_rejection++;
    logger.error(
      { err: reason, kind: 'unhandled_rejection' },
      `unhandled rejection: ${describe(reason)}; the instance goes on`,
    );
  });
  process.on('uncaughtException', (error) => {
    counts.uncaught_exception++;
    logger.fatal(
      { err: error, kind: 'uncaught_exception' },
      `uncaught exception: ${describe(error)}; ${fatal ? 'already draining' : 'not ready any more: draining the requests in flight, then exiting'}`,
    );
    if (fatal) return;
    fatal = true;
    onFatal(error);
  });
}

function describe(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}
