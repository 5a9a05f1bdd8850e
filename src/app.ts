import { randomUUID } from 'node:crypto';
import { createServerAdapter } from '@whatwg-node/server';
import type { Redis } from 'ioredis';
import { authenticate, CallerCache } from './auth/caller.js';
import { databaseReadiness } from './bootstrap.js';
import { createCors } from './auth/cors.js';
import { checkSite } from './auth/csrf.js';
import { createRateLimits, pacingHeaders, type RateLimits } from './auth/rate-limit.js';
import type { SessionDeps } from './auth/session-cookies.js';
import { checkServingConfig, type Config } from './config.js';
import { createContext, type Context, type WorkDeps } from './context.js';
import type { Db } from './db/client.js';
import { knownError } from './db/unavailable.js';
import { AppError, errorBody, methodNotAllowed } from './errors.js';
import { recordUnits } from './graphql/cost.js';
import { costOptions } from './graphql/guard.js';
import { graphiqlAssets } from './graphql/graphiql.js';
import { graphqlOverHttp } from './graphql/http.js';
import { LiveHub } from './graphql/live.js';
import { useRequestLog } from './graphql/logging.js';
import type { SocketGateway } from './graphql/ws.js';
import { createGraphQLServer, withoutAdapter } from './graphql/yoga.js';
import type { DirectHandler } from './http/direct.js';
import { webAppFiles } from './http/web-app.js';
import type { BodyReading } from './http/body.js';
import { clientIp, malformedRequest, nodeListener, upgradeIp, type NodeServerContext } from './http/node.js';
import { createFallbacks, type Fallbacks } from './observability/fallbacks.js';
import { createLogger, inRequestScope, type Logger } from './observability/log.js';
import { createMetrics } from './observability/metrics.js';
import { RequestLog } from './observability/request-log.js';
import type { Tracing } from './observability/tracing.js';
import { OcrPool } from './ocr/pool.js';
import { openApiDocument } from './rest/openapi.js';
import { IGNORED_HEADER, ignoredHeader } from './rest/params.js';
import { json } from './rest/route.js';
import { probes, type Handler } from './rest/probes.js';
import { restRouter } from './rest/router.js';
import { routes } from './rest/routes.js';
import { Deadline, Timeouts } from './runtime/deadline.js';
import { memoryEventBus, type EventBus } from './runtime/events.js';
import { BodyBudget } from './runtime/bodies.js';
import { InFlightBudget } from './runtime/in-flight.js';
import { registerProcessErrorMetrics } from './runtime/process-guard.js';
import { schema as publicSchema, subgraphSchema } from './schema/index.js';

export interface AppDeps {
  /** With auth.jwtSecret set (server.ts fills it in: see credentials/secret.ts). */
  config: Readonly<Config>;
  db: Db;
  /** Shared rate-limit budgets across instances; in memory without it. */
  redis?: Redis | undefined;
  /** The OCR workers; server.ts passes its own to stop them at shutdown. Workers start on first use. */
  ocr?: OcrPool;
  /** What subscriptions listen to; server.ts passes the database's (bootstrap.ts) and closes it. */
  events?: EventBus;
  /** JSON log lines (server.ts passes its own); by default to stdout at LOG_LEVEL. */
  logger?: Logger;
  /** OpenTelemetry spans per request, when server.ts made a tracer (OTEL_EXPORTER_OTLP_ENDPOINT). */
  tracing?: Tracing | undefined;
  /** True once shutdown began: /readyz answers 503 so load balancers stop sending new work. */
  draining?: () => boolean;
  /** The work this instance runs at once (COST_IN_FLIGHT units by default); tests pass their own. */
  budget?: InFlightBudget;
  /** The bytes of bodies and unfinished WebSocket messages this instance holds at once (BODY_BYTES_IN_FLIGHT by default); tests pass their own. */
  bodies?: InFlightBudget;
  /** What requests read as the time now (ctx.now), Date.now by default; tests pass a fixed clock (the market calendar answers by it). */
  now?: () => number;
}

/**
 * Builds the whole HTTP surface (GraphQL at /graphql, health probes, REST-compatibility paths)
 * as one fetch handler. It listens nowhere: server.ts does that, tests call `app.fetch`.
 */
