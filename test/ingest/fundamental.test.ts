// The fundamentals importer (src/ingest/resources/fundamental.ts) through its contract, parse then
// write: instance A (sample data) answers REST, its records go into an empty B. Derived metrics are
// computed in B from B's own trades and security master; insights come from the record, or from
// filing text when the record carries it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { openDatabase } from '../../src/bootstrap.js';
import type { Db } from '../../src/db/client.js';
import { RejectError, type Importer } from '../../src/ingest/importer.js';
import { importerFor } from '../../src/ingest/registry.js';
import { recomputeDerivedMetrics, type FundamentalInput } from '../../src/services/fundamental-write.js';
import { litigationInsight, mdnaInsight, riskFactorsInsight } from '../../src/domain/insights.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { testConfig, testDatabases } from '../helpers.js';
import { rest } from '../rest/helpers.js';

const ENHANCED = '/delivery/api/v1/fundamentals/enhanced';
const LITE = '/delivery/api/v1/fundamentals/lite';
const PRICE_METRICS = ['pe_ratio', 'price_to_book', 'fcf_yield'];
const BOOK_METRICS = ['debt_to_equity', 'return_on_assets', 'return_on_equity', 'roic'];

const RISK_TEXT = `Risks Related to Our Business

We depend on a limited number of suppliers for critical components.

Some components are available only from single suppliers. A shortage or delay could harm our results and damage our relationships with customers.

Our indebtedness could limit our operating flexibility.

We have debt under our credit facility, whose covenants restrict us. A downgrade could make financing difficult.`;
const MDNA_TEXT =
  'Revenue increased 12% compared to the prior year, driven by strong demand. We expect growth to continue next year.';
const LEGAL_TEXT =
  'Patent suit. In March 2024 a competitor filed a complaint alleging patent infringement.\n\nWe are not a party to any other litigation.';

