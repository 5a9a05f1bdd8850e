import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallSummary } from '../../generated/prisma/client.js';
import { callSummaryAtPage } from '../../src/services/call-summary.js';
import { graphqlHarness, type GraphQLHarness, type GraphQLResult, expectBadUserInput } from './helpers.js';
import { testDatabases } from '../helpers.js';

const SUMMARY_FIELDS = `
  id callSummaryId symbol companyName callDate fiscalYear fiscalPeriod title summary keyPoints guidance sentimentScore
  participants { name role organization }
  createdAt updatedAt
`;

const NEWEST_FIRST = [{ callDate: 'desc' as const }, { id: 'desc' as const }];

/** A stored summary in the shape the API answers with. */
function expected(row: CallSummary) {
  return {
    id: expect.any(String),
    callSummaryId: row.id,
    symbol: row.symbol,
    companyName: row.companyName,
    callDate: row.callDate.toISOString(),
    fiscalYear: row.fiscalYear,
    fiscalPeriod: row.fiscalPeriod,
    title: row.title,
    summary: row.summary,
    keyPoints: row.keyPoints,
    guidance: row.guidance,
    sentimentScore: row.sentimentScore,
    participants: row.participants,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

const ids = (nodes: { callSummaryId: number }[]) => nodes.map((n) => n.callSummaryId);

describe.each(testDatabases())('GraphQL call summaries on $name', (tdb) => {
  let h: GraphQLHarness;
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  it('lists summaries newest first with every field as stored, and totalCount counts them all', async () => {
    // 40 with every field: each may hold 100 key points and participants, which the cost counts
    const rows = await h.db.prisma.callSummary.findMany({ orderBy: NEWEST_FIRST, take: 40 });
    const res = await h.gql(`{ callSummaries(first: 40) { totalCount nodes { ${SUMMARY_FIELDS} } } }`);
    expect(res.errors).toBeUndefined();
    expect(res.data.callSummaries.totalCount).toBe(await h.db.prisma.callSummary.count());
    expect(res.data.callSummaries.nodes).toEqual(rows.map(expected));
    // the page covers the shapes that vary: no guidance, and guidance; several participants and key points
    const nodes = res.data.callSummaries.nodes as {
      guidance: string | null;
      participants: unknown[];
      keyPoints: string[];
    }[];
    expect(nodes.some((n) => n.guidance === null)).toBe(true);
    expect(nodes.some((n) => typeof n.guidance === 'string')).toBe(true);
    expect(nodes.every((n) => n.participants.length >= 3 && n.keyPoints.length >= 3)).toBe(true);
  });

  it('pages through every summary: `after` continues without overlap, ties on callDate included, and the last page ends', async () => {
    const all = await h.db.prisma.callSummary.findMany({ orderBy: NEWEST_FIRST, select: { id: true, callDate: true } });
    const dates = all.map((r) => r.callDate.getTime());
    expect(new Set(dates).size).toBeLessThan(dates.length);
    const seen: number[] = [];
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const res: GraphQLResult = await h.gql(
        `query($after: String) { callSummaries(first: 30, after: $after) { totalCount nodes { callSummaryId } pageInfo { hasNextPage endCursor } } }`,
        { after },
      );
      expect(res.errors).toBeUndefined();
      expect(res.data.callSummaries.totalCount).toBe(all.length);
      seen.push(...ids(res.data.callSummaries.nodes));
      pages++;
      if (!res.data.callSummaries.pageInfo.hasNextPage) break;
      after = res.data.callSummaries.pageInfo.endCursor;
    }
    expect(seen).toEqual(all.map((r) => r.id));
    expect(pages).toBe(Math.ceil(all.length / 30));
  });

  it('the offset-paged service (for REST) answers page N as the N-th keyset page, with the same filters and total', async () => {
    const all = await h.db.prisma.callSummary.findMany({ orderBy: NEWEST_FIRST, select: { callDate: true } });
    const range = { from: all[150]!.callDate, to: all[10]!.callDate };
    const vars = { from: range.from.toISOString(), to: range.to.toISOString() };
    const first = await h.gql(
      'query($from: DateTime, $to: DateTime) { callSummaries(from: $from, to: $to, first: 25) { pageInfo { endCursor } } }',
      vars,
    );
    const res = await h.gql(
      'query($from: DateTime, $to: DateTime, $after: String) { callSummaries(from: $from, to: $to, first: 25, after: $after) { totalCount nodes { callSummaryId } } }',
      {
        ...vars,
        after: first.data.callSummaries.pageInfo.endCursor,
      },
    );
    const page = await callSummaryAtPage(h.db, range, { page: 2, pageSize: 25 });
    expect(page.nodes.map((r) => r.id)).toEqual(ids(res.data.callSummaries.nodes));
    expect(page.nodes).toHaveLength(25);
    expect(page.totalCount).toBe(res.data.callSummaries.totalCount);
  });

  it('filters by callDate from..to, both ends inclusive', async () => {
    const all = await h.db.prisma.callSummary.findMany({ orderBy: NEWEST_FIRST });
    const from = all[59]!.callDate;
    const to = all[20]!.callDate;
    const inRange = await h.db.prisma.callSummary.findMany({
      where: { callDate: { gte: from, lte: to } },
      orderBy: NEWEST_FIRST,
    });
    expect(inRange.length).toBeGreaterThanOrEqual(40);
    expect(inRange.length).toBeLessThan(all.length);
    const res = await h.gql(
      `query($from: DateTime, $to: DateTime) { callSummaries(from: $from, to: $to, first: 100) { totalCount nodes { callSummaryId } } }`,
      {
        from: from.toISOString(),
        to: to.toISOString(),
      },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.callSummaries.totalCount).toBe(inRange.length);
    expect(ids(res.data.callSummaries.nodes)).toEqual(inRange.map((r) => r.id));
  });

  it("filters by symbol, case-insensitively, and links each summary to its company's security", async () => {
    const { symbol } = await h.db.prisma.callSummary.findFirstOrThrow({ orderBy: { id: 'desc' } });
    const rows = await h.db.prisma.callSummary.findMany({ where: { symbol }, orderBy: NEWEST_FIRST });
    const security = await h.db.prisma.security.findFirstOrThrow({ where: { symbol }, orderBy: { id: 'asc' } });
    const res = await h.gql(
      `query($s: String) { callSummaries(symbol: $s) { totalCount nodes { ${SUMMARY_FIELDS} security { securityId symbol } } } }`,
      {
        s: symbol.toLowerCase(),
      },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.callSummaries.totalCount).toBe(rows.length);
    expect(res.data.callSummaries.nodes).toEqual(
      rows.map((r) => ({ ...expected(r), security: { securityId: security.id, symbol } })),
    );

    const none = await h.gql('{ callSummaries(symbol: "NOSUCH") { totalCount nodes { callSummaryId } } }');
    expect(none.data.callSummaries).toEqual({ totalCount: 0, nodes: [] });
  });

  it("Security.callSummaries pages the company's calls newest first, within from..to", async () => {
    const { symbol } = await h.db.prisma.callSummary.findFirstOrThrow({ orderBy: { id: 'asc' } });
    const rows = await h.db.prisma.callSummary.findMany({ where: { symbol }, orderBy: NEWEST_FIRST });
    expect(rows.length).toBeGreaterThan(3);
    const edge = `query($s: String!, $after: String, $from: DateTime) {
      security(symbol: $s) { callSummaries(first: 2, after: $after, from: $from) { totalCount nodes { callSummaryId } pageInfo { hasNextPage endCursor } } }
    }`;
    const seen: number[] = [];
    let after: string | null = null;
    for (;;) {
      const res: GraphQLResult = await h.gql(edge, { s: symbol, after });
      expect(res.errors).toBeUndefined();
      const page = res.data.security.callSummaries;
      expect(page.totalCount).toBeNull();
      seen.push(...ids(page.nodes));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(seen).toEqual(rows.map((r) => r.id));

    const from = rows[1]!.callDate;
    const recent = await h.gql(edge, { s: symbol, from: from.toISOString() });
    expect(recent.errors).toBeUndefined();
    expect(ids(recent.data.security.callSummaries.nodes)).toEqual([rows[0]!.id, rows[1]!.id]);
    expect(recent.data.security.callSummaries.pageInfo.hasNextPage).toBe(false);
  });

  it('node(id) returns the same summary', async () => {
    const listed = await h.gql(`{ callSummaries(first: 1) { nodes { ${SUMMARY_FIELDS} } } }`);
    const summary = listed.data.callSummaries.nodes[0];
    const res = await h.gql(`query($id: ID!) { node(id: $id) { ... on CallSummary { ${SUMMARY_FIELDS} } } }`, {
      id: summary.id,
    });
    expect(res.errors).toBeUndefined();
    expect(res.data.node).toEqual(summary);
  });

  it.each([
    ['first: 0', '{ callSummaries(first: 0) { nodes { title } } }', ['"first"', '0']],
    ['first: 101', '{ callSummaries(first: 101) { nodes { title } } }', ['"first"', '101']],
    [
      'from after to',
      '{ callSummaries(from: "2026-02-01T00:00:00Z", to: "2026-01-01T00:00:00Z") { nodes { title } } }',
      ['"from"', '"to"', '2026-02-01T00:00:00.000Z'],
    ],
    ['a malformed symbol', '{ callSummaries(symbol: "AA PL") { nodes { title } } }', ['"symbol"', '"AA PL"']],
    [
      'a forged cursor',
      '{ callSummaries(after: "WyJjYWxsU3VtbWFyeSIsImRlc2MiXQ") { nodes { title } } }',
      ['after', 'WyJjYWxsU3VtbWFyeSIsImRlc2MiXQ'],
    ],
  ])('rejects %s with BAD_USER_INPUT naming the argument and the value', async (_case, query, mentions) => {
    const res = await h.gql(query);
    expect(res.data?.callSummaries ?? null).toBeNull();
    expectBadUserInput(res, ...mentions);
  });

  it('rejects a bad page size on the Security edge too', async () => {
    const { symbol } = await h.db.prisma.callSummary.findFirstOrThrow();
    const res = await h.gql(
      'query($s: String!) { security(symbol: $s) { callSummaries(first: 500) { nodes { title } } } }',
      { s: symbol },
    );
    expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(res.errors?.[0]?.message).toContain('got 500');
    expect(res.errors?.[0]?.path).toEqual(['security', 'callSummaries']);
  });
});
