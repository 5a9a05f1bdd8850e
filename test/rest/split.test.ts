import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { expectBadParam, followPages, rest } from './helpers.js';

// Massive's documented keys of GET /v3/reference/splits (not from the code): the envelope, and a
// record's, every one always present.
const RECORD_KEYS = ['execution_date', 'id', 'split_from', 'split_to', 'ticker'];
const PATH = '/stocks/v3/reference/splits';

interface Row {
  id: string;
  ticker: string;
  executionDate: string;
  splitFrom: number;
  splitTo: number;
}

/** Extra splits beside the sample's two, so that pages and filters have something to cut. */
const EXTRA: Row[] = Array.from({ length: 30 }, (_, i) => ({
  id: `T-${String(i).padStart(2, '0')}`,
  ticker: ['AAA', 'BBB', 'CCC', 'QNTR'][i % 4]!,
  // a few share a date, so ties are broken by id
  executionDate: `20${String(10 + Math.floor(i / 2)).padStart(2, '0')}-0${1 + (i % 9)}-15`,
  splitFrom: i % 3 === 0 ? 10 : 1,
  splitTo: i % 3 === 0 ? 1 : 2 + (i % 4),
}));

const cmp = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
const record = (r: Row) => ({
  execution_date: r.executionDate,
  id: r.id,
  split_from: r.splitFrom,
  split_to: r.splitTo,
  ticker: r.ticker,
});

