import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createServerAdapter } from '@whatwg-node/server';
import { getOperationAST, GraphQLError, Kind, type DocumentNode } from 'graphql';
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { Redis } from 'ioredis';
import { authenticate, CallerCache, callerKey, presentedCredential } from './auth/caller.js';
import { checkNotCrossSite, checkSameOrigin } from './auth/csrf.js';
import { checkAuthenticated, checkEntitled } from './auth/entitlements.js';
import { createRateLimits } from './auth/rate-limit.js';
import type { SessionDeps } from './auth/sessions.js';
import { ROOT, type Config } from './config.js';
import { createContext, type Context } from './context.js';
import { isDatabaseUnavailable, type Db } from './db.js';
import { AppError, databaseUnavailable, ERRORS, errorBody } from './errors.js';
import { memoryEventBus, type EventBus } from './events.js';
import { responseCachePlugins } from './graphql-cache.js';
import { maskError, useInputErrorCodes, useRequestErrorStatus } from './graphql-errors.js';
import { boundedRequest, graphqlBodyLimit, guardPlugins } from './graphql-guard.js';
import { loadPersistedOperations, memoryDocumentStore, redisDocumentStore, usePersistedDocuments } from './graphql-persisted.js';
import { createLogger, inRequestScope, yogaLogger, type Logger } from './logger.js';
import { createObservability } from './observability.js';
import { OcrPool } from './ocr/pool.js';
import { openApiDocument, packageVersion } from './rest/openapi.js';
import { routes } from './rest/routes.js';
import { json, matchPath } from './rest/route.js';
import { schema } from './schema/index.js';
import { databaseAnswers } from './services/health.js';
import type { Tracing } from './tracing.js';

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
  /** With auth.jwtSecret set (server.ts fills it in: see auth/secret.ts). */
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
}

type NodeServerContext = { req?: { socket?: { remoteAddress?: string } } };

