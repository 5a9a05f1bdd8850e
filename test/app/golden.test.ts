// The golden answers: every REST route and a set of GraphQL documents, asked of the sample data,
// must answer byte for byte what test/app/golden/answers.<database>.json recorded. A refactoring that
// changes any answer fails here; a change of behaviour re-records on purpose, and the diff of the
// JSON file is then the review of what changed:
//
//   GOLDEN_UPDATE=1 npx vitest run test/app/golden.test.ts
//
// The recorded file holds the requests themselves, so a later addition to the schema does not
// change what is asked. Only what differs from run to run is masked: tokens, ids minted by the
// request, the search's own timing.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getNamedType, getNullableType, isAbstractType, isLeafType, isListType, isObjectType } from 'graphql';
import { routes } from '../../src/rest/routes.js';
import { schema } from '../../src/schema/index.js';
import { matchPath } from '../../src/rest/route.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { testDatabases } from '../helpers.js';

interface GoldenRequest {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  key?: string;
  /** A JSON body (REST POST) or a GraphQL request. */
  body?: unknown;
}

interface GoldenAnswer {
  name: string;
  status: number;
  contentType: string | null;
  setCookie?: string[];
  body: string;
}

const DIR = path.join(import.meta.dirname, 'golden');
const UPDATE = process.env.GOLDEN_UPDATE === '1';

const rest = (name: string, p: string, key = 'demo-enterprise'): GoldenRequest => ({
  name,
  method: 'GET',
  path: p,
  key,
});
const gql = (
  name: string,
  query: string,
  variables: Record<string, unknown> = {},
  key = 'demo-enterprise',
): GoldenRequest => ({
  name: `graphql ${name}`,
  method: 'POST',
  path: '/graphql',
  key,
  body: { query, variables },
});

/**
 * Every field of `typeName` that takes no arguments, objects `depth` levels down (lists of them by
 * their ids only); abstract types by their __typename. Used when recording only: the golden file keeps the document text it made.
 */
function all(typeName: string, depth = 1): string {
  const type = schema.getType(typeName);
  if (!isObjectType(type)) throw new Error(`${typeName} is not an object type`);
  const parts: string[] = [];
  for (const field of Object.values(type.getFields())) {
    if (field.args.length > 0) continue;
    const named = getNamedType(field.type);
    if (isLeafType(named)) parts.push(field.name);
    else if (isAbstractType(named)) parts.push(`${field.name} { __typename }`);
    else if (depth > 0 && isListType(getNullableType(field.type)))
      parts.push(`${field.name} { ${'id' in named.getFields() ? 'id' : '__typename'} }`); // lists cost their largest size
    else if (depth > 0) parts.push(`${field.name} { ${all(named.name, depth - 1)} }`);
  }
  return parts.join(' ');
}

const PAGE = 'totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor }';