describe.each(testDatabases())('REST splits on $name', (tdb) => {
  let h: GraphQLHarness;
  /** Every stored split, read by SQL. */
  let rows: Row[];
  beforeAll(async () => {
    h = await graphqlHarness(tdb, { RATE_LIMIT_FREE: '1000000' });
    await h.db.prisma.split.createMany({ data: EXTRA });
    rows = await h.db.prisma.$queryRawUnsafe<Row[]>('SELECT * FROM "Split"');
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  /** The stored splits `keep` selects, in Massive's default order: newest execution date first, then id, descending. */
  const newestFirst = (keep: (r: Row) => boolean = () => true) =>
    rows
      .filter(keep)
      .sort((a, b) => cmp(b.executionDate, a.executionDate) || cmp(b.id, a.id))
      .map(record);

  it("holds the sample's two splits as sample/corporate-actions.ts gives them", async () => {
    const sample = rows.filter((r) => r.id.startsWith('E-')).sort((a, b) => cmp(a.id, b.id));
    expect(sample).toEqual([
      { id: 'E-QNTR-2025-06', ticker: 'QNTR', executionDate: '2025-06-10', splitFrom: 1, splitTo: 2 },
      { id: 'E-SLMI-2026-02', ticker: 'SLMI', executionDate: '2026-02-18', splitFrom: 10, splitTo: 1 },
    ]);
  });

  it("answers Massive's envelope, newest first by default, limit 10", async () => {
    const r = await rest(h, PATH);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['next_url', 'request_id', 'results', 'status']);
    expect(r.body.status).toBe('OK');
    expect(r.body.request_id).toBe(r.headers.get('x-request-id'));
    expect(r.body.results).toEqual(newestFirst().slice(0, 10));
    for (const s of r.body.results) expect(Object.keys(s)).toEqual(RECORD_KEYS);
  });

  it('follows next_url through every split once, in either order and by either sort', async () => {
    const all = newestFirst();
    const pages = await followPages(h, `${PATH}?limit=7`);
    expect(pages.slice(0, -1).every((p) => p.length === 7)).toBe(true);
    expect(pages.flat()).toEqual(all);
    const asc = (await followPages(h, `${PATH}?limit=5&order=asc`)).flat();
    expect(asc).toEqual([...all].reverse());
    const byTicker = (await followPages(h, `${PATH}?limit=4&sort=ticker&order=asc`)).flat();
    expect(byTicker).toEqual(
      [...rows]
        .sort((a, b) => cmp(a.ticker, b.ticker) || cmp(a.executionDate, b.executionDate) || cmp(a.id, b.id))
        .map(record),
    );
    expect(new Set(byTicker.map((s: { id: string }) => s.id)).size).toBe(rows.length);
  });

  it('filters by ticker, execution date and reverse_split, every filter applying, in any case', async () => {
    const cases: [string, (r: Row) => boolean][] = [
      ['ticker=qntr', (r) => r.ticker === 'QNTR'],
      ['ticker.gte=BBB&ticker.lt=QNTR', (r) => r.ticker >= 'BBB' && r.ticker < 'QNTR'],
      ['ticker.gt=BBB&ticker.lte=CCC', (r) => r.ticker > 'BBB' && r.ticker <= 'CCC'],
      ['execution_date=2025-06-10', (r) => r.executionDate === '2025-06-10'],
      [
        'execution_date.gte=2014-01-01&execution_date.lt=2020-01-01',
        (r) => r.executionDate >= '2014-01-01' && r.executionDate < '2020-01-01',
      ],
      ['execution_date.gt=2024-01-01&execution_date.lte=2026-12-31', (r) => r.executionDate > '2024-01-01'],
      ['reverse_split=true', (r) => r.splitFrom > r.splitTo],
      ['reverse_split=FALSE', (r) => r.splitFrom <= r.splitTo],
      ['reverse_split=true&ticker=QNTR', (r) => r.splitFrom > r.splitTo && r.ticker === 'QNTR'],
      ['ticker=NONE', () => false],
    ];
    for (const [q, keep] of cases) {
      const expected = newestFirst(keep);
      expect(expected.length > 0 || q === 'ticker=NONE', q).toBe(true);
      expect((await followPages(h, `${PATH}?${q}&limit=1000`)).flat(), q).toEqual(expected);
    }
  });

  it('rejects bad parameters with a 400 naming the parameter and the value, never a 500', async () => {
    const cases: [string, string, string?][] = [
      ['?limit=1001', 'limit', '1001'],
      ['?limit=0', 'limit', '0'],
      ['?order=sideways', 'order', 'sideways'],
      ['?sort=split_from', 'sort', 'split_from'],
      ['?execution_date=2026-13-01', 'execution_date', '2026-13-01'],
      ['?execution_date.gte=yesterday', 'execution_date.gte', 'yesterday'],
      ['?reverse_split=maybe', 'reverse_split', 'maybe'],
      ['?ticker=A%20B', 'ticker', 'A B'],
      [`?ticker.lt=${'X'.repeat(21)}`, 'ticker.lt'],
      ['?cursor=abc.def', 'cursor'],
      ['?ticker=A&ticker=B', 'ticker'],
    ];
    for (const [q, name, value] of cases) expectBadParam(await rest(h, PATH + q), name, value);
    expect((await rest(h, `${PATH}?sort=split_from`)).body.message).toBe(
      'parameter sort must be one of execution_date, ticker; got "split_from"',
    );
  });

  it('agrees with GraphQL: Query.splits and Security.splits, newest first', async () => {
    const g = await h.gql(
      `{ splits(first: 100) { nodes { splitId ticker executionDate splitFrom splitTo } }
         q: splits(ticker: "qntr", from: "2014-01-01", to: "2025-12-31", first: 100) { nodes { splitId } }
         r: splits(reverseSplit: true, first: 100) { nodes { splitId } }
         security(symbol: "QNTR") { splits(first: 100) { nodes { splitId } } } }`,
    );
    expect(g.errors).toBeUndefined();
    const all = (await followPages(h, `${PATH}?limit=1000`)).flat();
    expect(g.data.splits.nodes).toEqual(
      all.map((s: any) => ({
        splitId: s.id,
        ticker: s.ticker,
        executionDate: s.execution_date,
        splitFrom: s.split_from,
        splitTo: s.split_to,
      })),
    );
    const ids = async (q: string) => (await followPages(h, `${PATH}?${q}&limit=1000`)).flat().map((s: any) => s.id);
    const ofId = (nodes: { splitId: string }[]) => nodes.map((n) => n.splitId);
    expect(ofId(g.data.q.nodes)).toEqual(
      await ids('ticker=QNTR&execution_date.gte=2014-01-01&execution_date.lte=2025-12-31'),
    );
    expect(ofId(g.data.r.nodes)).toEqual(await ids('reverse_split=true'));
    expect(ofId(g.data.security.splits.nodes)).toEqual(await ids('ticker=QNTR'));
  });

  it('one SQL statement per page; the free tier is entitled; 401 without a key', async () => {
    await rest(h, PATH);
    expect(await h.countStatements(() => rest(h, `${PATH}?ticker=QNTR`))).toBe(1);
    expect((await rest(h, PATH, { key: null })).status).toBe(401);
    expect((await rest(h, PATH, { key: 'demo-free' })).status).toBe(200);
  });
});
