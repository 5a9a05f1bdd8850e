import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createServerAdapter } from '@whatwg-node/server';
import { getOperationAST, GraphQLError, Kind, type DocumentNode } from 'graphql';
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { Redis } from 'ioredis';
import { authenticate, CallerCache, presentedCredential } from './auth/caller.js';
import { createCors } from './auth/cors.js';
import { checkNotCrossSite, checkSite } from './auth/csrf.js';
import { checkAuthenticated, checkEntitled } from './domain/entitlements.js';
import { createRateLimits } from './auth/rate-limit.js';
import type { SessionDeps } from './auth/session-cookies.js';
import { checkServingConfig, LARGEST_BODY_BYTES, ROOT, type Config } from './config.js';
import { createContext, releaseHeld, type Context, type WorkDeps } from './context.js';
import { isDatabaseUnavailable, type Db } from './db/client.js';
import { AppError, databaseUnavailable, ERRORS, errorBody } from './errors.js';
import { memoryEventBus, type EventBus } from './runtime/events.js';
import { responseCachePlugins } from './graphql/cache.js';
import { maskError, useInputErrorCodes, useRequestErrorStatus } from './graphql/errors.js';
import { boundedRequest, costOptions, graphqlBodyLimit, guardPlugins } from './graphql/guard.js';
import { useInputDepthLimit } from './graphql/input.js';
import { LiveHub } from './graphql/live.js';
import { APQ_STORE_DOCUMENTS, loadPersistedOperations, memoryDocumentStore, redisDocumentStore, usePersistedDocuments } from './graphql/persisted.js';
import { createLogger, inRequestScope, yogaLogger, type Logger } from './observability/log.js';
import { createObservability } from './observability/metrics.js';
import { OcrPool } from './ocr/pool.js';
import { openApiDocument, packageVersion } from './rest/openapi.js';
import { checkParamNames } from './rest/params.js';
import { routes } from './rest/routes.js';
import { json, matchPath } from './rest/route.js';
import { InFlightBudget } from './runtime/in-flight.js';
import { recordUnits } from './graphql/cost.js';
import { schema } from './schema/index.js';
import { databaseAnswers } from './db/health.js';
import { sseResponse } from './graphql/sse.js';
import type { Tracing } from './observability/tracing.js';

/**
 * What GraphiQL opens with: the allow-listed company page (operations/company-page.graphql, the
 * query the README's tour starts from), under a line on how to run it. One document, not a copy.
 */
export const COMPANY_PAGE_QUERY = `# A company page: one security and what links to it. Press Ctrl-Enter to run.
# Requests need a credential: add the header {"X-API-Key": "demo-pro"} below (demo accounts, outside production).
${fs.readFileSync(path.join(ROOT, 'operations/company-page.graphql'), 'utf8').replace(/^(#.*\n)+/, '')}`;

/**
 * An access cookie that fails (expired, or signed with a secret since replaced) is HttpOnly: the
 * browser cannot drop it, and it must not lock its holder out of the mutations that replace or
 * clear it. Such a request goes on without a caller; any operation other than those mutations
 * then fails as a whole with the cookie's error, exactly as before.
 */
const staleCookies = new WeakMap<Request, AppError>();
const SESSION_FIELDS = new Set(['login', 'refreshSession', 'logout', '__typename']);

function onlySessionMutations(document: DocumentNode, operationName: string | null | undefined): boolean {
  const op = getOperationAST(document, operationName);
  return op?.operation === 'mutation' && op.selectionSet.selections.every((s) => s.kind === Kind.FIELD && SESSION_FIELDS.has(s.name.value));
}

function useStaleCookieCheck(): Plugin<Context> {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const error = staleCookies.get(args.contextValue.request);
      if (!error || onlySessionMutations(args.document, args.operationName)) return;
      setResultAndStopExecution({ errors: [new GraphQLError(error.message, { extensions: { code: ERRORS[error.code].graphql, http: { status: error.status } } })] });
    },
  };
}

