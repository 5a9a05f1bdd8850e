import { randomUUID } from 'node:crypto';
import { createServerAdapter } from '@whatwg-node/server';
import { createYoga } from 'graphql-yoga';
import type { Config } from './config.js';
import { createContext, type Context } from './context.js';
import { maskError, useInputErrorCodes } from './graphql-errors.js';
import type { Db } from './db.js';
import { AppError, errorBody } from './errors.js';
import { schema } from './schema/index.js';
import { databaseAnswers } from './services/health.js';

/** What GraphiQL opens with: one company page, the query the README's tour starts from. */
export const COMPANY_PAGE_QUERY = `# A company page: one security and what links to it. Press Ctrl-Enter to run.
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

export interface AppDeps {
  config: Readonly<Config>;
  db: Db;
}

type Handler = (request: Request, requestId: string) => Promise<Response> | Response;

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } });
}

/**
 * Builds the whole HTTP surface (GraphQL at /graphql, health probes, REST-compatibility paths)
 * as one fetch handler. It listens nowhere: server.ts does that, tests call `app.fetch`.
 */
export function createApp({ config, db }: AppDeps) {
  const yoga = createYoga<{ requestId: string }, Context>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    graphiql: { title: 'Market data gateway', defaultQuery: COMPANY_PAGE_QUERY },
    maskedErrors: { maskError, isDev: config.nodeEnv === 'development' },
    plugins: [useInputErrorCodes()],
    context: ({ requestId }): Context => createContext(config, db, requestId),
    logging: config.nodeEnv === 'test' ? false : 'info',
  });

  const routes = new Map<string, Handler>([
    ['GET /healthz', () => json({ status: 'ok' })],
    [
      'GET /readyz',
      async () => ((await databaseAnswers(db)) ? json({ status: 'ready' }) : json({ status: 'unavailable', message: 'the database does not answer' }, 503)),
    ],
  ]);

  return createServerAdapter<Record<string, unknown>>(async (request) => {
    const requestId = request.headers.get('x-request-id')?.slice(0, 128) || randomUUID();
    const { pathname } = new URL(request.url);
    let response: Response;
    try {
      if (pathname === '/graphql') {
        response = await yoga.fetch(request, { requestId });
      } else {
        const route = routes.get(`${request.method === 'HEAD' ? 'GET' : request.method} ${pathname}`);
        if (!route) throw new AppError('NOT_FOUND', `no such path: ${request.method} ${pathname}`);
        response = await route(request, requestId);
      }
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