describe.each(testDatabases())('fundamentals import on $name', (tdb) => {
  let a: GraphQLHarness;
  let b: { db: Db; app: App };
  let importer: Importer<FundamentalInput>;
  let symbols: string[];

  beforeAll(async () => {
    a = await graphqlHarness(tdb);
    // what openDatabase makes of an empty database (migrations, demo accounts), copied from the run's template
    const config = testConfig(
      await tdb.createSeeded('none'),
      { sampleData: 'none' },
      { RATE_LIMIT_ENTERPRISE: '1000000' },
    );
    const db = await openDatabase(config);
    b = { db, app: createApp({ config, db }) };
    importer = (await importerFor('fundamentals')) as Importer<FundamentalInput>;
    symbols = (
      await a.db.prisma.fundamental.findMany({
        distinct: ['symbol'],
        select: { symbol: true },
        orderBy: { symbol: 'asc' },
      })
    ).map((f) => f.symbol);
  });
  afterAll(async () => {
    await a?.close();
    await b?.db.close();
    await tdb.cleanup();
  });

  const write = (records: unknown[]) =>
    importer.write(
      b.db,
      records.map((r) => importer.parse(r)),
    );
  const enhancedOf = async (app: { app: App }, symbol: string) => {
    const r = await rest(app, `${ENHANCED}?symbol=${symbol}&page_size=100`);
    expect(r.status).toBe(200);
    return r.body;
  };
  const stamps = async (symbol: string) =>
    (
      await b.db.prisma.fundamental.findMany({ where: { symbol }, orderBy: { id: 'asc' }, include: { metrics: true } })
    ).map((f) => [f.updatedAt.toISOString(), f.metrics?.updatedAt.toISOString()]);

  async function copySecurity(symbol: string) {
    const { isinHistory, ...security } = (await a.db.prisma.security.findFirst({ where: { symbol } }))!;
    await b.db.prisma.security.create({ data: { ...security, ...(isinHistory !== null && { isinHistory }) } });
  }
  async function copyLatestTrade(symbol: string) {
    const { conditions, ...trade } = (await a.db.prisma.trade.findFirst({
      where: { symbol },
      orderBy: [{ sipTimestamp: 'desc' }, { sequenceNumber: 'desc' }],
    }))!;
    await b.db.prisma.trade.create({ data: { ...trade, conditions: conditions as number[] } });
  }

  it("imports A's enhanced answer into an empty B; a rerun changes nothing; with A's last trade and security B answers as A", async () => {
    const symbol = symbols[0]!;
    const answer = await enhancedOf(a, symbol);
    const records = importer.recordsOf(answer)!;
    expect(records).toHaveLength(answer.pagination.hits);
    expect(await write(records)).toEqual({ inserted: records.length, updated: 0, unchanged: 0 });

    // statements, insights and timestamps as A has them; derived metrics from what B knows: no
    // trade, no security, so no price-based metric, while the balance-sheet ratios agree
    const first = await enhancedOf(b, symbol);
    expect(first.pagination).toEqual(answer.pagination);
    for (const [i, rec] of first.data.entries()) {
      const want = answer.data[i];
      for (const key of Object.keys(want)) {
        if (PRICE_METRICS.includes(key) || key === 'revenue_per_employee') expect(rec[key], key).toBeNull();
        else expect(rec[key], key).toEqual(want[key]);
      }
      for (const key of BOOK_METRICS) expect(rec[key], key).not.toBeNull();
    }

    const before = await stamps(symbol);
    expect(await write(records)).toEqual({ inserted: 0, updated: 0, unchanged: records.length });
    expect(await stamps(symbol)).toEqual(before);

    await copySecurity(symbol);
    await copyLatestTrade(symbol);
    expect(await recomputeDerivedMetrics(b.db, [symbol])).toEqual({ updated: records.length, unchanged: 0 });
    expect(await enhancedOf(b, symbol)).toEqual(answer);
    // derived metrics follow the market: the record's updated_at stays, only the metrics row moves
    expect((await stamps(symbol)).map(([record]) => record)).toEqual(before.map(([record]) => record));
    expect(await recomputeDerivedMetrics(b.db, [symbol])).toEqual({ updated: 0, unchanged: records.length });
    expect(await write(records)).toEqual({ inserted: 0, updated: 0, unchanged: records.length });
  });

  it("A's sample metrics are exactly what the formulas give on A's own trades and security master", async () => {
    const count = await a.db.prisma.fundamentalMetrics.count();
    expect(count).toBeGreaterThan(0);
    expect(await recomputeDerivedMetrics(a.db)).toEqual({ updated: 0, unchanged: count });
  });

  it('a lite record takes its CIK from the security master; its insights are null until filing text arrives', async () => {
    const symbol = symbols[1]!;
    const lite = (await rest(a, `${LITE}?symbol=${symbol}&page_size=100`)).body as Record<string, unknown>[];
    expect(importer.recordsOf(lite)).toBe(lite);
    await expect(write(lite)).rejects.toThrow(
      new RegExp(`^cik: ${symbol} \\d{4} (Q[1-4]|FY) carries no cik and the security master has none for ${symbol}`),
    );
    expect(await b.db.prisma.fundamental.count({ where: { symbol } })).toBe(0); // the batch rolled back

    await copySecurity(symbol);
    expect(await write(lite)).toEqual({ inserted: lite.length, updated: 0, unchanged: 0 });
    const stored = await enhancedOf(b, symbol);
    const cik = (await a.db.prisma.security.findFirst({ where: { symbol } }))!.cik;
    for (const rec of stored.data) {
      expect(rec).toMatchObject({
        symbol,
        cik,
        risk_factors: null,
        mdna: null,
        litigation_mentions: null,
        pe_ratio: null,
      });
      expect(rec.revenue_per_employee).not.toBeNull();
    }
    const res = await b.app.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'demo-enterprise' },
      body: JSON.stringify({
        query: `{ enhancedFundamentals(symbol: "${symbol}", first: 1) { nodes { metrics { peRatio debtToEquity } riskFactors { count } mdna { toneScore } litigationMentions { count } } } }`,
      }),
    });
    const graph = (await res.json()) as { data: any; errors?: unknown };
    expect(graph.errors).toBeUndefined();
    expect(graph.data.enhancedFundamentals.nodes[0]).toEqual({
      metrics: { peRatio: null, debtToEquity: stored.data[0].debt_to_equity },
      riskFactors: null,
      mdna: null,
      litigationMentions: null,
    });

    // the newest record again, now with its filing text: the insights are computed from it
    const newest = lite[0]!;
    const withText = {
      ...newest,
      risk_factors_text: RISK_TEXT,
      mdna_text: MDNA_TEXT,
      legal_proceedings_text: LEGAL_TEXT,
    };
    const [before] = (await enhancedOf(b, symbol)).data;
    expect(await write([withText])).toEqual({ inserted: 0, updated: 1, unchanged: 0 });
    const [after] = (await enhancedOf(b, symbol)).data;
    const risk = riskFactorsInsight(RISK_TEXT);
    const mdna = mdnaInsight(MDNA_TEXT);
    expect(risk).toMatchObject({ count: 2, topThemes: ['supply chain', 'indebtedness', 'capital markets access'] });
    expect(after.risk_factors).toEqual({
      count: risk.count,
      top_themes: risk.topThemes,
      average_sentiment_score: risk.averageSentimentScore,
      most_negative_risk: { heading: risk.mostNegativeRisk!.heading, sentiment: risk.mostNegativeRisk!.sentiment },
    });
    expect(after.risk_factors.average_sentiment_score).toBeLessThan(0);
    expect(after.mdna).toEqual({
      forward_looking_term_count: mdna.forwardLookingTermCount,
      forward_to_historical_ratio: 1,
      tone_score: 1,
      key_topics: mdna.keyTopics,
    });
    expect(after.litigation_mentions).toEqual({ count: 1, recent_headings: ['Patent suit.'] });
    expect(litigationInsight(LEGAL_TEXT).count).toBe(1);
    expect(Date.parse(after.updated_at)).toBeGreaterThan(Date.parse(before.updated_at));
    expect(after.created_at).toBe(before.created_at);

    // the same text again, or the record without text or insight objects: nothing changes
    const unchanged = await stamps(symbol);
    expect(await write([withText])).toEqual({ inserted: 0, updated: 0, unchanged: 1 });
    expect(await write([newest])).toEqual({ inserted: 0, updated: 0, unchanged: 1 });
    expect(await stamps(symbol)).toEqual(unchanged);
    expect((await enhancedOf(b, symbol)).data[0]).toEqual(after);

    // an enhanced record's own insight objects replace the stored ones; null clears a group
    const enhanced = { ...after, risk_factors: null, litigation_mentions: { count: 2, recent_headings: ['A', 'B'] } };
    expect(await write([enhanced])).toEqual({ inserted: 0, updated: 1, unchanged: 0 });
    const [replaced] = (await enhancedOf(b, symbol)).data;
    expect(replaced).toMatchObject({
      risk_factors: null,
      mdna: after.mdna,
      litigation_mentions: { count: 2, recent_headings: ['A', 'B'] },
    });
  });

  it('a changed statement line updates the record; of equal keys in a batch the last wins', async () => {
    const symbol = symbols[1]!;
    const [newest] = (await rest(b, `${LITE}?symbol=${symbol}&page_size=1`)).body as Record<string, any>[];
    const changed = { ...newest, Revenue: newest!.Revenue + 1000 };
    expect(await write([changed, { ...changed, Revenue: newest!.Revenue + 2000 }])).toEqual({
      inserted: 0,
      updated: 1,
      unchanged: 1,
    });
    const [stored] = (await rest(b, `${ENHANCED}?symbol=${symbol}&page_size=1`)).body.data;
    expect(stored.Revenue).toBe(newest!.Revenue + 2000);
    expect(stored.revenue_per_employee).not.toBeNull();
  });

  it('rejects a malformed record naming the field, the rule and the value', async () => {
    const [lite] = (await rest(a, `${LITE}?symbol=${symbols[0]}&page_size=1`)).body as Record<string, unknown>[];
    const [enhanced] = (await enhancedOf(a, symbols[0]!)).data as Record<string, any>[];
    const without = (rec: Record<string, unknown>, key: string) =>
      Object.fromEntries(Object.entries(rec).filter(([k]) => k !== key));
    const cases: [unknown, string][] = [
      ['a string', 'the record must be a JSON object, got "a string"'],
      [without(lite!, 'Revenue'), 'Revenue: must be a number, got nothing (the field is missing)'],
      [{ ...lite, Revenue: '12' }, 'Revenue: must be a number, got "12"'],
      [{ ...lite, TotalAssets: null }, 'TotalAssets: must be a number, got null'],
      [{ ...lite, Quarter: 'Q5' }, 'Quarter: must be one of Q1, Q2, Q3, Q4, FY, got "Q5"'],
      [{ ...lite, Year: 1800 }, 'Year: must be an integer from 1900 to 2100, got 1800'],
      [{ ...lite, Year: 2024.5 }, 'Year: must be an integer from 1900 to 2100, got 2024.5'],
      [{ ...lite, EndPeriod: '2024-02-30' }, 'EndPeriod: must be a date yyyy-mm-dd, got "2024-02-30"'],
      [without(lite!, 'ticker'), 'symbol (or ticker): must be a non-empty string, got nothing (the field is missing)'],
      [
        { ...lite, ticker: 'NOT A SYMBOL!' },
        'ticker: must be 1 to 20 characters from A-Z 0-9 . -, got "NOT A SYMBOL!"',
      ],
      [
        { ...lite, symbol: 'OTHER' },
        `symbol: must be the same as ticker ("${lite!.ticker}") when a record has both, got "OTHER"`,
      ],
      [without(enhanced!, 'cik'), 'cik: must be a CIK of 1 to 10 digits, got nothing (the field is missing)'],
      [{ ...lite, cik: '12-34' }, 'cik: must be a CIK of 1 to 10 digits, got "12-34"'],
      [
        { ...enhanced, risk_factors: { ...enhanced!.risk_factors, count: -1 } },
        'risk_factors.count: must be an integer from 0 to 2147483647, got -1',
      ],
      [
        { ...enhanced, risk_factors: { ...enhanced!.risk_factors, top_themes: ['a', 2] } },
        'risk_factors.top_themes[1]: must be a string, got 2',
      ],
      [
        { ...enhanced, mdna: { ...enhanced!.mdna, tone_score: 2 } },
        'mdna.tone_score: must be a score from -1 to 1, got 2',
      ],
      [{ ...enhanced, litigation_mentions: 'none' }, 'litigation_mentions: must be an object, got "none"'],
      [{ ...lite, risk_factors_text: 42 }, 'risk_factors_text: must be a string, got 42'],
      [
        { ...enhanced, updated_at: 'yesterday' },
        'updated_at: must be an ISO 8601 timestamp such as 2026-01-31T14:30:00Z, got "yesterday"',
      ],
    ];
    for (const [record, reason] of cases) {
      let error: unknown;
      try {
        importer.parse(record);
      } catch (e) {
        error = e;
      }
      expect(error, reason).toBeInstanceOf(RejectError);
      expect((error as RejectError).reason).toBe(reason);
    }
    // what the legacy record allows: CommitmentsContingencies null or absent, unknown fields, a lower-case symbol
    expect(importer.parse({ ...lite, CommitmentsContingencies: null, extra: 1 }).commitmentsContingencies).toBeNull();
    expect(importer.parse(without(lite!, 'CommitmentsContingencies')).commitmentsContingencies).toBeNull();
    expect(importer.parse({ ...lite, ticker: String(lite!.ticker).toLowerCase() }).symbol).toBe(lite!.ticker);
  });

  it('recordsOf unwraps an enhanced body and takes a lite body as it is; anything else is one record', async () => {
    expect(importer.recordsOf({ data: [1, 2], message: 'OK' })).toEqual([1, 2]);
    expect(importer.recordsOf([3])).toEqual([3]);
    expect(importer.recordsOf({ ticker: 'X' })).toBeNull();
  });
});
