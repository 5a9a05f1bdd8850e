import { createHash, timingSafeEqual } from 'node:crypto';
import { getOperationAST, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { callerKey } from '../auth/caller.js';
import type { RateLimits } from '../auth/rate-limit.js';
import type { Config } from '../config.js';
import type { Context } from '../context.js';
import type { Db } from '../db/client.js';
import { AppError } from '../errors.js';
import { setRequestScope, type Logger } from './log.js';
import type { OcrPool } from '../ocr/pool.js';
import { processErrorCounts, type ProcessErrorKind } from '../runtime/process-guard.js';
import type { RequestSpan, Tracing } from './tracing.js';

/** Paths that are their own route label; any other path not matched by a REST route is `unmatched`. */
const FIXED_ROUTES = new Set(['/graphql', '/healthz', '/readyz', '/metrics', '/openapi.json']);
/** Answered at debug level when they succeed: probes and scrapes every few seconds would drown the log. */
const QUIET_ROUTES = new Set(['/healthz', '/readyz', '/metrics']);
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** Operation names are chosen by clients: past this many distinct ones, the label is `other`. */
export const MAX_OPERATION_LABELS = 200;

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

export interface ObservabilityDeps {
  config: Readonly<Config>;
  db: Db;
  ocr: OcrPool;
  logger: Logger;
  tracing?: Tracing | undefined;
  version: string;
}

export type Observability = ReturnType<typeof createObservability>;

/**
 * Per app: a Prometheus registry of its own (several apps in one test process do not collide),
 * one JSON log line per request, and an OpenTelemetry span per request when tracing is on.
 * app.ts calls `begin` and `finish` around every request and tells the route and errors between.
 */
export function createObservability({ config, db, ocr, logger, tracing, version }: ObservabilityDeps) {
  const registry = new Registry();
  const registers = [registry];
  const records = new WeakMap<Context, RequestRecord>();
  const operationLabels = new Set<string>();

  const requestLabels = ['method', 'route', 'operation', 'status'] as const;
  const requests = new Counter({ name: 'mdg_http_requests_total', help: 'HTTP requests answered, by REST route template or GraphQL operation name, and status', labelNames: requestLabels, registers });
  const duration = new Histogram({
    name: 'mdg_http_request_duration_seconds',
    help: 'Time from a request arriving to its response headers, by REST route template or GraphQL operation name, and status',
    labelNames: requestLabels,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  const errors = new Counter({ name: 'mdg_errors_total', help: 'Error answers by code (REST code, or GraphQL extensions.code)', labelNames: ['code'] as const, registers });
  const rateLimited = new Counter({ name: 'mdg_rate_limit_rejections_total', help: 'Requests and login attempts refused with 429, by budget (tier, anonymous per address, or login)', labelNames: ['limit'] as const, registers });

  new Gauge({
    name: 'mdg_build_info',
    help: 'Version of the gateway, of Node.js, and the kind of database; always 1',
    labelNames: ['version', 'node_version', 'database'] as const,
    registers,
    collect() {
      this.set({ version, node_version: process.version, database: db.kind }, 1);
    },
  });
  const processErrorsSeen: Record<ProcessErrorKind, number> = { unhandled_rejection: 0, uncaught_exception: 0 };
  new Counter({
    name: 'mdg_process_errors_total',
    help: 'Errors nothing else caught, by kind: unhandled_rejection (the instance goes on) or uncaught_exception (it drains and exits)',
    labelNames: ['kind'] as const,
    registers,
    collect() {
      const now = processErrorCounts();
      for (const kind of Object.keys(processErrorsSeen) as ProcessErrorKind[]) {
        this.inc({ kind }, now[kind] - processErrorsSeen[kind]);
        processErrorsSeen[kind] = now[kind];
      }
    },
  });
  let statementsSeen = 0;
  new Counter({
    name: 'mdg_db_statements_total',
    help: 'SQL statements sent through Prisma',
    registers,
    collect() {
      const now = db.statementCount;
      this.inc(Math.max(0, now - statementsSeen));
      statementsSeen = now;
    },
  });
  if (db.driver.kind === 'postgresql') {
    const pools = [db.driver.pool, db.driver.reads];
    const sum = (of: (p: (typeof pools)[number]) => number) => pools.reduce((n, p) => n + of(p), 0);
    new Gauge({
      name: 'mdg_db_pool_connections',
      help: 'PostgreSQL connections (Prisma\'s pool and Db.read\'s pipelined ones together): total open, and idle among them',
      labelNames: ['state'] as const,
      registers,
      collect() {
        this.set({ state: 'total' }, sum((p) => p.totalCount));
        this.set({ state: 'idle' }, sum((p) => p.idleCount));
      },
    });
    new Gauge({
      name: 'mdg_db_pool_waiting',
      help: 'Queries waiting for a PostgreSQL pool connection (both pools)',
      registers,
      collect() {
        this.set(sum((p) => p.waitingCount));
      },
    });
  }
  const ocrGauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read());
      },
    });
  ocrGauge('mdg_ocr_workers', 'OCR worker threads running or starting', () => ocr.stats().workers);
  ocrGauge('mdg_ocr_queue_depth', 'OCR requests waiting for a worker', () => ocr.stats().queued);
  ocrGauge('mdg_ocr_jobs_running', 'OCR requests being read by a worker now', () => ocr.stats().running);
  ocrGauge('mdg_ocr_pixels_in_flight', 'Pixels of the OCR images queued or being read (OCR_MAX_PIXELS_IN_FLIGHT bounds it)', () => ocr.stats().pixels);
  let replacedSeen = 0;
  new Counter({
    name: 'mdg_ocr_workers_replaced_total',
    help: 'OCR workers replaced (after a large image, a failure or a time-out)',
    registers,
    collect() {
      const now = ocr.stats().replaced;
      this.inc(Math.max(0, now - replacedSeen));
      replacedSeen = now;
    },
  });

  let processMetrics = false;
  const metricsToken = config.observability.metricsToken;
  const tokenDigest = metricsToken ? createHash('sha256').update(metricsToken).digest() : undefined;

  function operationLabel(name: string | undefined): string {
    if (!name) return 'anonymous';
    if (operationLabels.has(name)) return name;
    if (operationLabels.size >= MAX_OPERATION_LABELS) return 'other';
    operationLabels.add(name);
    return name;
  }

  function record(ctx: Context | undefined): RequestRecord | undefined {
    return ctx ? records.get(ctx) : undefined;
  }

  function codesOf(result: unknown): string[] {
    const results = Array.isArray(result) ? result : [result];
    return results.flatMap((r) => ((r as ExecutionResult | undefined)?.errors ?? []).map((e) => String(e.extensions?.code ?? 'INTERNAL_SERVER_ERROR')));
  }

  return {
    registry,

    begin(ctx: Context, url: URL): void {
      setRequestScope({ requestId: ctx.requestId });
      records.set(ctx, {
        started: performance.now(),
        method: METHODS.has(ctx.request.method) ? ctx.request.method : 'other',
        path: url.pathname.slice(0, 200),
        route: FIXED_ROUTES.has(url.pathname) ? url.pathname : 'unmatched',
        codes: [],
        ...(tracing ? { span: tracing.start(ctx.request) } : {}),
      });
    },

    /** The REST route that serves the request, as its template (`/stocks/v3/trades/:symbol`). */
    route(ctx: Context, template: string): void {
      const rec = record(ctx);
      if (rec) rec.route = template;
    },

    /** The error a request is answered with (already an AppError), and what was thrown. */
    failed(ctx: Context, thrown: unknown, answered: AppError): void {
      const rec = record(ctx);
      if (!rec) return;
      rec.codes.push(answered.code);
      if (answered.code === 'INTERNAL' || answered.code === 'DATABASE_UNAVAILABLE') rec.cause = thrown;
    },

    finish(ctx: Context, response: Response): void {
      const rec = record(ctx);
      if (!rec) return;
      records.delete(ctx);
      const status = response.status;
      const durationMs = Math.round((performance.now() - rec.started) * 10) / 10;
      const isGraphQL = rec.route === '/graphql';
      const labels = { method: rec.method, route: rec.route, operation: isGraphQL ? operationLabel(rec.operation) : '', status: String(status) };
      requests.inc(labels);
      duration.observe(labels, durationMs / 1000);
      for (const code of rec.codes) errors.inc({ code });

      const caller = ctx.caller ? callerKey(ctx.caller) : undefined;
      rec.span?.end({
        name: isGraphQL ? `graphql ${rec.operation ?? 'anonymous'}` : `${rec.method} ${rec.route}`,
        status,
        attributes: {
          'http.route': rec.route,
          'mdg.request_id': ctx.requestId,
          ...(isGraphQL ? { 'graphql.operation.name': rec.operation ?? 'anonymous' } : {}),
          ...(caller ? { 'enduser.id': caller } : {}),
        },
      });

      const line: Record<string, unknown> = {
        requestId: ctx.requestId,
        method: rec.method,
        route: rec.route,
        path: rec.path,
        ...(isGraphQL ? { operation: rec.operation ?? 'anonymous' } : {}),
        status,
        durationMs,
        // ids only: "key:<api key id>" or "user:<user id>", never the key, token or password
        ...(caller ? { caller, userId: ctx.caller!.userId } : {}),
        ip: ctx.ip,
        ...(rec.codes.length ? { codes: [...new Set(rec.codes)] } : {}),
        ...(rec.span ? { traceId: rec.span.traceId } : {}),
      };
      if (rec.cause !== undefined) {
        if (rec.codes.includes('INTERNAL')) line.err = rec.cause;
        // the driver's reason (refused, terminated, timed out), without Prisma's call-site excerpt
        else line.cause = (rec.cause instanceof Error ? rec.cause.message : String(rec.cause)).trim().split('\n').filter(Boolean).pop()?.slice(0, 300);
      }
      const msg = `${rec.method} ${rec.route}${isGraphQL ? ` ${rec.operation ?? 'anonymous'}` : ''} ${status}`;
      if (status >= 500 && status !== 503) logger.error(line, msg);
      else if (status === 503) logger.warn(line, msg);
      else if (QUIET_ROUTES.has(rec.route) && status < 400) logger.debug(line, msg);
      else logger.info(line, msg);
    },

    /** Operation names and error codes of GraphQL requests; Yoga runs it with the others. */
    yogaPlugin(): Plugin<Record<string, unknown>, { ctx?: Context }> {
      return {
        onParams({ params, context }) {
          const rec = record(context.ctx);
          if (rec && params.operationName) rec.operation = params.operationName.slice(0, 100);
        },
        onExecute({ args }) {
          const rec = record(args.contextValue.ctx as Context | undefined) ?? record(args.contextValue as unknown as Context);
          if (rec) rec.operation = getOperationAST(args.document, args.operationName)?.name?.value ?? 'anonymous';
        },
        onResultProcess({ result, serverContext }) {
          const rec = record(serverContext.ctx);
          if (rec && !(Symbol.asyncIterator in Object(result))) rec.codes.push(...codesOf(result));
        },
      };
    },

    /** Counts the 429s these budgets give. */
    countRejections(limits: RateLimits): RateLimits {
      const counted = async (limit: string, attempt: Promise<void>): Promise<void> => {
        try {
          await attempt;
        } catch (e) {
          if (e instanceof AppError && e.code === 'RATE_LIMITED') rateLimited.inc({ limit });
          throw e;
        }
      };
      return {
        request: (userId, tier, points) => counted(tier, limits.request(userId, tier, points)),
        anonymous: (ip) => counted('anonymous', limits.anonymous(ip)),
        checkAnonymous: (ip) => counted('anonymous', limits.checkAnonymous(ip)),
        login: (email, ip) => counted('login', limits.login(email, ip)),
      };
    },

    /**
     * GET /metrics. With METRICS_TOKEN set it needs `Authorization: Bearer <token>`; without it,
     * it is open outside production and refused in production (metrics tell a lot about a service).
     */
    async metrics(request: Request): Promise<Response> {
      if (tokenDigest) {
        const given = /^Bearer\s+(\S+)$/i.exec(request.headers.get('authorization') ?? '')?.[1];
        if (!given || !timingSafeEqual(createHash('sha256').update(given).digest(), tokenDigest)) {
          throw new AppError('UNAUTHENTICATED', '/metrics needs the header Authorization: Bearer <METRICS_TOKEN>', { 'www-authenticate': 'Bearer realm="metrics"' });
        }
      } else if (config.nodeEnv === 'production') {
        throw new AppError('FORBIDDEN', '/metrics is off in production until METRICS_TOKEN is set');
      }
      if (!processMetrics) {
        // process and event-loop metrics start with the first scrape, so apps never scraped (tests) start no monitors
        collectDefaultMetrics({ register: registry });
        processMetrics = true;
      }
      return new Response(await registry.metrics(), { headers: { 'content-type': registry.contentType } });
    },
  };
}