/** What is asked; recorded into the golden file the first time, read from it afterwards. */
function requests(): GoldenRequest[] {
  return [
    // every REST route, the usual ask and its edges
    rest('logos', '/api/v1/logos?symbols=NVLX,ORBT'),
    rest('logos all', '/api/v1/logos'),
    rest('logos unknown symbol', '/api/v1/logos?symbols=ZZZZ'),
    rest('logos bad symbol', '/api/v1/logos?symbols=bad%20symbol!'),
    rest('balance sheets', '/stocks/v1/fundamentals/balance-sheet?symbols=NVLX&limit=3'),
    rest(
      'balance sheets filtered',
      '/stocks/v1/fundamentals/balance-sheet?symbols=ORBT&timeframe=annual&sort=period_end.desc&limit=2',
    ),
    rest('balance sheets bad sort', '/stocks/v1/fundamentals/balance-sheet?sort=reporting_period_end.desc'),
    rest('balance sheets bad limit', '/stocks/v1/fundamentals/balance-sheet?limit=0'),
    rest('balance sheets free tier', '/stocks/v1/fundamentals/balance-sheet?symbols=NVLX&limit=1', 'demo-free'),
    rest('fundamentals enhanced', '/delivery/api/v1/fundamentals/enhanced?symbol=NVLX&page_size=2'),
    rest(
      'fundamentals enhanced by period',
      '/delivery/api/v1/fundamentals/enhanced?symbol=ORBT&fiscal_period=Q2&page_size=2',
    ),
    rest('fundamentals lite', '/delivery/api/v1/fundamentals/lite?symbol=NVLX&page_size=2'),
    rest('fundamentals lite missing symbol', '/delivery/api/v1/fundamentals/lite'),
    rest('securities by symbol', '/search/api/v1/securities?search=NV&search_type=symbol&per_page=3'),
    rest('securities by figi', '/search/api/v1/securities?q=BBG&search_type=identifiers.figi&per_page=3'),
    rest('securities by gics', '/search/api/v1/securities?q=45&search_type=classification.gics_code&per_page=3'),
    rest('securities page 2', '/search/api/v1/securities?search=A&search_type=symbol&per_page=2&page=2'),
    rest('securities bad type', '/search/api/v1/securities?search=NV&search_type=nope'),
    rest('press releases', '/streamhive/api/v1/data?tickers=NVLX&page_size=2'),
    rest('press releases all', '/streamhive/api/v1/data?page_size=2'),
    rest('ratings', '/rating/api/v1/ratings?symbol=ORBT&page_size=3'),
    rest('ratings page 2', '/rating/api/v1/ratings?page=2&page_size=3'),
    rest('ratings bad page size', '/rating/api/v1/ratings?page_size=101'),
    rest('call summaries', '/delivery/api/v1/summaries?symbol=NVLX&page_size=2'),
    rest('call summaries all', '/delivery/api/v1/summaries?page_size=2'),
    rest('news', '/news/api/v1/news?symbol=NVLX&page_size=3'),
    rest('news bad symbol', '/news/api/v1/news?symbol=bad%20symbol!'),
    rest('trades', '/stocks/v3/trades/NVLX?limit=3'),
    rest('trades ascending', '/stocks/v3/trades/ORBT?limit=3&order=asc'),
    rest('trades bad limit', '/stocks/v3/trades/NVLX?limit=abc'),
    rest('trades unknown symbol', '/stocks/v3/trades/ZZZZ?limit=3'),
    rest('quotes', '/stocks/v3/quotes/ORBT?limit=3'),
    rest('quotes ascending', '/stocks/v3/quotes/NVLX?limit=3&order=asc'),
    rest('quotes free tier', '/stocks/v3/quotes/NVLX?limit=3', 'demo-free'),
    rest('exchanges', '/stocks/v3/reference/exchanges?asset_class=stocks&locale=us'),
    rest('exchanges free tier', '/stocks/v3/reference/exchanges?locale=us', 'demo-free'),
    rest('exchanges of an asset class without any', '/stocks/v3/reference/exchanges?asset_class=crypto'),
    rest('exchanges bad asset class', '/stocks/v3/reference/exchanges?asset_class=bonds'),
    rest('day bars', '/stocks/v2/aggs/ticker/NVLX/range/1/day/2026-11-12/2026-11-20'),
    rest('hour bars, cut by limit', '/stocks/v2/aggs/ticker/ORBT/range/1/hour/2026-11-20/2026-11-20?limit=90'),
    rest('minute bars free tier', '/stocks/v2/aggs/ticker/NVLX/range/1/minute/2026-11-20/2026-11-20', 'demo-free'),
    rest(
      'day bars, splits and dividends',
      '/stocks/v2/aggs/ticker/QNTR/range/1/week/2025-05-26/2025-06-22?adjustment=all',
    ),
    rest('previous close', '/stocks/v2/aggs/ticker/NVLX/prev'),
    rest('grouped daily', '/stocks/v2/aggs/grouped/locale/us/market/stocks/2026-11-20'),
    rest('open and close', '/stocks/v1/open-close/ORBT/2026-11-18'),
    rest('snapshot of a ticker', '/stocks/v2/snapshot/locale/us/markets/stocks/tickers/NVLX'),
    rest('snapshots of tickers', '/stocks/v2/snapshot/locale/us/markets/stocks/tickers?tickers=ORBT,nvlx,ZZZZ'),
    rest('snapshots of every ticker', '/stocks/v2/snapshot/locale/us/markets/stocks/tickers'),
    rest('snapshot unknown ticker', '/stocks/v2/snapshot/locale/us/markets/stocks/tickers/ZZZZ'),
    rest('gainers', '/stocks/v2/snapshot/locale/us/markets/stocks/gainers'),
    rest('losers', '/stocks/v2/snapshot/locale/us/markets/stocks/losers', 'demo-pro'),
    rest('movers bad direction', '/stocks/v2/snapshot/locale/us/markets/stocks/sideways'),
    rest('snapshots free tier', '/stocks/v2/snapshot/locale/us/markets/stocks/gainers', 'demo-free'),
    rest('last trade', '/stocks/v2/last/trade/NVLX'),
    rest('last quote', '/stocks/v2/last/nbbo/ORBT'),
    rest('sma', '/stocks/v1/indicators/sma/NVLX?window=20&limit=3'),
    rest('ema', '/stocks/v1/indicators/ema/NVLX?window=10&limit=3&order=asc&timestamp.gte=2026-10-01'),
    rest('macd hourly', '/stocks/v1/indicators/macd/NVLX?timespan=hour&limit=3', 'demo-pro'),
    rest('rsi', '/stocks/v1/indicators/rsi/NVLX?limit=3&series_type=high'),
    rest('conditions', '/stocks/v3/reference/conditions?data_type=trade&limit=5'),
    rest('ticker types', '/stocks/v3/reference/tickers/types?asset_class=indices'),
    rest('market status', '/stocks/v1/marketstatus/now'),
    rest('market holidays', '/stocks/v1/marketstatus/upcoming'),
    rest('splits', '/stocks/v3/reference/splits?limit=1'),
    rest('dividends of a symbol', '/stocks/v3/reference/dividends?ticker=NVLX&limit=3'),
    rest('ticker events', '/stocks/vX/reference/tickers/ORBT/events'),
    rest('validate', '/kms/api/v1/auth/validate'),
    rest('validate without credentials', '/kms/api/v1/auth/validate', ''),
    {
      name: 'login',
      method: 'POST',
      path: '/kms/api/v1/auth/token',
      body: { email: 'pro@example.com', password: 'demo-password' },
    },
    {
      name: 'login wrong password',
      method: 'POST',
      path: '/kms/api/v1/auth/token',
      body: { email: 'pro@example.com', password: 'wrong-password' },
    },
    { name: 'refresh without cookie', method: 'POST', path: '/kms/api/v1/auth/refresh' },
    { name: 'logout without cookie', method: 'POST', path: '/kms/api/v1/auth/logout' },
    { name: 'ocr without a frame', method: 'POST', path: '/ocr/v1/extract', key: 'demo-enterprise', body: {} },
    rest('unknown route', '/stocks/v9/nothing'),
    // GraphQL: each root field with every field its records have, pages and their cursors, errors
    gql(
      'company page',
      `query($s: String!) { security(symbol: $s) { ${all('Security')} latestBalanceSheet { ${all('BalanceSheet')} }
      ratings(first: 2) { ${PAGE} nodes { ${all('Rating')} } } news(first: 2) { ${PAGE} nodes { ${all('NewsItem')} } }
      pressReleases(first: 1) { ${PAGE} nodes { headline } } callSummaries(first: 1) { ${PAGE} nodes { title } } fundamentals(first: 1) { nodes { year quarter } }
      enhancedFundamentals(first: 1) { nodes { year quarter } } balanceSheets(first: 1) { nodes { reportingPeriodEnd } }
      trades(first: 2) { nodes { price size } } quotes(first: 2) { nodes { bidPrice askPrice } }
      bars(timespan: DAY, from: "2026-11-01T00:00:00Z", to: "2026-12-01T00:00:00Z", first: 3) { nodes { ${all('Bar')} } factors { from to price volume } } } }`,
      { s: 'NVLX' },
    ),
    gql('security by cusip', `{ security(cusip: "000000000") { symbol } }`),
    gql(
      'snapshots and movers',
      `{ snapshots(symbols: ["NVLX", "ZZZZ"]) { ${all('Snapshot')} } movers(direction: LOSERS) { symbol todaysChangePerc day { volume } } }`,
    ),
    gql(
      'securities',
      `{ securities(search: "NV", searchType: SYMBOL, first: 3) { ${PAGE} nodes { ${all('Security')} } } }`,
    ),
    gql(
      'securities by figi',
      `{ securities(search: "BBG", searchType: FIGI, first: 3) { totalCount nodes { symbol name } } }`,
    ),
    gql('logos', `{ logos(first: 3) { ${PAGE} nodes { ${all('Logo')} securities { symbol name } } } }`),
    gql('logos by symbols', `{ logos(symbols: ["NVLX", "ORBT"]) { nodes { symbol companyName } } }`),
    gql(
      'balance sheets',
      `{ balanceSheets(first: 3, filter: { symbols: ["NVLX"] }) { ${PAGE} nodes { ${all('BalanceSheet')} } } }`,
    ),
    gql(
      'balance sheets descending',
      `{ balanceSheets(first: 2, orderBy: { field: PERIOD_END, direction: DESC }) { ${PAGE} nodes { cik symbols reportingPeriodEnd totalAssets } } }`,
    ),
    gql('fundamentals', `{ fundamentals(symbol: "NVLX", first: 2) { ${PAGE} nodes { ${all('Fundamental', 2)} } } }`),
    gql(
      'enhanced fundamentals',
      `{ enhancedFundamentals(symbol: "ORBT", first: 2) { ${PAGE} nodes { ${all('EnhancedFundamental', 3)} } } }`,
    ),
    gql(
      'enhanced fundamentals free tier',
      `{ enhancedFundamentals(symbol: "ORBT", first: 1) { nodes { symbol } } }`,
      {},
      'demo-free',
    ),
    gql('ratings', `{ ratings(first: 3) { ${PAGE} nodes { ${all('Rating')} } } }`),
    gql(
      'ratings filtered',
      `{ ratings(first: 3, filter: { symbol: "ORBT" }) { totalCount nodes { ratingId firm rating } } }`,
    ),
    gql('news', `{ news(symbol: "NVLX", first: 3) { ${PAGE} nodes { ${all('NewsItem')} } } }`),
    gql('press releases', `{ pressReleases(first: 2) { ${PAGE} nodes { ${all('PressRelease', 2)} } } }`),
    gql(
      'press releases by ticker',
      `{ pressReleases(tickers: ["ORBT"], first: 2) { totalCount nodes { pressReleaseId headline } } }`,
    ),
    gql('call summaries', `{ callSummaries(first: 2) { ${PAGE} nodes { ${all('CallSummary', 2)} } } }`),
    gql(
      'trades',
      `{ trades(symbol: "NVLX", first: 3) { pageInfo { hasNextPage endCursor } nodes { ${all('Trade')} } } }`,
    ),
    gql(
      'quotes',
      `{ quotes(symbol: "ORBT", first: 3, order: ASC) { pageInfo { hasNextPage endCursor } nodes { ${all('Quote')} } } }`,
    ),
    gql('exchanges', `{ exchanges(assetClass: STOCKS, locale: US) { ${all('Exchange')} } }`),
    gql('exchanges bad locale', '{ exchanges(locale: EU) { id } }'),
    gql('node', `{ node(id: "U2VjdXJpdHk6MQ==") { id __typename } }`),
    gql('me', '{ me { email username tier } }'),
    gql('service info', '{ serviceInfo { __typename } }'),
    gql('validation error', '{ trades(symbol: "NVLX", first: 3) { nodes { nope } } }'),
    gql('first too large', '{ ratings(first: 100000) { nodes { firm } } }'),
    gql('login', 'mutation { login(email: "free@example.com", password: "demo-password") { __typename } }', {}, ''),
  ];
}

