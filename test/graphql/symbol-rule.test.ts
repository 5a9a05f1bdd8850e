// The symbol rule (src/domain/symbols.ts) at every entry point: each GraphQL argument that names
// symbols, queries and subscriptions alike, answers a value the rule refuses with one
// BAD_USER_INPUT error naming the argument and the value, as the REST twins answer 400 (test/rest/*)
// and the import rejects the record. The schema is walked for such arguments, so a new one without
// a case here fails.
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { getNamedType, isInputObjectType, isObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importStream } from '../../src/ingest/import-stream.js';
import { importerFor } from '../../src/ingest/registry.js';
import { schema } from '../../src/schema/index.js';
import { testDatabases } from '../helpers.js';
import { expectBadUserInput, graphqlHarness, type GraphQLHarness } from './helpers.js';
import { fetchOf, ndjson, sse } from './subscription-helpers.js';

const BAD = 'bad symbol!';
const NAMES_SYMBOLS = /^(symbol|symbols|tickers?)$/;

/** Every argument (or input field of an argument) of the schema that names symbols: `Type.field.argument[.inputField]`. */
function symbolArguments(): string[] {
  const found: string[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      for (const arg of field.args) {
        const at = `${type.name}.${field.name}.${arg.name}`;
        if (NAMES_SYMBOLS.test(arg.name)) found.push(at);
        const input = getNamedType(arg.type);
        if (isInputObjectType(input))
          for (const name of Object.keys(input.getFields())) if (NAMES_SYMBOLS.test(name)) found.push(`${at}.${name}`);
      }
    }
  }
  return found.sort();
}

/** For each: the document with the bad value, the root field it answers on, and the argument as the error names it. */
const QUERIES: Record<string, [document: string, field: string, argument: string]> = {
  'Query.trades.symbol': [`{ trades(symbol: "${BAD}") { nodes { price } } }`, 'trades', 'symbol'],
  'Query.quotes.symbol': [`{ quotes(symbol: "${BAD}") { nodes { bidPrice } } }`, 'quotes', 'symbol'],
  'Query.trades.symbols': [`{ trades(symbols: ["NVLX", "${BAD}"]) { nodes { price } } }`, 'trades', 'symbols'],
  'Query.quotes.symbols': [`{ quotes(symbols: ["NVLX", "${BAD}"]) { nodes { bidPrice } } }`, 'quotes', 'symbols'],
  'Query.securitiesBySymbols.symbols': [
    `{ securitiesBySymbols(symbols: ["NVLX", "${BAD}"]) { symbol } }`,
    'securitiesBySymbols',
    'symbols[1]',
  ],
  'Query.snapshots.symbols': [`{ snapshots(symbols: ["NVLX", "${BAD}"]) { symbol } }`, 'snapshots', 'symbols[1]'],
  // bars, trades and every other edge of a security are reached through it
  'Query.security.symbol': [
    `{ security(symbol: "${BAD}") { symbol bars(timespan: DAY, from: "2026-01-01T00:00:00Z", to: "2026-02-01T00:00:00Z") { nodes { close } } trades(first: 1) { nodes { price } } } }`,
    'security',
    'symbol',
  ],
  'Query.news.symbol': [`{ news(symbol: "${BAD}") { nodes { headline } } }`, 'news', 'symbol'],
  'Query.fundamentals.symbol': [`{ fundamentals(symbol: "${BAD}") { nodes { symbol } } }`, 'fundamentals', 'symbol'],
  'Query.enhancedFundamentals.symbol': [
    `{ enhancedFundamentals(symbol: "${BAD}") { nodes { symbol } } }`,
    'enhancedFundamentals',
    'symbol',
  ],
  'Query.callSummaries.symbol': [`{ callSummaries(symbol: "${BAD}") { nodes { title } } }`, 'callSummaries', 'symbol'],
  'Query.logos.symbols': [`{ logos(symbols: ["NVLX", "${BAD}"]) { nodes { symbol } } }`, 'logos', 'symbols'],
  'Query.pressReleases.tickers': [
    `{ pressReleases(tickers: ["${BAD}"]) { nodes { headline } } }`,
    'pressReleases',
    'tickers',
  ],
  'Query.ratings.filter.symbol': [
    `{ ratings(filter: { symbol: ["${BAD}"] }) { nodes { firm } } }`,
    'ratings',
    'filter.symbol',
  ],
  'Query.balanceSheets.filter.symbols': [
    `{ balanceSheets(filter: { symbols: ["${BAD}"] }) { nodes { cik } } }`,
    'balanceSheets',
    'filter.symbols',
  ],
  'Query.splits.ticker': [`{ splits(ticker: "${BAD}") { nodes { splitId } } }`, 'splits', 'ticker'],
  'Query.dividends.ticker': [`{ dividends(ticker: "${BAD}") { nodes { dividendId } } }`, 'dividends', 'ticker'],
};

