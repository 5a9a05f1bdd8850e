// The GraphQL server: Yoga over the schema, with every plugin of the gateway in the order they
// must run. Its HTTP transport is graphql/http.ts, its WebSocket transport graphql/ws.ts.
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { useIncrementalErrors, useWholeAnswerForJson } from './incremental.js';
import fs from 'node:fs';
import path from 'node:path';
import type { GraphQLSchema } from 'graphql';
import { handleAbortSignalAndPromiseResponse } from '@whatwg-node/server';
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { Redis } from 'ioredis';
import type { Caller } from '../auth/caller.js';
import { useStaleCookieCheck } from '../auth/stale-cookie.js';
import { ROOT, type Config } from '../config.js';
import type { Context } from '../context.js';
import type { Fallbacks } from '../observability/fallbacks.js';
import type { Logger } from '../observability/log.js';
import { yogaLogger } from './logging.js';
import type { InFlightBudget } from '../runtime/in-flight.js';
import { responseCachePlugins } from './cache.js';
import { graphiqlPage } from './graphiql.js';
import { maskError, useInputErrorCodes, useRequestErrorStatus } from './errors.js';
import { guardPlugins } from './guard.js';
import { useRequestParams } from './input.js';
import { usePlannedExecution } from './plan/plugin.js';
import type { LiveHub } from './live.js';
import {
  APQ_STORE_DOCUMENTS,
  loadPersistedOperations,
  memoryDocumentStore,
  redisDocumentStore,
  usePersistedDocuments,
} from './persisted.js';
import { sseResponse } from './sse.js';

/**
 * What GraphiQL opens with: the allow-listed company page (operations/company-page.graphql, the
 * query the README's tour starts from), under a line on how to run it. One document, not a copy.
 */
export const COMPANY_PAGE_QUERY = `# A company page: one security and what links to it. Press Ctrl-Enter to run.
# Requests need a credential: the Headers tab below holds {"X-API-Key": "demo-pro"} (demo accounts, outside production).
${fs.readFileSync(path.join(ROOT, 'operations/company-page.graphql'), 'utf8').replace(/^(#.*\n)+/, '')}`;

export type GraphQLServer = YogaServerInstance<{ ctx: Context }, Context>;

export interface GraphQLServerDeps {
  /** The graph (schema/index.ts), passed in: graphql/ wraps the schema and does not import it. */
  schema: GraphQLSchema;
  config: Readonly<Config>;
  /** Shares the APQ store and the response cache across instances; in memory without it. */
  redis?: Redis | undefined;
  logger: Logger;
  /** The instance's budget of work in flight: an operation holds its cost while it executes (graphql/guard.ts). */
  budget: InFlightBudget;
  live: LiveHub;
  /** Counts an APQ registration of `bytes` against the caller's rate limit (ctx.pacing); throws RATE_LIMITED past it. */
  chargeRegistration(ctx: Context, caller: Caller, bytes: number): Promise<void>;
  /** Operation names and error codes for the request log and metrics (graphql/logging.ts). */
  observe: Plugin<Record<string, unknown>, { ctx?: Context }>;
  /** Where the planner counts the queries it leaves to graphql-js (observability/fallbacks.ts). */
  fallbacks: Fallbacks;
}

export function createGraphQLServer({
  schema,
  config,
  redis,
  logger,
  budget,
  live,
  chargeRegistration,
  observe,
  fallbacks,
}: GraphQLServerDeps): GraphQLServer {
  const allowList = loadPersistedOperations();
  if (config.graphql.persistedOnly && allowList.size === 0)
    throw new Error('GRAPHQL_PERSISTED_ONLY=true needs persisted-operations.json (npm run persist)');
  const apqStoreBytes = APQ_STORE_DOCUMENTS * config.graphql.apqMaxDocumentBytes;
  let core: YogaCore | undefined;
  const yoga = createYoga<{ ctx: Context }, Context>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    // bounded before Yoga sees it (graphql/http.ts, per caller tier); Yoga's own limit would pipe
    // every body through a TransformStream again
    maxRequestBodySize: false,
    // Yoga's default reflects any Origin with credentials; app.ts applies CORS_ORIGINS to every path
    cors: false,
    // GraphiQL builds its editor from introspection; its page loads nothing from outside (graphql/graphiql.ts)
    graphiql: config.graphql.introspection && {
      title: 'Market data gateway',
      defaultQuery: COMPANY_PAGE_QUERY,
      headers: JSON.stringify({ 'X-API-Key': 'demo-pro' }),
    },
    renderGraphiQL: graphiqlPage,
    maskedErrors: { maskError, isDev: config.nodeEnv === 'development' },
    plugins: [
      // first: parameters of the wrong type, or nested too deep, never reach a plugin that reads them
      useRequestParams(),
      // in this order: a hash becomes its document before the guard checks it and the response cache
      // keys on its text; a document refused by the guard never reaches the cache
      usePersistedDocuments({
        allowList,
        store: redis ? redisDocumentStore(redis, apqStoreBytes) : memoryDocumentStore(apqStoreBytes),
        persistedOnly: config.graphql.persistedOnly,
        maxDocumentBytes: config.graphql.apqMaxDocumentBytes,
        chargeRegistration,
      }),
      // before the guard, which holds the cost around it
      ...(config.graphql.planned ? [usePlannedExecution(fallbacks)] : []),
      // a JSON client's @defer answered whole: inside the guard's hold too
      useWholeAnswerForJson(),
      ...guardPlugins(config, budget),
      ...responseCachePlugins({ config: config.graphql, schema, redis }),
      // @defer and @stream: the directives are the schema's (schema/index.ts), this adds their rules
      useDeferStream(),
      useIncrementalErrors(maskError),
      useInputErrorCodes(),
      useRequestErrorStatus(),
      useStaleCookieCheck(),
      observe,
      live.yogaPlugin(sseResponse),
      { onYogaInit: ({ yoga }) => void (core = yoga as unknown as YogaCore) },
    ],
    context: ({ ctx }) => ctx,
    logging: yogaLogger(logger),
  });
  cores.set(yoga, core!);
  return yoga;
}

/** Yoga's own handler of a request, below the adapter (graphql-yoga's YogaServer.handle). */
interface YogaCore {
  handle(request: Request, serverContext: { ctx: Context }): Response | Promise<Response>;
}

const cores = new WeakMap<GraphQLServer, YogaCore>();

/**
 * `yoga.fetch` without @whatwg-node/server's adapter around Yoga: Yoga's own handling (the request
 * parsers, every plugin's hooks from onRequestParse to onResultProcess, masking, the status of
 * errors) without the adapter's onRequest hooks, which answer only what http/direct.ts's gate
 * keeps away: GraphiQL (a GET), Yoga's health check and unknown paths (not /graphql), the response
 * cache's If-None-Match. As with the adapter, a client that closes its connection rejects the
 * answer with the signal's reason (app.ts makes it CLIENT_CLOSED_REQUEST).
 */
export function withoutAdapter(
  yoga: GraphQLServer,
): (request: Request, serverContext: { ctx: Context }) => Promise<Response> {
  const core = cores.get(yoga);
  if (!core) throw new Error('withoutAdapter takes a server made by createGraphQLServer');
  return async (request, serverContext) =>
    handleAbortSignalAndPromiseResponse(core.handle(request, serverContext), request.signal);
}