/** Replace what differs from run to run by a stable placeholder. */
function masked(text: string): string {
  return text
    .replace(/eyJ[\w-]+\.[\w-]+\.[\w-]+/g, '<jwt>')
    .replace(/"search_time_ms":\d+/g, '"search_time_ms":0')
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, '<uuid>');
}

async function ask(h: GraphQLHarness, r: GoldenRequest): Promise<GoldenAnswer> {
  const headers: Record<string, string> = {};
  if (r.key) headers['x-api-key'] = r.key;
  if (r.body !== undefined) headers['content-type'] = 'application/json';
  const res = await h.app.fetch(`http://test${r.path}`, {
    method: r.method,
    headers,
    body: r.body === undefined ? undefined : JSON.stringify(r.body),
  });
  const setCookie = res.headers.getSetCookie().map(masked);
  return {
    name: r.name,
    status: res.status,
    contentType: res.headers.get('content-type'),
    ...(setCookie.length ? { setCookie } : {}),
    body: masked(await res.text()),
  };
}

/** A GraphQL query (not a mutation, which would change what the next request sees). */
function isQuery(r: GoldenRequest): boolean {
  const query = (r.body as { query?: unknown } | undefined)?.query;
  return r.path === '/graphql' && r.method === 'POST' && typeof query === 'string' && !/^\s*mutation\b/.test(query);
}