const SUBSCRIPTIONS: Record<string, [document: string, argument: string]> = {
  'Subscription.tradeAdded.symbol': [`subscription { tradeAdded(symbol: "${BAD}") { price } }`, 'symbol'],
  'Subscription.quoteAdded.symbol': [`subscription { quoteAdded(symbol: "${BAD}") { bidPrice } }`, 'symbol'],
  'Subscription.tradeAdded.symbols': [`subscription { tradeAdded(symbols: ["NVLX", "${BAD}"]) { price } }`, 'symbols'],
  'Subscription.quoteAdded.symbols': [
    `subscription { quoteAdded(symbols: ["NVLX", "${BAD}"]) { bidPrice } }`,
    'symbols',
  ],
  'Subscription.newsAdded.symbol': [`subscription { newsAdded(symbol: "${BAD}") { headline } }`, 'symbol'],
  'Subscription.pressReleaseAdded.tickers': [
    `subscription { pressReleaseAdded(tickers: ["NVLX", "${BAD}"]) { headline } }`,
    'tickers',
  ],
};

describe.each(testDatabases())('the symbol rule on $name', (tdb) => {
  let h: GraphQLHarness;
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  it('every argument that names symbols has a case here', () => {
    expect(symbolArguments()).toEqual([...Object.keys(QUERIES), ...Object.keys(SUBSCRIPTIONS)].sort());
  });

  it.each(Object.entries(QUERIES))(
    '%s: a bad symbol is one BAD_USER_INPUT naming the argument and the value',
    async (_at, [document, field, argument]) => {
      const result = await h.gql(document);
      expectBadUserInput(result, `"${argument}"`, JSON.stringify(BAD));
      expect(result.errors![0]!.path).toEqual([field]);
      expect(result.data?.[field]).toBeNull();
    },
  );

  it.each(Object.entries(SUBSCRIPTIONS))(
    '%s: a bad symbol is one BAD_USER_INPUT naming the argument and the value',
    async (_at, [document, argument]) => {
      const stream = await sse(fetchOf(h.app), 'http://test', document, { 'x-api-key': 'demo-enterprise' });
      const { data, errors } = await stream.next();
      expect(data).toBeUndefined();
      expectBadUserInput({ status: 200, errors }, `"${argument}"`, JSON.stringify(BAD));
      await stream.completed();
    },
  );

  it('a valid symbol is one whatever its case or surrounding blanks, at the root fields as at the others', async () => {
    const symbol = (await h.db.prisma.trade.findFirst({ orderBy: { symbol: 'asc' } }))!.symbol;
    const as = (s: string) =>
      h.gql(
        `query($s: String!) { trades(symbol: $s, first: 3) { nodes { id } } quotes(symbol: $s, first: 3) { nodes { id } } security(symbol: $s) { id } }`,
        { s },
      );
    const exact = await as(symbol);
    expect(exact.errors).toBeUndefined();
    expect(exact.data.trades.nodes).toHaveLength(3);
    expect(await as(` ${symbol.toLowerCase()} `)).toEqual(exact);
    const sheets = (s: string) =>
      h.gql(`query($s: [String!]) { balanceSheets(filter: { symbols: $s }, first: 3) { nodes { id } } }`, { s: [s] });
    const listed = (await h.db.prisma.balanceSheetSymbol.findFirst({ orderBy: { symbol: 'asc' } }))!.symbol;
    const upper = await sheets(listed);
    expect(upper.data.balanceSheets.nodes.length).toBeGreaterThan(0);
    expect(await sheets(listed.toLowerCase())).toEqual(upper);
  });

  it('the import rejects a record whose symbol the rule refuses, and stores the others as filters ask for them', async () => {
    const importer = await importerFor('ratings');
    const rating = (id: number, ticker: string) => ({
      id,
      firm: 'Test Research',
      ticker,
      exchange: 'NASDAQ',
      company: 'Test Co',
      action: 'Maintains',
      rating: 'Buy',
      price_target: '$10.00',
      story: 'A story.',
      is_rating: true,
      created_at: '2026-11-20T14:30:00Z',
      updated_at: '2026-11-20T14:30:00Z',
    });
    const [bad, lower] = [2_000_000_001, 2_000_000_002];
    const ticker = `Z${randomUUID().slice(0, 6)}`.toUpperCase();
    const result = await importStream(h.db, importer, {
      stream: Readable.from([ndjson([rating(bad, BAD), rating(lower, ` ${ticker.toLowerCase()} `)])]),
    });
    expect(result.rejects.map((r) => r.reason)).toEqual([
      `ticker: must be 1 to 20 characters from A-Z 0-9 . -, got ${JSON.stringify(BAD)}`,
    ]);
    const served = await h.gql(
      `query($s: [String!]) { ratings(filter: { symbol: $s }) { nodes { ratingId ticker } } }`,
      { s: [ticker.toLowerCase()] },
    );
    expect(served.data.ratings.nodes).toEqual([{ ratingId: lower, ticker }]);
  });
});