/** What the WebSocket transport (ws.ts) shares with HTTP, so both serve one graph under one policy. */
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
}: AppDeps) {
  const jwtSecret = config.auth.jwtSecret;
  if (!jwtSecret) throw new Error('createApp needs config.auth.jwtSecret (see auth/secret.ts)');
  const observability = createObservability({ config, db, ocr, logger, tracing, version: packageVersion });
  const limits = observability.countRejections(createRateLimits(config.auth, redis));
  const callers = new CallerCache(config.auth.callerCacheMs);
  const sessions: SessionDeps = { db, auth: { ...config.auth, jwtSecret }, limits };
  const allowList = loadPersistedOperations();
  if (config.graphql.persistedOnly && allowList.size === 0) throw new Error('GRAPHQL_PERSISTED_ONLY=true needs persisted-operations.json (npm run persist)');

  const yoga = createYoga<{ ctx: Context }, Context>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    // bounded before Yoga sees it (boundedRequest, per caller tier); Yoga's own limit would pipe
    // every body through a TransformStream again
    maxRequestBodySize: false,
    // GraphiQL builds its editor from introspection
    graphiql: config.graphql.introspection && { title: 'Market data gateway', defaultQuery: COMPANY_PAGE_QUERY, headers: JSON.stringify({ 'X-API-Key': 'demo-pro' }) },
    maskedErrors: { maskError, isDev: config.nodeEnv === 'development' },
    plugins: [
      // in this order: a hash becomes its document before the response cache keys on the text
      usePersistedDocuments({ allowList, store: redis ? redisDocumentStore(redis) : memoryDocumentStore(), persistedOnly: config.graphql.persistedOnly }),
      ...responseCachePlugins({ config: config.graphql, schema, redis }),
      ...guardPlugins(config),
      useInputErrorCodes(),
      useRequestErrorStatus(),
      useStaleCookieCheck(),
      observability.yogaPlugin(),
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

  /** Authenticates, and counts the request against the caller's rate limit. */
  async function identify(ctx: Context, url: URL): Promise<void> {
    ctx.caller = await authenticate(ctx.request, url, { db, secret: jwtSecret!, cache: callers });
    if (ctx.caller) await limits.request(callerKey(ctx.caller), ctx.caller.tier);
  }

  async function graphql(ctx: Context, url: URL): Promise<Response> {
    let request: Request;
    try {
      try {
        await identify(ctx, url);
      } catch (e) {
        if (!(e instanceof AppError && e.code === 'UNAUTHENTICATED' && presentedCredential(ctx.request, url) === 'cookie')) throw e;
        staleCookies.set(ctx.request, e); // see useStaleCookieCheck
      }
      if (ctx.caller?.via === 'cookie') checkNotCrossSite(ctx.request);
      request = await boundedRequest(ctx.request, graphqlBodyLimit(config.graphql, ctx.caller), yoga.fetchAPI.Request);
    } catch (thrown) {
      const e = thrown instanceof AppError ? thrown : isDatabaseUnavailable(thrown) ? databaseUnavailable() : undefined;
      if (!e) throw thrown;
      observability.failed(ctx, thrown, e);
      // GraphQL clients read errors from the body: keep its shape, with the HTTP status of REST
      return json({ errors: [{ message: e.message, extensions: { code: ERRORS[e.code].graphql } }] }, e.status, e.headers);
    }
    const response = await yoga.fetch(request, { ctx });
    for (const cookie of ctx.responseCookies) response.headers.append('set-cookie', cookie);
    // a subscription over SSE: proxies (nginx) would hold its events back in their buffers
    if (response.headers.get('content-type')?.startsWith('text/event-stream')) response.headers.set('x-accel-buffering', 'no');
    return response;
  }

  const socket: SocketGateway = {
    yoga,
    async context(request, serverContext) {
      const ctx = createContext({ config, db, requestId: randomUUID(), request, ip: clientIp(request, serverContext), sessions, callers, ocr, events });
      await identify(ctx, new URL(request.url));
      // a browser sends the cookie with a WebSocket any site opens, and no CORS check applies
      if (ctx.caller?.via === 'cookie') checkSameOrigin(request);
      return ctx;
    },
  };

  async function rest(ctx: Context, url: URL): Promise<Response> {
    for (const route of routes) {
      if (route.method !== ctx.request.method && !(route.method === 'GET' && ctx.request.method === 'HEAD')) continue;
      const params = matchPath(route.path, url.pathname);
      if (!params) continue;
      observability.route(ctx, route.path);
      if (route.access !== 'public') {
        await identify(ctx, url);
        if (route.access === 'authenticated') checkAuthenticated(ctx.caller);
        else checkEntitled(ctx.caller, route.access);
      }
      return route.handle(ctx, url, params);
    }
    const known = routes.some((r) => matchPath(r.path, url.pathname));
    if (known) throw new AppError('NOT_FOUND', `${ctx.request.method} is not served at ${url.pathname}`);
    throw new AppError('NOT_FOUND', `no such path: ${ctx.request.method} ${url.pathname}`);
  }

  async function handle(request: Request, serverContext: NodeServerContext): Promise<Response> {
    const requestId = request.headers.get('x-request-id')?.slice(0, 128) || randomUUID();
    const url = new URL(request.url);
    const ctx = createContext({ config, db, requestId, request, ip: clientIp(request, serverContext), sessions, callers, ocr, events });
    observability.begin(ctx, url);
    let response: Response;
    try {
      const probe = probes.get(url.pathname);
      if (probe && (request.method === 'GET' || request.method === 'HEAD')) response = await probe(request);
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
    observability.finish(ctx, response);
    return response;
  }

  // `socket` rides along on the handler, for ws.ts
  return createServerAdapter<NodeServerContext, { handle: typeof handle; socket: SocketGateway }>({ handle: (request, serverContext) => inRequestScope(() => handle(request, serverContext)), socket });
}

export type App = ReturnType<typeof createApp>;