export function createApp({
  config,
  db,
  redis,
  ocr = new OcrPool(config.ocr),
  events = memoryEventBus(),
  logger = createLogger(config.observability.logLevel),
  tracing,
  draining = () => false,
  budget = new InFlightBudget(config.graphql.costInFlight, config.graphql.costWaitMs),
  bodies = new InFlightBudget(config.graphql.bodyBytesInFlight, config.graphql.costWaitMs, 'request bodies in flight'),
  now,
}: AppDeps) {
  const jwtSecret = config.auth.jwtSecret;
  if (!jwtSecret) throw new Error('createApp needs config.auth.jwtSecret (see credentials/secret.ts)');
  checkServingConfig(config);
  // each owner registers its own series: observability/ knows none of them
  const metrics = createMetrics({ config, build: { version: config.version, database: 'postgresql' } });
  const observability = new RequestLog({ metrics, logger, tracing });
  const fallbacks = createFallbacks({ metrics, logger });
  const timeouts = new Timeouts();
  timeouts.registerMetrics(metrics);
  const limits = createRateLimits(config.auth, redis, metrics);
  registerProcessErrorMetrics(metrics);
  db.registerMetrics(metrics);
  ocr.registerMetrics(metrics);
  const callers = new CallerCache(config.auth.callerCacheMs);
  const readiness = databaseReadiness(config, db, logger.child({ component: 'database' }), () => callers.clear());
  const live = new LiveHub({
    config: config.subscriptions,
    callerCacheMs: config.auth.callerCacheMs,
    db,
    callers,
    logger,
  });
  const sessions: SessionDeps = { db, auth: { ...config.auth, jwtSecret }, limits, callers };
  // behind a supergraph's router, the same graph with `_service` and `_entities` (docs/federation.md)
  const schema = config.graphql.subgraph ? subgraphSchema() : publicSchema;
  const rowUnits = new Map<string, number>();
  const work: WorkDeps = {
    budget,
    rowUnits: (type) => rowUnits.get(type) ?? rowUnits.set(type, recordUnits(schema, type, costOptions)).get(type)!,
  };
  const shared = { config, db, sessions, callers, ocr, events, work, live, fallbacks, timeouts, now };
  const contextOf = contextFactory(shared);
  const yoga = createGraphQLServer({
    schema,
    config,
    redis,
    logger,
    budget,
    live,
    // a registration costs one request more per KiB stored, from the caller's own budget
    chargeRegistration: async (ctx, caller, bytes) => {
      ctx.pacing = await limits.request(caller.userId, caller.tier, Math.ceil(bytes / 1024));
    },
    observe: useRequestLog(observability),
    fallbacks,
  });
  const identify = identifier({ db, jwtSecret, callers, limits, corsOrigins: config.auth.corsOrigins });
  const bodyBudget = new BodyBudget(bodies, config.connections.anonymousBytesPerAddress);
  const bodyReading: BodyReading = { budget: bodyBudget, pace: config.connections };
  const graphqlDeps = {
    yoga,
    config: config.graphql,
    identify,
    bodies: bodyReading,
    failed: (ctx: Context, thrown: unknown, e: AppError) => observability.failed(ctx, thrown, e),
  };
  const parts: HandlerParts = {
    contextOf,
    observability,
    cors: createCors(config.auth.corsOrigins),
    probes: probes({
      readiness,
      draining,
      metrics: (request) => metrics.serve(request),
      openApi: openApiDocument(routes, config.version),
    }),
    graphql: graphqlOverHttp(graphqlDeps),
    files: fileServers(config.graphql.introspection),
    rest: restRouter({
      routes,
      identify,
      anonymous: async (ctx) => {
        ctx.pacing = await limits.anonymous(ctx.ip);
      },
      bodies: bodyReading,
      matched: (ctx, template) => observability.route(ctx, template),
    }),
    databaseFailed: () => readiness.suspect(),
  };
  const handle = fetchHandler(parts);
  // the same steps for what http/direct.ts serves, Yoga without its adapter (docs/architecture.md)
  const handleDirect = fetchHandler({
    ...parts,
    graphql: graphqlOverHttp({ ...graphqlDeps, answer: withoutAdapter(yoga) }),
  });
  const socket = socketGateway(yoga, contextOf, identify, {
    limits: { connections: config.connections, bodies: bodyBudget },
    address: (upgrade) => upgradeIp(upgrade, config.auth.trustProxy),
  });
  return serverAdapter({ handle, handleDirect, socket, fallbacks });
}

export type App = ReturnType<typeof createApp>;

