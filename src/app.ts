import { randomUUID } from 'node:crypto';
import { createServerAdapter } from '@whatwg-node/server';
import { getOperationAST, GraphQLError, Kind, type DocumentNode } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import type { Redis } from 'ioredis';
import { authenticate, CallerCache, callerKey, presentedCredential } from './auth/caller.js';
import { checkNotCrossSite } from './auth/csrf.js';
import { checkAuthenticated, checkEntitled } from './auth/entitlements.js';
import { createRateLimits } from './auth/rate-limit.js';
import type { SessionDeps } from './auth/sessions.js';
import type { Config } from './config.js';
import { createContext, type Context } from './context.js';
import type { Db } from './db.js';
import { AppError, ERRORS, errorBody } from './errors.js';
import { maskError, useInputErrorCodes } from './graphql-errors.js';
import { OcrPool } from './ocr/pool.js';
import { openApiDocument, packageVersion } from './rest/openapi.js';
import { routes } from './rest/routes.js';
import { json, matchPath } from './rest/route.js';
import { schema } from './schema/index.js';
import { databaseAnswers } from './services/health.js';

/** What GraphiQL opens with: one company page, the query the README's tour starts from. */
export const COMPANY_PAGE_QUERY = `# A company page: one security and what links to it. Press Ctrl-Enter to run.
# Requests need a credential: add the header {"X-API-Key": "demo-pro"} below (demo accounts, outside production).
query CompanyPage($symbol: String = "NVLX") {
  security(symbol: $symbol) {
    symbol
    name
    classification { gics }
    logo { png { url } }
    latestQuote { bidPrice askPrice time }
    latestBalanceSheet { reportingPeriodEnd totalAssets totalLiabilities totalEquity }
    ratings(first: 5) { nodes { firm action rating priceTarget createdAt } }
    news(first: 5) { nodes { headline type createdAt } }
    trades(first: 5) { pageInfo { endCursor hasNextPage } nodes { price size time } }
  }
}
`;

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
}

/**
 * Builds the whole HTTP surface (GraphQL at /graphql, health probes, REST-compatibility paths)
 * as one fetch handler. It listens nowhere: server.ts does that, tests call `app.fetch`.
 */
export function createApp({ config, db, redis, ocr = new OcrPool(config.ocr) }: AppDeps) {
  const jwtSecret = config.auth.jwtSecret;
  if (!jwtSecret) throw new Error('createApp needs config.auth.jwtSecret (see auth/secret.ts)');
  const limits = createRateLimits(config.auth, redis);
  const callers = new CallerCache(config.auth.callerCacheMs);
  const sessions: SessionDeps = { db, auth: { ...config.auth, jwtSecret }, limits };

  const yoga = createYoga<{ ctx: Context }, Context>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    graphiql: { title: 'Market data gateway', defaultQuery: COMPANY_PAGE_QUERY, headers: JSON.stringify({ 'X-API-Key': 'demo-pro' }) },
    maskedErrors: { maskError, isDev: config.nodeEnv === 'development' },
    plugins: [useInputErrorCodes(), useStaleCookieCheck()],
    context: ({ ctx }) => ctx,
    logging: config.nodeEnv === 'test' ? false : 'info',
  });

  const openApi = openApiDocument(routes, packageVersion);
  const probes = new Map<string, () => Promise<Response> | Response>([
    ['/healthz', () => json({ status: 'ok' })],
    ['/readyz', async () => ((await databaseAnswers(db)) ? json({ status: 'ready' }) : json({ status: 'unavailable', message: 'the database does not answer' }, 503))],
    ['/openapi.json', () => json(openApi)],
  ]);

  function clientIp(request: Request, serverContext: { req?: { socket?: { remoteAddress?: string } } }): string {
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
    try {
      try {
        await identify(ctx, url);
      } catch (e) {
        if (!(e instanceof AppError && e.code === 'UNAUTHENTICATED' && presentedCredential(ctx.request, url) === 'cookie')) throw e;
        staleCookies.set(ctx.request, e); // see useStaleCookieCheck
      }
      if (ctx.caller?.via === 'cookie') checkNotCrossSite(ctx.request);
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      // GraphQL clients read errors from the body: keep its shape, with the HTTP status of REST
      return json({ errors: [{ message: e.message, extensions: { code: ERRORS[e.code].graphql } }] }, e.status, e.headers);
    }
    const response = await yoga.fetch(ctx.request, { ctx });
    for (const cookie of ctx.responseCookies) response.headers.append('set-cookie', cookie);
    return response;
  }

  async function rest(ctx: Context, url: URL): Promise<Response> {
    for (const route of routes) {
      if (route.method !== ctx.request.method && !(route.method === 'GET' && ctx.request.method === 'HEAD')) continue;
      const params = matchPath(route.path, url.pathname);
      if (!params) continue;
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

  return createServerAdapter<{ req?: { socket?: { remoteAddress?: string } } }>(async (request, serverContext) => {
    const requestId = request.headers.get('x-request-id')?.slice(0, 128) || randomUUID();
    const url = new URL(request.url);
    const ctx = createContext({ config, db, requestId, request, ip: clientIp(request, serverContext), sessions, callers, ocr });
    let response: Response;
    try {
      const probe = probes.get(url.pathname);
      if (probe && (request.method === 'GET' || request.method === 'HEAD')) response = await probe();
      else if (url.pathname === '/graphql') response = await graphql(ctx, url);
      else response = await rest(ctx, url);
    } catch (err) {
      const appErr = err instanceof AppError ? err : new AppError('INTERNAL', 'internal error');
      if (!(err instanceof AppError)) console.error(JSON.stringify({ level: 'error', requestId, msg: String((err as Error)?.stack ?? err) }));
      response = json(errorBody(appErr, requestId), appErr.status, appErr.headers);
    }
    response.headers.set('x-request-id', requestId);
    return response;
  });
}

export type App = ReturnType<typeof createApp>;