/** The next page a REST answer links to, as one more request (recording only). */
function followed(r: GoldenRequest, a: GoldenAnswer): GoldenRequest | undefined {
  if (r.method !== 'GET' || a.status !== 200) return undefined;
  const next = /"next_url":"([^"]+)"/.exec(a.body)?.[1];
  return next ? { ...r, name: `${r.name}, next page`, path: new URL(next).pathname + new URL(next).search } : undefined;
}

/** Monday 2026-11-23, 10:00 New York: the regular session, the first day after the sample's last. */
const NOW = Date.parse('2026-11-23T15:00:00Z');

describe.each(testDatabases())('the golden answers on $name', (tdb) => {
  const file = path.join(DIR, `answers.${tdb.name}.json`);
  let h: GraphQLHarness;
  beforeAll(async () => {
    const limits = { RATE_LIMIT_FREE: '1000000', RATE_LIMIT_PRO: '1000000' };
    const harness = await graphqlHarness(tdb, limits);
    // the clock fixed the day after the sample's last session: the market's status, today's date
    // and the previous close answer the same whenever the answers are asked
    h = { ...harness, app: harness.appWith(limits, { now: () => NOW }) };
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  it('answers every recorded request byte for byte as recorded', async () => {
    if (UPDATE) {
      const asked: GoldenRequest[] = [];
      const answers: GoldenAnswer[] = [];
      for (const r of requests()) {
        const a = await ask(h, r);
        asked.push(r);
        answers.push(a);
        const next = followed(r, a);
        if (next) {
          asked.push(next);
          answers.push(await ask(h, next));
        }
      }
      fs.mkdirSync(DIR, { recursive: true });
      fs.writeFileSync(file, `${JSON.stringify({ requests: asked, answers }, null, 1)}\n`);
    }
    const golden = JSON.parse(fs.readFileSync(file, 'utf8')) as { requests: GoldenRequest[]; answers: GoldenAnswer[] };
    expect(golden.requests.length).toBeGreaterThan(50);
    let repeated = 0;
    for (const [i, r] of golden.requests.entries()) {
      expect(await ask(h, r), r.name).toEqual(golden.answers[i]);
      // a document's second run (the planner's remembered plan, the response cache's stored answer): the same bytes
      if (isQuery(r)) {
        repeated++;
        expect(await ask(h, r), `${r.name}, run again`).toEqual(golden.answers[i]);
      }
    }
    expect(repeated).toBeGreaterThan(20);
  });

  it('asks something of every REST route', () => {
    const golden = JSON.parse(fs.readFileSync(file, 'utf8')) as { requests: GoldenRequest[] };
    for (const route of routes) {
      const asked = golden.requests.some(
        (r) => r.method === route.method && matchPath(route.path, r.path.split('?')[0]!) !== null,
      );
      expect(asked, `${route.method} ${route.path}`).toBe(true);
    }
  });
});
