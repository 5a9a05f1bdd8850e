import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Quote } from '../../generated/prisma/client.js';
import { testDatabases } from '../helpers.js';
import { quoteFixture, TIES } from '../quote-fixture.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { BAD_TICK_PARAMS, expectBadParam, followPages, rest, type RestResult } from './helpers.js';

const KEYS = [
  'ask_exchange',
  'ask_price',
  'ask_size',
  'bid_exchange',
  'bid_price',
  'bid_size',
  'conditions',
  'sequence_number',
  'sip_timestamp',
  'tape',
];

/** The exact sip_timestamp digits of every result, in order (JSON.parse would round 19 digits). */
const sipTimestamps = (r: RestResult) => [...r.text.matchAll(/"sip_timestamp":(\d+)/g)].map((m) => m[1]);
const sequenceNumbers = (results: { sequence_number: number }[]) => results.map((q) => String(q.sequence_number));
const seqs = (rows: Quote[]) => rows.map((q) => q.sequenceNumber.toString());

describe.each(testDatabases())('REST quotes on $name', (tdb) => {
  let h: GraphQLHarness;
  let symbol: string;
  /** Every quote of `symbol`, oldest first by (sip_timestamp, sequence_number). */
  let stored: Quote[];
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
    ({ symbol, stored } = await quoteFixture(h.db));
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  it("the default page is the 10 newest, with exactly the legacy API's keys, every value as stored and exact 19-digit timestamps", async () => {
    const r = await rest(h, `/stocks/v3/quotes/${symbol}`);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['next_url', 'request_id', 'results', 'status']);
    expect(r.body.status).toBe('OK');
    expect(r.body.request_id).toBe(r.headers.get('x-request-id'));
    const newest = [...stored].reverse().slice(0, 10);
    expect(r.body.results.map((q: Record<string, unknown>) => Object.keys(q).sort())).toEqual(newest.map(() => KEYS));
    expect(r.body.results.map(({ sip_timestamp, ...q }: Record<string, unknown>) => q)).toEqual(
      newest.map((q) => ({
        ask_exchange: q.askExchange,
        ask_price: q.askPrice,
        ask_size: q.askSize,
        bid_exchange: q.bidExchange,
        bid_price: q.bidPrice,
        bid_size: q.bidSize,
        conditions: q.conditions,
        sequence_number: Number(q.sequenceNumber),
        tape: q.tape,
      })),
    );
    // the text holds the exact digits as JSON numbers, not strings and not rounded doubles
    expect(sipTimestamps(r)).toEqual(newest.map((q) => q.sipTimestamp.toString()));
    expect(r.body.next_url).toMatch(/^http:\/\/test\/stocks\/v3\/quotes\/[A-Z]+\?cursor=[^&]+$/);
  });

  it('next_url pages to the end in both orders without gaps or repeats; the last page has none', async () => {
    for (const order of ['asc', 'desc'] as const) {
      const pages = await followPages(h, `/stocks/v3/quotes/${symbol}?order=${order}&limit=37`);
      expect(sequenceNumbers(pages.flat())).toEqual(order === 'asc' ? seqs(stored) : seqs(stored).reverse());
      expect(pages.slice(0, -1).every((p) => p.length === 37)).toBe(true);
      expect(pages.at(-1)!.length).toBeGreaterThan(0);
    }
  });

  it('breaks ties on sip_timestamp by sequence_number, and a next_url inside a tie loses and repeats nothing', async () => {
    const rows = await h.db.prisma.quote.findMany({
      where: { symbol: TIES },
      orderBy: [{ sipTimestamp: 'asc' }, { sequenceNumber: 'asc' }],
    });
    for (const limit of [1, 2, 3]) {
      for (const order of ['asc', 'desc'] as const) {
        const got = sequenceNumbers(
          (await followPages(h, `/stocks/v3/quotes/${TIES}?order=${order}&limit=${limit}`)).flat(),
        );
        expect(got, `limit=${limit} order=${order}`).toEqual(order === 'asc' ? seqs(rows) : seqs(rows).reverse());
      }
    }
    // the symbol in the path is case-insensitive
    expect(
      sequenceNumbers((await rest(h, `/stocks/v3/quotes/${TIES.toLowerCase()}?order=asc&limit=2`)).body.results),
    ).toEqual(seqs(rows).slice(0, 2));
  });

  it('timestamp filters: a day, a nanosecond, gte/gt/lte/lt bounds, and a next_url keeps them', async () => {
    const day = new Date(Number(stored[0]!.sipTimestamp / 1_000_000n)).toISOString().slice(0, 10);
    const dayStart = BigInt(Date.parse(`${day}T00:00:00Z`)) * 1_000_000n;
    const inDay = stored.filter((q) => q.sipTimestamp >= dayStart && q.sipTimestamp < dayStart + 86_400_000_000_000n);
    expect(
      sequenceNumbers(
        (await followPages(h, `/stocks/v3/quotes/${symbol}?timestamp=${day}&order=asc&limit=5000`)).flat(),
      ),
    ).toEqual(seqs(inDay));

    const mid = stored[Math.floor(stored.length / 2)]!;
    const exact = await rest(h, `/stocks/v3/quotes/${symbol}?timestamp=${mid.sipTimestamp}`);
    expect(sequenceNumbers(exact.body.results)).toEqual(
      seqs(stored.filter((q) => q.sipTimestamp === mid.sipTimestamp)).reverse(),
    );
    expect(sipTimestamps(exact).every((t) => t === mid.sipTimestamp.toString())).toBe(true);

    const late = stored[Math.floor((stored.length * 3) / 4)]!;
    const cases: [string, (q: Quote) => boolean][] = [
      [`timestamp.gte=${mid.sipTimestamp}`, (q) => q.sipTimestamp >= mid.sipTimestamp],
      [`timestamp.gt=${mid.sipTimestamp}`, (q) => q.sipTimestamp > mid.sipTimestamp],
      [`timestamp.lte=${mid.sipTimestamp}`, (q) => q.sipTimestamp <= mid.sipTimestamp],
      [`timestamp.lt=${mid.sipTimestamp}`, (q) => q.sipTimestamp < mid.sipTimestamp],
      [
        `timestamp.gte=${mid.sipTimestamp}&timestamp.lt=${late.sipTimestamp}`,
        (q) => q.sipTimestamp >= mid.sipTimestamp && q.sipTimestamp < late.sipTimestamp,
      ],
    ];
    for (const [filter, keep] of cases) {
      // small pages: every next_url must carry the bounds on
      const got = (await followPages(h, `/stocks/v3/quotes/${symbol}?${filter}&order=asc&limit=23`)).flat();
      expect(sequenceNumbers(got), filter).toEqual(seqs(stored.filter(keep)));
    }
    // a window with nothing in it: an empty page, no next_url
    const none = await rest(h, `/stocks/v3/quotes/${symbol}?timestamp=1970-01-02`);
    expect(none.status).toBe(200);
    expect(none.body.results).toEqual([]);
    expect(none.body.next_url).toBeUndefined();
  });

  it('answers as GraphQL quotes does: the same quotes, value for value, for the same order, window and page size', async () => {
    const mid = stored[Math.floor(stored.length / 3)]!;
    const from = new Date(Number(mid.sipTimestamp / 1_000_000n));
    for (const order of ['asc', 'desc'] as const) {
      const g = await h.gql(
        `query($s: String!, $o: SortOrder, $f: DateTime) { quotes(symbol: $s, order: $o, from: $f, first: 50) {
          nodes { askExchange askPrice askSize bidExchange bidPrice bidSize conditions sequenceNumber sipTimestamp tape } } }`,
        { s: symbol, o: order.toUpperCase(), f: from.toISOString() },
      );
      expect(g.errors).toBeUndefined();
      const r = await rest(
        h,
        `/stocks/v3/quotes/${symbol}?order=${order}&timestamp.gte=${BigInt(from.getTime()) * 1_000_000n}&limit=50`,
      );
      expect(r.body.results).toHaveLength(50);
      expect(r.body.results.map(({ sip_timestamp, ...q }: Record<string, unknown>) => q)).toEqual(
        g.data.quotes.nodes.map((n: any) => ({
          ask_exchange: n.askExchange,
          ask_price: n.askPrice,
          ask_size: n.askSize,
          bid_exchange: n.bidExchange,
          bid_price: n.bidPrice,
          bid_size: n.bidSize,
          conditions: n.conditions,
          sequence_number: Number(n.sequenceNumber),
          tape: n.tape,
        })),
      );
      expect(sipTimestamps(r)).toEqual(g.data.quotes.nodes.map((n: { sipTimestamp: string }) => n.sipTimestamp));
    }
  });

  it('refuses bad parameters with a 400 naming them (and the value), never a 500', async () => {
    const base = `/stocks/v3/quotes/${symbol}`;
    for (const [q, name, value] of BAD_TICK_PARAMS) expectBadParam(await rest(h, base + q), name, value);
    expectBadParam(await rest(h, '/stocks/v3/quotes/bad%20symbol'), 'symbol');
  });

  it('a next_url opens only the list it came from: not trades, not another symbol, not when tampered with', async () => {
    const first = await rest(h, `/stocks/v3/quotes/${symbol}?limit=1`);
    const cursor = new URL(first.body.next_url).searchParams.get('cursor')!;
    expectBadParam(await rest(h, `/stocks/v3/trades/${symbol}?cursor=${cursor}`), 'cursor');
    expectBadParam(await rest(h, `/stocks/v3/quotes/${TIES}?cursor=${cursor}`), 'cursor');
    expectBadParam(
      await rest(h, `/stocks/v3/quotes/${symbol}?cursor=${(cursor[0] === 'e' ? 'f' : 'e') + cursor.slice(1)}`),
      'cursor',
    );
    expect(sequenceNumbers((await rest(h, first.body.next_url)).body.results)).toEqual([
      stored.at(-2)!.sequenceNumber.toString(),
    ]);
  });

  it('404 for an unknown symbol; 401 without or with a wrong key; 403 for the free tier naming pro; pro and an apikey parameter pass', async () => {
    const unknown = await rest(h, '/stocks/v3/quotes/NOSUCH');
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe('unknown symbol "NOSUCH"');
    expect((await rest(h, `/stocks/v3/quotes/${symbol}`, { key: null })).status).toBe(401);
    expect((await rest(h, `/stocks/v3/quotes/${symbol}`, { key: 'wrong' })).status).toBe(401);
    const free = await rest(h, `/stocks/v3/quotes/${symbol}`, { key: 'demo-free' });
    expect(free.status).toBe(403);
    expect(free.body.message).toBe("quotes needs the pro tier or higher; this caller's tier is free");
    // a next_url made for a pro key is no way around the tier either
    const pro = await rest(h, `/stocks/v3/quotes/${symbol}?limit=2`, { key: 'demo-pro' });
    expect(pro.status).toBe(200);
    expect((await rest(h, pro.body.next_url, { key: 'demo-free' })).status).toBe(403);
    // the key may come as the apikey parameter too, and a next_url followed with it works
    const withParam = await rest(h, `/stocks/v3/quotes/${symbol}?apikey=demo-pro&limit=2`, { key: null });
    expect(withParam.status).toBe(200);
    expect(withParam.body.next_url).not.toContain('demo-pro');
    const next = await rest(h, `${withParam.body.next_url}&apikey=demo-pro`, { key: null });
    expect(sequenceNumbers(next.body.results)).toEqual(seqs(stored).reverse().slice(2, 4));
  });

  it('costs as many SQL statements for a page of 5000 as for 5, and for a followed next_url as for the first page', async () => {
    const measured = async (path: string) => {
      let r!: RestResult;
      const statements = await h.countStatements(async () => (r = await rest(h, path)));
      expect(r.status).toBe(200);
      return [r, statements] as const;
    };
    const [, five] = await measured(`/stocks/v3/quotes/${symbol}?limit=5`);
    const [all, many] = await measured(`/stocks/v3/quotes/${symbol}?limit=5000`);
    expect(all.body.results).toHaveLength(stored.length);
    expect(many).toBe(five);
    const [first, firstCost] = await measured(`/stocks/v3/quotes/${symbol}?limit=50`);
    const [, nextCost] = await measured(first.body.next_url);
    expect(nextCost).toBe(firstCost);
  });
});