type ContextOf = HandlerParts['contextOf'];

/** What every request's context shares: the app's parts, one set per app, and where timeouts are counted. */
type SharedContext = Omit<
  Parameters<typeof createContext>[0],
  'requestId' | 'request' | 'ip' | 'cutConnection' | 'deadline'
> & { timeouts: Timeouts };

function contextFactory({ timeouts, ...shared }: SharedContext): ContextOf {
  return (request, serverContext, requestId, cutConnection) =>
    createContext({
      ...shared,
      requestId,
      request,
      // made as the request arrives: its budget counts from here
      deadline: new Deadline(shared.config.requestTimeoutMs, timeouts),
      ip: clientIp(request, serverContext, shared.config.auth.trustProxy),
      cutConnection,
    });
}

/** What graphql/ws.ts serves subscriptions over WebSocket with: Yoga, and a context made and identified as for HTTP. */
function socketGateway(
  yoga: SocketGateway['yoga'],
  contextOf: ContextOf,
  identify: Identify,
  caps: Pick<SocketGateway, 'limits' | 'address'>,
): SocketGateway {
  return {
    yoga,
    ...caps,
    async context(request, serverContext) {
      const malformed = malformedRequest(request, serverContext);
      if (malformed) throw malformed;
      const ctx = contextOf(request, serverContext, randomUUID());
      // a browser sends the cookie with a WebSocket any site opens, and no CORS check applies:
      // identify() checks the page's origin as for HTTP
      await identify(ctx, new URL(request.url));
      return ctx;
    },
  };
}

type FetchHandler = ReturnType<typeof fetchHandler>;

/**
 * The app: a Node request listener (http/node.ts: each request's URL from its request line) and
 * `fetch` for callers in this process, which bring their own URL (tests). `socket` rides along for
 * graphql/ws.ts; `direct` and `fallbacks` for http/direct.ts. Each request runs in its own log scope.
 */
function serverAdapter({
  handle,
  handleDirect,
  socket,
  fallbacks,
}: {
  handle: FetchHandler;
  handleDirect: FetchHandler;
  socket: SocketGateway;
  fallbacks: Fallbacks;
}) {
  const scoped =
    (h: FetchHandler): DirectHandler =>
    (request, serverContext) =>
      inRequestScope(() => h(request, serverContext));
  const adapter = createServerAdapter<NodeServerContext>(scoped(handle));
  return Object.assign(nodeListener(scoped(handle), socket.yoga.fetchAPI.Request), {
    fetch: adapter.fetch,
    socket,
    direct: scoped(handleDirect),
    fallbacks,
  });
}

type Identify = ReturnType<typeof identifier>;

/**
 * Authenticates, refuses the cookie of a page of another site, and counts the request: against
 * the user's budget, or, without a valid caller (none, or a wrong or ambiguous credential),
 * against the client address's. An address that spent its budget cannot have new API keys
 * looked up, so guessing keys is bounded too.
 */
function identifier({
  db,
  jwtSecret,
  callers,
  limits,
  corsOrigins,
}: {
  db: Db;
  jwtSecret: string;
  callers: CallerCache;
  limits: RateLimits;
  corsOrigins: readonly string[];
}) {
  return async function identify(ctx: Context, url: URL): Promise<void> {
    try {
      ctx.caller = await authenticate(ctx.request, url, {
        db,
        secret: jwtSecret,
        cache: callers,
        beforeKeyLookup: () => limits.checkAnonymous(ctx.ip),
      });
    } catch (e) {
      // a wrong credential, or an API key given twice with different values (auth/caller.ts)
      if (e instanceof AppError && (e.code === 'UNAUTHENTICATED' || e.code === 'BAD_REQUEST'))
        ctx.pacing = await limits.anonymous(ctx.ip);
      throw e;
    }
    if (!ctx.caller) {
      ctx.pacing = await limits.anonymous(ctx.ip);
      return;
    }
    if (ctx.caller.via === 'cookie') checkSite(ctx.request, corsOrigins, 'a request authenticated by cookie');
    ctx.pacing = await limits.request(ctx.caller.userId, ctx.caller.tier);
  };
}

