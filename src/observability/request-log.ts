import { Counter, Histogram } from 'prom-client';
import { setRequestScope, type Logger } from './log.js';
import type { Metrics } from './metrics.js';
import type { RequestSpan, Tracing } from './tracing.js';

/** Paths that are their own route label; any other path not matched by a REST route is `unmatched`. */
const FIXED_ROUTES = new Set(['/graphql', '/healthz', '/readyz', '/metrics', '/openapi.json']);
/** Answered at debug level when they succeed: probes and scrapes every few seconds would drown the log. */
const QUIET_ROUTES = new Set(['/healthz', '/readyz', '/metrics']);
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** Operation names are chosen by clients: past this many distinct ones, the label is `other`. */
export const MAX_OPERATION_LABELS = 200;

/** What the log line and the span say of a request; app.ts's per-request Context is one. */
export interface LoggedRequest {
  readonly requestId: string;
  readonly request: Request;
  readonly ip: string;
  /** Who made it, once authenticated: read when the request ends. */
  readonly caller: { readonly userId: string; readonly apiKeyId?: string | undefined } | null | undefined;
}

interface RequestRecord {
  started: number;
  method: string;
  path: string;
  route: string;
  operation?: string;
  /** Error codes of the answer: the REST error's, or every GraphQL error's extensions.code. */
  codes: string[];
  /** What a request that failed with INTERNAL or DATABASE_UNAVAILABLE threw, for its log line. */
  cause?: unknown;
  span?: RequestSpan;
}

export interface RequestLogDeps {
  metrics: Pick<Metrics, 'registry'>;
  logger: Logger;
  tracing?: Tracing | undefined;
}

/**
 * Which credential made a request, for log lines and traces: the key for API-key callers, the user
 * otherwise (budgets are per user whatever the credential). Ids only, never the key, token or password.
 */
function callerId(caller: NonNullable<LoggedRequest['caller']>): string {
  return caller.apiKeyId ? `key:${caller.apiKeyId}` : `user:${caller.userId}`;
}

/**
 * One JSON log line per request, the request counters and duration histogram, and an OpenTelemetry
 * span per request when tracing is on. app.ts calls `begin` and `finish` around every request and
 * tells the route and errors between; graphql/logging.ts tells the operation and its error codes.
 */
export class RequestLog {
  readonly #records = new WeakMap<LoggedRequest, RequestRecord>();
  readonly #operationLabels = new Set<string>();
  readonly #logger: Logger;
  /**
   * The same logger without redaction, for the lines of requests that end without a cause: their
   * fields are this file's own (ids, never a credential), and pino's redaction of 24 paths cost
   * two thirds of writing a line (bench/RESULTS.md). A line that carries what was thrown is redacted.
   */
  readonly #plainLogger: Logger;
  readonly #tracing: Tracing | undefined;
  readonly #requests: Counter<'method' | 'route' | 'operation' | 'status'>;
  readonly #duration: Histogram<'method' | 'route' | 'operation' | 'status'>;
  readonly #errors: Counter<'code'>;

