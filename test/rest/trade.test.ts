import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { BAD_TICK_PARAMS, expectBadParam, followPages, rest } from './helpers.js';

const TRADE_KEYS = ['conditions', 'exchange', 'id', 'price', 'sequence_number', 'sip_timestamp', 'size', 'tape'];
const QUOTE_KEYS = [
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

describe.each(testDatabases())('REST trades and quotes on $name', (tdb) => {
  let h: GraphQLHarness;
  let symbol: string;
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
    const counts = await h.db.prisma.trade.groupBy({
      by: ['symbol'],
      _count: { _all: true },
      orderBy: { symbol: 'asc' },
    });
    symbol = counts.find((c) => c._count._all > 150 && c._count._all < 400)!.symbol;
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  for (const [kind, keys, model] of [
    ['trades', TRADE_KEYS, 'trade'],
    ['quotes', QUOTE_KEYS, 'quote'],
  ] as const) {
    it(`${kind}: the default page is the 10 newest with exactly the legacy keys and exact 19-digit timestamps`, async () => {
      const r = await rest(h, `/stocks/v3/${kind}/${symbol}`);
      expect(r.status).toBe(200);
      expect(Object.keys(r.body).sort()).toEqual(['next_url', 'request_id', 'results', 'status']);
      expect(r.body.status).toBe('OK');
      expect(r.body.request_id).toBe(r.headers.get('x-request-id'));
      expect(r.body.results).toHaveLength(10);
      for (const row of r.body.results) expect(Object.keys(row).sort()).toEqual([...keys].sort());
      const newest = await (h.db.prisma[model] as any).findFirst({
        where: { symbol },
        orderBy: [{ sipTimestamp: 'desc' }, { sequenceNumber: 'desc' }],
      });
      // the text holds the exact digits as a JSON number, not a string and not a rounded double
      expect(r.text).toContain(`"sip_timestamp":${newest.sipTimestamp.toString()}`);
      expect(r.text).toContain(`"sequence_number":${newest.sequenceNumber.toString()}`);
    });

    it(`${kind}: next_url pages to the end in both orders without gaps or repeats, and agrees with GraphQL`, async () => {
      const stored = await (h.db.prisma[model] as any).findMany({
        where: { symbol },
        orderBy: [{ sipTimestamp: 'asc' }, { sequenceNumber: 'asc' }],
      });
      for (const order of ['asc', 'desc'] as const) {
        const pages = await followPages(h, `/stocks/v3/${kind}/${symbol}?order=${order}&limit=37`);
        const seqs = pages.flat().map((t) => String(t.sequence_number));
        const expected = stored.map((t: { sequenceNumber: bigint }) => t.sequenceNumber.toString());
        expect(seqs).toEqual(order === 'asc' ? expected : [...expected].reverse());
        expect(pages.at(-1)!.length).toBeGreaterThan(0);
      }
      // the same first page through GraphQL
      const g = await h.gql(`{ ${kind}(symbol: "${symbol}", first: 5) { nodes { sequenceNumber sipTimestamp } } }`);
      const r = await rest(h, `/stocks/v3/${kind}/${symbol}?limit=5`);
      expect(r.body.results.map((t: any) => String(t.sequence_number))).toEqual(
        g.data[kind].nodes.map((n: any) => n.sequenceNumber),
      );
    });
  }

  it('timestamp filters: a day, a nanosecond, and gte/gt/lte/lt bounds', async () => {
    const all = await h.db.prisma.trade.findMany({
      where: { symbol },
      orderBy: [{ sipTimestamp: 'asc' }, { sequenceNumber: 'asc' }],
    });
    const day = new Date(Number(all[0]!.sipTimestamp / 1_000_000n)).toISOString().slice(0, 10);
    const dayStart = BigInt(Date.parse(`${day}T00:00:00Z`)) * 1_000_000n;
    const inDay = all.filter((t) => t.sipTimestamp >= dayStart && t.sipTimestamp < dayStart + 86_400_000_000_000n);
    const pages = await followPages(h, `/stocks/v3/trades/${symbol}?timestamp=${day}&order=asc&limit=5000`);
    expect(pages.flat().map((t) => String(t.sequence_number))).toEqual(inDay.map((t) => t.sequenceNumber.toString()));

    const mid = all[Math.floor(all.length / 2)]!;
    const exact = await rest(h, `/stocks/v3/trades/${symbol}?timestamp=${mid.sipTimestamp}`);
    // (JSON.parse rounds 19-digit numbers: compare sequence numbers, and the timestamp in the text)
    expect(exact.body.results.map((t: any) => String(t.sequence_number))).toEqual(
      all
        .filter((t) => t.sipTimestamp === mid.sipTimestamp)
        .map((t) => t.sequenceNumber.toString())
        .reverse(),
    );
    expect(exact.text).toContain(`"sip_timestamp":${mid.sipTimestamp}`);

    const cases: [string, (t: (typeof all)[number]) => boolean][] = [
      [`timestamp.gte=${mid.sipTimestamp}`, (t) => t.sipTimestamp >= mid.sipTimestamp],
      [`timestamp.gt=${mid.sipTimestamp}`, (t) => t.sipTimestamp > mid.sipTimestamp],
      [`timestamp.lte=${mid.sipTimestamp}`, (t) => t.sipTimestamp <= mid.sipTimestamp],
      [`timestamp.lt=${mid.sipTimestamp}`, (t) => t.sipTimestamp < mid.sipTimestamp],
    ];
    for (const [q, keep] of cases) {
      const got = (await followPages(h, `/stocks/v3/trades/${symbol}?${q}&order=asc&limit=5000`)).flat();
      expect(got.length, q).toBe(all.filter(keep).length);
    }
  });

  it('an ISO time keeps its nanoseconds; GraphQL takes a day as REST does', async () => {
    const all = await h.db.prisma.trade.findMany({
      where: { symbol },
      orderBy: [{ sipTimestamp: 'asc' }, { sequenceNumber: 'asc' }],
    });
    const mid = all[Math.floor(all.length / 2)]!;
    // a nanosecond after a trade: read to the millisecond only, it would fall before the trade again
    const ns = mid.sipTimestamp + 1n;
    // the instant as ISO 8601 with all nine digits of its fraction, in a zone five hours west
    const ms = Number(ns / 1_000_000n);
    const clock = new Date(ms - 5 * 3_600_000).toISOString().slice(0, 19);
    const fraction = (ns % 1_000_000_000n).toString().padStart(9, '0');
    const iso = `${clock}.${fraction}-05:00`;
    for (const [q, keep] of [
      [`timestamp.gte=${encodeURIComponent(iso)}`, (t: (typeof all)[number]) => t.sipTimestamp >= ns],
      [`timestamp.lt=${encodeURIComponent(iso)}`, (t: (typeof all)[number]) => t.sipTimestamp < ns],
    ] as const) {
      const got = (await followPages(h, `/stocks/v3/trades/${symbol}?${q}&order=asc&limit=5000`)).flat();
      expect(
        got.map((t) => String(t.sequence_number)),
        q,
      ).toEqual(all.filter(keep).map((t) => t.sequenceNumber.toString()));
    }
    const day = new Date(ms).toISOString().slice(0, 10);
    const g = await h.gql(
      `{ trades(symbol: "${symbol}", from: "${day}", to: "${day}", first: 5000, order: ASC) { nodes { sequenceNumber } } }`,
    );
    expect(g.errors).toBeUndefined();
    const r = (await followPages(h, `/stocks/v3/trades/${symbol}?timestamp=${day}&order=asc&limit=5000`)).flat();
    expect(g.data.trades.nodes.map((n: any) => n.sequenceNumber)).toEqual(r.map((t) => String(t.sequence_number)));
    expect(r.length).toBeGreaterThan(0);
  });

  it('rejects bad parameters with a 400 naming them, never a 500', async () => {
    const base = `/stocks/v3/trades/${symbol}`;
    for (const [q, name, value] of BAD_TICK_PARAMS) expectBadParam(await rest(h, base + q), name, value);
    // a trades cursor does not open quotes, nor another symbol's trades
    const first = await rest(h, `${base}?limit=1`);
    const cursor = new URL(first.body.next_url).searchParams.get('cursor')!;
    expectBadParam(await rest(h, `/stocks/v3/quotes/${symbol}?cursor=${cursor}`), 'cursor');
    // a tampered cursor (one character of the payload changed) is refused
    const tampered = (cursor[0] === 'e' ? 'f' : 'e') + cursor.slice(1);
    expectBadParam(await rest(h, `${base}?cursor=${tampered}`), 'cursor');
  });

  it('404 for an unknown symbol; 401 without or with a wrong key; 403 for the free tier', async () => {
    const unknown = await rest(h, '/stocks/v3/trades/NOSUCH');
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toContain('NOSUCH');
    expect((await rest(h, `/stocks/v3/trades/${symbol}`, { key: null })).status).toBe(401);
    expect((await rest(h, `/stocks/v3/trades/${symbol}`, { key: 'wrong' })).status).toBe(401);
    const free = await rest(h, `/stocks/v3/quotes/${symbol}`, { key: 'demo-free' });
    expect(free.status).toBe(403);
    expect(free.body.message).toContain('pro');
    // the key may come as the apikey parameter too, and a next_url followed with it works
    const withParam = await rest(h, `/stocks/v3/trades/${symbol}?apikey=demo-pro&limit=2`, { key: null });
    expect(withParam.status).toBe(200);
    const next = await rest(h, `${withParam.body.next_url}&apikey=demo-pro`, { key: null });
    expect(next.status).toBe(200);
  });
});
