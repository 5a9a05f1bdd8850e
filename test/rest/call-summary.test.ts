import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallSummary, Prisma } from '../../generated/prisma/client.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { testDatabases } from '../helpers.js';
import { expectBadParam, rest } from './helpers.js';

// The summary record as docs/rest.md#the-conference-call-summary-record writes it: `guidance` is the one optional key.
const REQUIRED_KEYS = [
  'id',
  'symbol',
  'company_name',
  'call_date',
  'fiscal_year',
  'fiscal_period',
  'title',
  'summary',
  'key_points',
  'sentiment_score',
  'participants',
  'created_at',
  'updated_at',
];
const OPTIONAL_KEYS = ['guidance'];
const PARTICIPANT_KEYS = ['name', 'organization', 'role'];
const sorted = (keys: readonly string[]) => [...keys].sort();

const PATH = '/delivery/api/v1/summaries';
const NEWEST_FIRST = [{ callDate: 'desc' as const }, { id: 'desc' as const }];
/** The legacy API's `YYYY-MM-DDTHH:MM:SS` (UTC) for a stored time (the sample's calls fall on whole seconds). */
const isoSeconds = (d: Date) => d.toISOString().slice(0, 19);

/** A stored summary as the endpoint writes it. */
function wire(row: CallSummary) {
  return {
    id: row.id,
    symbol: row.symbol,
    company_name: row.companyName,
    call_date: row.callDate.toISOString(),
    fiscal_year: row.fiscalYear,
    fiscal_period: row.fiscalPeriod,
    title: row.title,
    summary: row.summary,
    key_points: row.keyPoints,
    ...(row.guidance === null ? {} : { guidance: row.guidance }),
    sentiment_score: row.sentimentScore,
    participants: row.participants,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

describe.each(testDatabases())('REST conference-call summaries on $name', (tdb) => {
  let h: GraphQLHarness;
  let all: CallSummary[];
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
    all = await h.db.prisma.callSummary.findMany({ orderBy: NEWEST_FIRST });
    expect(all.length).toBeGreaterThan(100);
    expect(all.every((r) => r.callDate.getUTCMilliseconds() === 0)).toBe(true);
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  it('the default page is the 10 newest calls, with the envelope and record keys of docs/rest.md', async () => {
    const r = await rest(h, PATH);
    expect(r.status).toBe(200);
    expect(sorted(Object.keys(r.body))).toEqual(['data', 'message', 'pagination']);
    expect(r.body.message).toBe('OK');
    expect(r.body.pagination).toEqual({
      hits: all.length,
      page: 1,
      page_count: Math.ceil(all.length / 10),
      page_size: 10,
    });
    expect(r.body.data).toEqual(all.slice(0, 10).map(wire));
  });

  it('each record has exactly the documented keys; guidance is omitted (not null) when the call gave none', async () => {
    const r = await rest(h, `${PATH}?page_size=100`);
    let withGuidance = 0;
    let without = 0;
    for (const [i, rec] of r.body.data.entries()) {
      const keys = Object.keys(rec);
      expect(
        keys.every((k) => REQUIRED_KEYS.includes(k) || OPTIONAL_KEYS.includes(k)),
        keys.join(),
      ).toBe(true);
      expect(REQUIRED_KEYS.every((k) => keys.includes(k))).toBe(true);
      if ('guidance' in rec) {
        expect(typeof rec.guidance).toBe('string');
        withGuidance++;
      } else {
        expect(all[i]!.guidance).toBeNull();
        without++;
      }
      expect(rec.call_date).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(rec.key_points.length).toBeGreaterThan(0);
      for (const k of rec.key_points) expect(typeof k).toBe('string');
      expect(rec.sentiment_score).toBeGreaterThanOrEqual(-1);
      expect(rec.sentiment_score).toBeLessThanOrEqual(1);
      for (const p of rec.participants) expect(sorted(Object.keys(p))).toEqual(PARTICIPANT_KEYS);
    }
    expect(withGuidance).toBeGreaterThan(0);
    expect(without).toBeGreaterThan(0);
    expect(r.text).not.toContain('"guidance":null');
  });

  it('symbol, from and to filter (bounds inclusive, symbol case-insensitive), alone and together', async () => {
    const symbol = all[5]!.symbol;
    const from = all[80]!.callDate;
    const to = all[20]!.callDate;
    const cases: [string, Prisma.CallSummaryWhereInput][] = [
      [`symbol=${symbol.toLowerCase()}`, { symbol }],
      [`from=${isoSeconds(from)}`, { callDate: { gte: from } }],
      [`to=${isoSeconds(to)}`, { callDate: { lte: to } }],
      [`from=${isoSeconds(from)}&to=${isoSeconds(to)}`, { callDate: { gte: from, lte: to } }],
      [`from=${isoSeconds(to)}&to=${isoSeconds(to)}`, { callDate: to }],
      // a zone may be given; without one the time is UTC
      [`from=${encodeURIComponent(from.toISOString())}`, { callDate: { gte: from } }],
      [
        `to=${encodeURIComponent(`${isoSeconds(new Date(to.getTime() + 2 * 3_600_000))}+02:00`)}`,
        { callDate: { lte: to } },
      ],
      [`symbol=${symbol}&from=${isoSeconds(from)}`, { symbol, callDate: { gte: from } }],
      ['symbol=NOSUCH', { symbol: 'NOSUCH' }],
    ];
    for (const [q, where] of cases) {
      const want = (await h.db.prisma.callSummary.findMany({ where, orderBy: NEWEST_FIRST, select: { id: true } })).map(
        (r) => r.id,
      );
      if (q !== 'symbol=NOSUCH') expect(want.length, q).toBeGreaterThan(0);
      expect(want.length, q).toBeLessThan(all.length);
      const r = await rest(h, `${PATH}?${q}&page_size=100`);
      expect(r.status, q).toBe(200);
      expect(r.body.pagination.hits, q).toBe(want.length);
      expect(
        r.body.data.map((d: any) => d.id),
        q,
      ).toEqual(want.slice(0, 100));
    }
    const none = await rest(h, `${PATH}?symbol=NOSUCH`);
    expect(none.body).toEqual({
      data: [],
      message: 'OK',
      pagination: { hits: 0, page: 1, page_count: 0, page_size: 10 },
    });
  });

  it('page numbers walk to the end without gaps or repeats (ties on call_date included); a page past the end is empty', async () => {
    const dates = all.map((r) => r.callDate.getTime());
    expect(new Set(dates).size).toBeLessThan(dates.length);
    for (const size of [37, 100]) {
      const pageCount = Math.ceil(all.length / size);
      const seen: number[] = [];
      for (let page = 1; page <= pageCount; page++) {
        const r = await rest(h, `${PATH}?page=${page}&page_size=${size}`);
        expect(r.body.pagination).toEqual({ hits: all.length, page, page_count: pageCount, page_size: size });
        seen.push(...r.body.data.map((d: any) => d.id));
      }
      expect(seen).toEqual(all.map((r) => r.id));
      expect(new Set(seen).size).toBe(seen.length);
      const past = await rest(h, `${PATH}?page=${pageCount + 1}&page_size=${size}`);
      expect(past.status).toBe(200);
      expect(past.body.data).toEqual([]);
      expect(past.body.pagination).toEqual({
        hits: all.length,
        page: pageCount + 1,
        page_count: pageCount,
        page_size: size,
      });
    }
    // a filtered list pages the same way
    const symbol = all[0]!.symbol;
    const mine = all.filter((r) => r.symbol === symbol).map((r) => r.id);
    const seen: number[] = [];
    for (let page = 1; page <= mine.length; page++)
      seen.push(
        ...(await rest(h, `${PATH}?symbol=${symbol}&page=${page}&page_size=1`)).body.data.map((d: any) => d.id),
      );
    expect(seen).toEqual(mine);
  });

  it('agrees with the GraphQL field callSummaries', async () => {
    const from = all[150]!.callDate;
    const to = all[10]!.callDate;
    const g = await h.gql(
      `query($from: DateTime, $to: DateTime) {
      callSummaries(from: $from, to: $to, first: 40) { totalCount nodes { callSummaryId symbol companyName callDate fiscalYear fiscalPeriod title summary keyPoints guidance sentimentScore participants { name role organization } createdAt updatedAt } }
    }`,
      { from: from.toISOString(), to: to.toISOString() },
    );
    expect(g.errors).toBeUndefined();
    const r = await rest(h, `${PATH}?from=${isoSeconds(from)}&to=${isoSeconds(to)}&page_size=40`);
    expect(r.body.pagination.hits).toBe(g.data.callSummaries.totalCount);
    expect(r.body.data).toEqual(
      g.data.callSummaries.nodes.map((n: any) => ({
        id: n.callSummaryId,
        symbol: n.symbol,
        company_name: n.companyName,
        call_date: n.callDate,
        fiscal_year: n.fiscalYear,
        fiscal_period: n.fiscalPeriod,
        title: n.title,
        summary: n.summary,
        key_points: n.keyPoints,
        ...(n.guidance === null ? {} : { guidance: n.guidance }),
        sentiment_score: n.sentimentScore,
        participants: n.participants,
        created_at: n.createdAt,
        updated_at: n.updatedAt,
      })),
    );
    // and for one company
    const symbol = all[3]!.symbol;
    const gs = await h.gql('query($s: String) { callSummaries(symbol: $s, first: 100) { nodes { callSummaryId } } }', {
      s: symbol,
    });
    const rs = await rest(h, `${PATH}?symbol=${symbol}&page_size=100`);
    expect(rs.body.data.map((d: any) => d.id)).toEqual(gs.data.callSummaries.nodes.map((n: any) => n.callSummaryId));
  });

  it('rejects bad parameters with a 400 naming them, never a 500', async () => {
    const cases: [string, string, string?][] = [
      ['from=2026-13-01T00:00:00', 'from', '2026-13-01T00:00:00'],
      ['from=2026-02-30T00:00:00', 'from', '2026-02-30T00:00:00'],
      ['to=yesterday', 'to', 'yesterday'],
      ['to=2026-01-01%2000:00:00Y', 'to', '2026-01-01 00:00:00Y'],
      [`to=${encodeURIComponent('<script>alert(1)</script>')}`, 'to'],
      [`from=${encodeURIComponent("2026-01-01T00:00:00' OR 1=1 --")}`, 'from'],
      [`symbol=${encodeURIComponent("' OR 1=1 --")}`, 'symbol', "' OR 1=1 --"],
      [`symbol=${encodeURIComponent('<script>')}`, 'symbol', '<script>'],
      ['symbol=AA%20PL', 'symbol', 'AA PL'],
      ['page=0', 'page', '0'],
      ['page=two', 'page', 'two'],
      ['page=99999999999', 'page', '99999999999'],
      ['page_size=101', 'page_size', '101'],
      ['page_size=0', 'page_size', '0'],
      ['page_size=1e2', 'page_size', '1e2'],
      ['from=2026-01-01T00:00:00&from=2026-01-02T00:00:00', 'from'],
    ];
    for (const [q, name, value] of cases) expectBadParam(await rest(h, `${PATH}?${q}`), name, value);
    // from after to: a 400 naming both
    const r = await rest(h, `${PATH}?from=2026-02-01T00:00:00&to=2026-01-01T00:00:00`);
    expectBadParam(r, 'from', '2026-02-01T00:00:00');
    expect(r.body.message).toContain('to');
    expect(r.body.message).toContain('2026-01-01T00:00:00');
    expect(await h.db.prisma.callSummary.count()).toBe(all.length);
  });

  it('401 without or with a wrong key; 403 for the free tier; pro may read', async () => {
    expect((await rest(h, PATH, { key: null })).status).toBe(401);
    expect((await rest(h, PATH, { key: 'wrong' })).status).toBe(401);
    const free = await rest(h, PATH, { key: 'demo-free' });
    expect(free.status).toBe(403);
    expect(free.body.message).toContain('pro');
    expect((await rest(h, PATH, { key: 'demo-pro' })).status).toBe(200);
    const withParam = await rest(h, `${PATH}?apikey=demo-pro&page_size=3`, { key: null });
    expect(withParam.status).toBe(200);
    expect(withParam.body.data).toHaveLength(3);
  });
});