export interface AppDeps {
  /** With auth.jwtSecret set (server.ts fills it in: see credentials/secret.ts). */
  config: Readonly<Config>;
  db: Db;
  /** Shared rate-limit budgets across instances; in memory without it. */
  redis?: Redis | undefined;
  /** The OCR workers; server.ts passes its own to stop them at shutdown. Workers start on first use. */
  ocr?: OcrPool;
  /** What subscriptions listen to; server.ts passes the configured one (Redis with REDIS_URL) and closes it. */
  events?: EventBus;
  /** JSON log lines (server.ts passes its own); by default to stdout at LOG_LEVEL. */
  logger?: Logger;
  /** OpenTelemetry spans per request, when server.ts made a tracer (OTEL_EXPORTER_OTLP_ENDPOINT). */
  tracing?: Tracing | undefined;
  /** True once shutdown began: /readyz answers 503 so load balancers stop sending new work. */
  draining?: () => boolean;
  /** The work this instance runs at once (COST_IN_FLIGHT units by default); tests pass their own. */
  budget?: InFlightBudget;
  /** The bytes of large bodies this instance holds at once (BODY_BYTES_IN_FLIGHT by default); tests pass their own. */
  bodies?: InFlightBudget;
}

type NodeServerContext = { req?: { socket?: { remoteAddress?: string } }; res?: { writableFinished: boolean; destroy(): void } };

/** What the WebSocket transport (graphql/ws.ts) shares with HTTP, so both serve one graph under one policy. */
export interface SocketGateway {
  /** Its schema, plugins and limits apply to operations over WebSocket too. */
  yoga: YogaServerInstance<{ ctx: Context }, Context>;
  /**
   * The context of one WebSocket operation. `request` carries the connection's credentials as an
   * HTTP request would; the caller is authenticated and counted against the rate limit the same
   * way, and the same AppError (UNAUTHENTICATED, RATE_LIMITED ...) is thrown.
   */
  context(request: Request, serverContext: NodeServerContext): Promise<Context>;
}

/**
 * Builds the whole HTTP surface (GraphQL at /graphql, health probes, REST-compatibility paths)
 * as one fetch handler. It listens nowhere: server.ts does that, tests call `app.fetch`.
 */