interface HandlerParts {
  contextOf(request: Request, serverContext: NodeServerContext, requestId: string, cutConnection?: () => void): Context;
  observability: RequestLog;
  cors: ReturnType<typeof createCors>;
  probes: ReadonlyMap<string, Handler>;
  graphql(ctx: Context, url: URL): Promise<Response>;
  /** A file served as it is, with its route label for the metrics; undefined for what is not one. */
  files(request: Request, url: URL): Promise<{ route: string; response: Response } | undefined>;
  rest(ctx: Context, url: URL): Promise<Response>;
  /** A request was answered DATABASE_UNAVAILABLE: check the database now, where nothing may poll /readyz. */
  databaseFailed(): void;
}

/**
 * GraphiQL's script, styles and workers (graphql/graphiql.ts), only with introspection as its page
 * (Yoga's, at /graphql), and the page at /app (http/web-app.ts). Each has one route label in the
 * metrics for all its files, as a REST route's template is one for every symbol.
 */
function fileServers(introspection: boolean): HandlerParts['files'] {
  const servers = [
    ...(introspection ? [{ route: '/graphiql/assets/*', serve: graphiqlAssets() }] : []),
    { route: '/app/*', serve: webAppFiles() },
  ];
  return async (request, url) => {
    for (const { route, serve } of servers) {
      const response = await serve(request, url);
      if (response) return { route, response };
    }
    return undefined;
  };
}

/** The methods the fixed paths take, others refused as a REST route's: the probes, and /graphql (queries by GET). */
const PROBE_METHODS = ['GET', 'HEAD'];
const GRAPHQL_METHODS = ['GET', 'POST'];

/**
 * The fetch handler: a CORS preflight, a probe, /graphql, a GraphiQL asset, the page at /app or a REST path, once
 * the request is found well formed (http/node.ts: its Host header and its target).
 * Whatever is thrown becomes the REST error body with the request id: an AppError as it is, the
 * database out of reach as 503, anything else as INTERNAL (logged with its stack, never sent).
 */
function fetchHandler({ contextOf, observability, cors, probes, graphql, files, rest, databaseFailed }: HandlerParts) {
  return async function handle(request: Request, serverContext: NodeServerContext): Promise<Response> {
    const requestId = request.headers.get('x-request-id')?.slice(0, 128) || randomUUID();
    const url = new URL(request.url);
    const res = serverContext.res;
    const ctx = contextOf(
      request,
      serverContext,
      requestId,
      res && (() => void (res.writableFinished || res.destroy())),
    );
    observability.begin(ctx, url);
    let response: Response;
    try {
      const malformed = malformedRequest(request, serverContext);
      if (malformed) throw malformed;
      const probe = probes.get(url.pathname);
      const preflight = cors.preflight(request);
      const allow = probe ? PROBE_METHODS : url.pathname === '/graphql' ? GRAPHQL_METHODS : undefined;
      if (preflight) response = preflight;
      else if (allow && !allow.includes(request.method)) throw methodNotAllowed(request.method, url.pathname, allow);
      else if (probe) response = await probe(request);
      else if (url.pathname === '/graphql') response = await graphql(ctx, url);
      else {
        const file = await files(request, url);
        if (file) observability.route(ctx, file.route);
        response = file?.response ?? (await rest(ctx, url));
      }
    } catch (err) {
      const appErr =
        knownError(err, () => ctx.deadline.timedOut('sql')) ??
        // Yoga stops executing when the request's signal aborts and throws its reason; anything
        // else thrown stays INTERNAL, even from a request whose client has gone
        (request.signal.aborted && (err === request.signal.reason || (err as Error | undefined)?.name === 'AbortError')
          ? new AppError('CLIENT_CLOSED_REQUEST', 'the client closed the connection before the answer')
          : new AppError('INTERNAL', 'internal error'));
      observability.failed(ctx, err, appErr); // its log line carries the stack of an INTERNAL one
      response = json(errorBody(appErr, requestId), appErr.status, appErr.headers);
    }
    response.headers.set('x-request-id', requestId);
    if (ctx.ignoredParameters.length) response.headers.set(IGNORED_HEADER, ignoredHeader(ctx.ignoredParameters));
    // the budget the request drew on; a 429 carries the one that refused it (auth/rate-limit.ts)
    if (ctx.pacing && !response.headers.has('ratelimit-limit'))
      for (const [name, value] of Object.entries(pacingHeaders(ctx.pacing))) response.headers.set(name, value);
    cors.decorate(request, response);
    if (observability.finish(ctx, response).includes('DATABASE_UNAVAILABLE')) databaseFailed();
    return response;
  };
}