  constructor({ metrics, logger, tracing }: RequestLogDeps) {
    this.#logger = logger;
    this.#plainLogger = logger.child({}, { redact: [] });
    this.#tracing = tracing;
    const registers = [metrics.registry];
    const labelNames = ['method', 'route', 'operation', 'status'] as const;
    this.#requests = new Counter({
      name: 'mdg_http_requests_total',
      help: 'HTTP requests answered, by REST route template or GraphQL operation name, and status',
      labelNames,
      registers,
    });
    this.#duration = new Histogram({
      name: 'mdg_http_request_duration_seconds',
      help: 'Time from a request arriving to its response headers, by REST route template or GraphQL operation name, and status',
      labelNames,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.#errors = new Counter({
      name: 'mdg_errors_total',
      help: 'Error answers by code (REST code, or GraphQL extensions.code)',
      labelNames: ['code'] as const,
      registers,
    });
  }

  begin(req: LoggedRequest, url: URL): void {
    setRequestScope({ requestId: req.requestId });
    this.#records.set(req, {
      started: performance.now(),
      method: METHODS.has(req.request.method) ? req.request.method : 'other',
      path: url.pathname.slice(0, 200),
      route: FIXED_ROUTES.has(url.pathname) ? url.pathname : 'unmatched',
      codes: [],
      ...(this.#tracing ? { span: this.#tracing.start(req.request) } : {}),
    });
  }

  /** Whether `begin` saw this request (a WebSocket operation's context was never begun). */
  has(req: LoggedRequest | undefined): boolean {
    return this.#record(req) !== undefined;
  }

  /** The REST route that serves the request, as its template (`/stocks/v3/trades/:symbol`). */
  route(req: LoggedRequest, template: string): void {
    const rec = this.#record(req);
    if (rec) rec.route = template;
  }

  /** The GraphQL operation's name, as the client sent it or as the document names it. */
  operation(req: LoggedRequest | undefined, name: string): void {
    const rec = this.#record(req);
    if (rec) rec.operation = name;
  }

  /** Error codes of the answer (each GraphQL error's extensions.code). */
  codes(req: LoggedRequest | undefined, codes: readonly string[]): void {
    this.#record(req)?.codes.push(...codes);
  }

  /** The error a request is answered with (already coded), and what was thrown. */
  failed(req: LoggedRequest, thrown: unknown, answered: { code: string }): void {
    const rec = this.#record(req);
    if (!rec) return;
    rec.codes.push(answered.code);
    if (answered.code === 'INTERNAL' || answered.code === 'DATABASE_UNAVAILABLE') rec.cause = thrown;
  }

  /** Logs and counts the request; its error codes, for what else follows them (app.ts). */
  finish(req: LoggedRequest, response: Response): readonly string[] {
    const rec = this.#record(req);
    if (!rec) return [];
    this.#records.delete(req);
    const status = response.status;
    const durationMs = Math.round((performance.now() - rec.started) * 10) / 10;
    const isGraphQL = rec.route === '/graphql';
    const labels = {
      method: rec.method,
      route: rec.route,
      operation: isGraphQL ? this.#operationLabel(rec.operation) : '',
      status: String(status),
    };
    this.#requests.inc(labels);
    this.#duration.observe(labels, durationMs / 1000);
    for (const code of rec.codes) this.#errors.inc({ code });
    const caller = req.caller ? callerId(req.caller) : undefined;
    this.#endSpan(req, rec, status, caller);
    // the query parameters a REST route set aside, as its answer names them (bounded there: rest/params.ts)
    const ignored = response.headers.get('x-ignored-parameters') ?? undefined;
    this.#writeLine(req, rec, { status, durationMs, caller, ignored });
    return rec.codes;
  }

  #record(req: LoggedRequest | undefined): RequestRecord | undefined {
    return req ? this.#records.get(req) : undefined;
  }

  #operationLabel(name: string | undefined): string {
    if (!name) return 'anonymous';
    if (this.#operationLabels.has(name)) return name;
    if (this.#operationLabels.size >= MAX_OPERATION_LABELS) return 'other';
    this.#operationLabels.add(name);
    return name;
  }

  #endSpan(req: LoggedRequest, rec: RequestRecord, status: number, caller: string | undefined): void {
    const isGraphQL = rec.route === '/graphql';
    rec.span?.end({
      name: isGraphQL ? `graphql ${rec.operation ?? 'anonymous'}` : `${rec.method} ${rec.route}`,
      status,
      attributes: {
        'http.route': rec.route,
        'mdg.request_id': req.requestId,
        ...(isGraphQL ? { 'graphql.operation.name': rec.operation ?? 'anonymous' } : {}),
        ...(caller ? { 'enduser.id': caller } : {}),
      },
    });
  }

  #writeLine(
    req: LoggedRequest,
    rec: RequestRecord,
    {
      status,
      durationMs,
      caller,
      ignored,
    }: { status: number; durationMs: number; caller: string | undefined; ignored: string | undefined },
  ): void {
    const isGraphQL = rec.route === '/graphql';
    const line: Record<string, unknown> = {
      requestId: req.requestId,
      method: rec.method,
      route: rec.route,
      path: rec.path,
      ...(isGraphQL ? { operation: rec.operation ?? 'anonymous' } : {}),
      status,
      durationMs,
      ...(caller ? { caller, userId: req.caller!.userId } : {}),
      ip: req.ip,
      ...(rec.codes.length ? { codes: [...new Set(rec.codes)] } : {}),
      ...(ignored ? { ignoredParameters: ignored } : {}),
      ...(rec.span ? { traceId: rec.span.traceId } : {}),
    };
    if (rec.cause !== undefined) {
      if (rec.codes.includes('INTERNAL')) line.err = rec.cause;
      // the driver's reason (refused, terminated, timed out), without Prisma's call-site excerpt
      else
        line.cause = (rec.cause instanceof Error ? rec.cause.message : String(rec.cause))
          .trim()
          .split('\n')
          .filter(Boolean)
          .pop()
          ?.slice(0, 300);
    }
    const msg = `${rec.method} ${rec.route}${isGraphQL ? ` ${rec.operation ?? 'anonymous'}` : ''} ${status}`;
    const logger = rec.cause === undefined ? this.#plainLogger : this.#logger;
    if (status >= 500 && status !== 503) logger.error(line, msg);
    else if (status === 503) logger.warn(line, msg);
    else if (QUIET_ROUTES.has(rec.route) && status < 400) logger.debug(line, msg);
    else logger.info(line, msg);
  }
}