export function createApp({
  config, db, redis, ocr = new OcrPool(config.ocr), events = memoryEventBus(),
  logger = createLogger(config.observability.logLevel), tracing, draining = () => false,
  budget = new InFlightBudget(config.graphql.costInFlight, config.graphql.costWaitMs),
  bodies = new InFlightBudget(config.graphql.bodyBytesInFlight, config.graphql.costWaitMs, 'large request bodies in flight'),
}: AppDeps) {
  const jwtSecret = config.auth.jwtSecret;
  if (!jwtSecret) throw new Error('createApp needs config.auth.jwtSecret (see credentials/secret.ts)');
  checkServingConfig(config);
  const observability = createObservability({ config, db, ocr, logger, tracing, version: packageVersion });
  const limits = observability.countRejections(createRateLimits(config.auth, redis));
  const callers = new CallerCache(config.auth.callerCacheMs);
  const live = new LiveHub({ config: config.subscriptions, callerCacheMs: config.auth.callerCacheMs, db, callers, logger });
  const sessions: SessionDeps = { db, auth: { ...config.auth, jwtSecret }, limits, callers };
  const cors = createCors(config.auth.corsOrigins);
  const allowList = loadPersistedOperations();
  const rowUnits = new Map<string, number>();
  const work: WorkDeps = {
    budget,
    rowUnits: (type) => rowUnits.get(type) ?? rowUnits.set(type, recordUnits(schema, type, costOptions)).get(type)!,
  };
  const apqStoreBytes = APQ_STORE_DOCUMENTS * config.graphql.apqMaxDocumentBytes;
  if (config.graphql.persistedOnly && allowList.size === 0) throw new Error('GRAPHQL_PERSISTED_ONLY=true needs persisted-operations.json (npm run persist)');

  const yoga = createYoga<{ ctx: Context }, Context>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    // bounded before Yoga sees it (boundedRequest, per caller tier); Yoga's own limit would pipe
    // every body through a TransformStream again
    maxRequestBodySize: false,
    // Yoga's default reflects any Origin with credentials; handle() applies CORS_ORIGINS to every path
    cors: false,
    // GraphiQL builds its editor from introspection
    graphiql: config.graphql.introspection && { title: 'Market data gateway', defaultQuery: COMPANY_PAGE_QUERY, headers: JSON.stringify({ 'X-API-Key': 'demo-pro' }) },
    maskedErrors: { maskError, isDev: config.nodeEnv === 'development' },
    plugins: [
      // first: variables and extensions nested too deep never reach a plugin that walks them
      useInputDepthLimit(),
      // in this order: a hash becomes its document before the guard checks it and the response cache
      // keys on its text; a document refused by the guard never reaches the cache
      usePersistedDocuments({
        allowList,
        store: redis ? redisDocumentStore(redis, apqStoreBytes) : memoryDocumentStore(apqStoreBytes),
        persistedOnly: config.graphql.persistedOnly,
        maxDocumentBytes: config.graphql.apqMaxDocumentBytes,
        // a registration costs one request more per KiB stored, from the caller's own budget
        chargeRegistration: (caller, bytes) => limits.request(caller.userId, caller.tier, Math.ceil(bytes / 1024)),
      }),
      ...guardPlugins(config, budget),
      ...responseCachePlugins({ config: config.graphql, schema, redis }),
      useInputErrorCodes(),
      useRequestErrorStatus(),
      useStaleCookieCheck(),
      observability.yogaPlugin(),
      live.yogaPlugin(sseResponse),
    ],
    context: ({ ctx }) => ctx,
    logging: yogaLogger(logger),
  });

  const openApi = openApiDocument(routes, packageVersion);
  const probes = new Map<string, (request: Request) => Promise<Response> | Response>([
    ['/healthz', () => json({ status: 'ok' })],
    ['/readyz', async () => {
      if (draining()) return json({ status: 'draining', message: 'shutting down: finishing the requests in flight' }, 503);
      return (await databaseAnswers(db)) ? json({ status: 'ready' }) : json({ status: 'unavailable', message: 'the database does not answer' }, 503);
    }],
    ['/metrics', (request) => observability.metrics(request)],
    ['/openapi.json', () => json(openApi)],
  ]);

  function clientIp(request: Request, serverContext: NodeServerContext): string {
    if (config.auth.trustProxy) {
      const forwarded = request.headers.get('x-forwarded-for')?.split(',')[0]?.trim();
      if (forwarded) return forwarded;
    }
    return serverContext.req?.socket?.remoteAddress ?? 'unknown';
  }

  /**
   * Authenticates, refuses the cookie of a page of another site, and counts the request: against
   * the user's budget, or, without a valid caller (none, or a wrong credential), against the
   * client address's. An address that spent its budget cannot have new API keys looked up, so
   * guessing keys is bounded too.
   */
  async function identify(ctx: Context, url: URL): Promise<void> {
    try {
      ctx.caller = await authenticate(ctx.request, url, { db, secret: jwtSecret!, cache: callers, beforeKeyLookup: () => limits.checkAnonymous(ctx.ip) });
    } catch (e) {
      if (e instanceof AppError && e.code === 'UNAUTHENTICATED') await limits.anonymous(ctx.ip);
      throw e;
    }
    if (!ctx.caller) return limits.anonymous(ctx.ip);
    if (ctx.caller.via === 'cookie') checkSite(ctx.request, config.auth.corsOrigins, 'a request authenticated by cookie');
    await limits.request(ctx.caller.userId, ctx.caller.tier);
  }

  async function graphql(ctx: Context, url: URL): Promise<Response> {
    let request: Request;
    let releaseBody: (() => void) | undefined;
    try {
      try {
        await identify(ctx, url);
      } catch (e) {
        if (!(e instanceof AppError && e.code === 'UNAUTHENTICATED' && presentedCredential(ctx.request, url) === 'cookie')) throw e;
        staleCookies.set(ctx.request, e); // see useStaleCookieCheck
      }
      if (ctx.caller?.via === 'cookie') checkNotCrossSite(ctx.request);
      releaseBody = await holdLargeBody(ctx.request, bodies);
      request = await boundedRequest(ctx.request, graphqlBodyLimit(config.graphql, ctx.caller), yoga.fetchAPI.Request);
    } catch (thrown) {
      const e = thrown instanceof AppError ? thrown : isDatabaseUnavailable(thrown) ? databaseUnavailable() : undefined;
      releaseBody?.();
      if (!e) throw thrown;
      observability.failed(ctx, thrown, e);
      // GraphQL clients read errors from the body: keep its shape, with the HTTP status of REST
      return json({ errors: [{ message: e.message, extensions: { code: ERRORS[e.code].graphql } }] }, e.status, e.headers);
    }
    let response: Response;
    try {
      response = await yoga.fetch(request, { ctx });
    } finally {
      releaseBody?.();
    }
    for (const cookie of ctx.responseCookies) response.headers.append('set-cookie', cookie);
    // a subscription over SSE: proxies (nginx) would hold its events back in their buffers
    if (response.headers.get('content-type')?.startsWith('text/event-stream')) response.headers.set('x-accel-buffering', 'no');
    return response;
  }

  const socket: SocketGateway = {
    yoga,
    async context(request, serverContext) {
      const ctx = createContext({ config, db, requestId: randomUUID(), request, ip: clientIp(request, serverContext), sessions, callers, ocr, events, work, live });
      // a browser sends the cookie with a WebSocket any site opens, and no CORS check applies:
      // identify() checks the page's origin as for HTTP
      await identify(ctx, new URL(request.url));
      return ctx;
    },
  };

  async function rest(ctx: Context, url: URL): Promise<Response> {
    for (const route of routes) {
      if (route.method !== ctx.request.method && !(route.method === 'GET' && ctx.request.method === 'HEAD')) continue;
      const params = matchPath(route.path, url.pathname);
      if (!params) continue;
      observability.route(ctx, route.path);
      if (route.access === 'public') await limits.anonymous(ctx.ip);
      else {
        await identify(ctx, url);
        if (route.access === 'authenticated') checkAuthenticated(ctx.caller);
        else checkEntitled(ctx.caller, route.access);
      }
      // a route with a query definition validates it in its handler; one without takes none
      if (!route.doc.query) checkParamNames({}, url.searchParams);
      try {
        const releaseBody = await holdLargeBody(ctx.request, bodies);
        if (releaseBody) ctx.work.held.push(releaseBody);
        return await route.handle(ctx, url, params);
      } finally {
        releaseHeld(ctx);
      }
    }
    await limits.anonymous(ctx.ip); // a scanner's 404s count too
    const known = routes.some((r) => matchPath(r.path, url.pathname));
    if (known) throw new AppError('NOT_FOUND', `${ctx.request.method} is not served at ${url.pathname}`);
    throw new AppError('NOT_FOUND', `no such path: ${ctx.request.method} ${url.pathname}`);
  }

  async function handle(request: Request, serverContext: NodeServerContext): Promise<Response> {
    const requestId = request.headers.get('x-request-id')?.slice(0, 128) || randomUUID();
    const url = new URL(request.url);
    const res = serverContext.res;
    const cutConnection = res && (() => void (res.writableFinished || res.destroy()));
    const ctx = createContext({ config, db, requestId, request, ip: clientIp(request, serverContext), sessions, callers, ocr, events, work, live, cutConnection });
    observability.begin(ctx, url);
    let response: Response;
    try {
      const probe = probes.get(url.pathname);
      const preflight = cors.preflight(request);
      if (preflight) response = preflight;
      else if (probe && (request.method === 'GET' || request.method === 'HEAD')) response = await probe(request);
      else if (url.pathname === '/graphql') response = await graphql(ctx, url);
      else response = await rest(ctx, url);
    } catch (err) {
      const appErr =
        err instanceof AppError ? err
        // Yoga stops executing when the request's signal aborts and throws its reason; anything
        // else thrown stays INTERNAL, even from a request whose client has gone
        : request.signal.aborted && (err === request.signal.reason || (err as Error | undefined)?.name === 'AbortError')
          ? new AppError('CLIENT_CLOSED_REQUEST', 'the client closed the connection before the answer')
        : isDatabaseUnavailable(err) ? databaseUnavailable()
        : new AppError('INTERNAL', 'internal error');
      observability.failed(ctx, err, appErr); // its log line carries the stack of an INTERNAL one
      response = json(errorBody(appErr, requestId), appErr.status, appErr.headers);
    }
    response.headers.set('x-request-id', requestId);
    cors.decorate(request, response);
    observability.finish(ctx, response);
    return response;
  }

  // `socket` rides along on the handler, for graphql/ws.ts
  return createServerAdapter<NodeServerContext, { handle: typeof handle; socket: SocketGateway }>({ handle: (request, serverContext) => inRequestScope(() => handle(request, serverContext)), socket });
}

export type App = ReturnType<typeof createApp>;

/** Bodies up to this many bytes are not counted: every JSON request but an OCR frame. */
const SMALL_BODY_BYTES = 64 * 1024;

/**
 * Holds a large body's bytes in the budget of bodies in flight until its request is answered
 * (read, a JSON string, a decoded image: several copies live meanwhile), so that many concurrent
 * OCR uploads wait or are refused (503) instead of filling the heap. A chunked body, of unknown
 * length, counts as the largest any request may send; the readers refuse more (413). (HTTP/1.1
 * has a body only with one of those two headers; the stream is not touched here.)
 */
async function holdLargeBody(request: Request, bodies: InFlightBudget): Promise<(() => void) | undefined> {
  const declared = request.headers.get('content-length');
  const chunked = /chunked/i.test(request.headers.get('transfer-encoding') ?? '');
  const bytes = declared !== null && /^\d{1,15}$/.test(declared) ? Number(declared) : chunked ? LARGEST_BODY_BYTES : 0;
  if (bytes <= SMALL_BODY_BYTES) return undefined;
  return bodies.acquire(Math.min(bytes, LARGEST_BODY_BYTES));
}
