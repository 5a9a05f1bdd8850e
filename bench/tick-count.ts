// What `totalCount` on trades costs, in the cost analysis's units (graphql/cost.ts): a page of one
// trade with its count beside the same page without, for a symbol holding more trades than the
// count reads exactly (EXACT_TICK_COUNT: the bounded count reads that many index entries, then
// EXPLAIN estimates), against the time of answering a cost unit of a plain page, in one process.
// The units the schema charges the count (TICK_COUNT_UNITS, domain/limits.ts) are chosen from it.
//
//   npm run bench -- tick-count [--repeat 30] [--dry-run]
import { parseArgs } from 'node:util';
import { parse } from 'graphql';
import { EXACT_TICK_COUNT, TICK_COUNT_UNITS } from '../src/domain/limits.js';
import { operationCost } from '../src/graphql/cost.js';
import { costOptions } from '../src/graphql/guard.js';
import { schema } from '../src/schema/index.js';
import { cli, inProcessApp, machineLine, markdownTable, median, record, scratchDatabase, utcNow } from './harness.js';

const { values: args } = parseArgs({ options: { repeat: { type: 'string' }, 'dry-run': { type: 'boolean' } } });
const REPEAT = Number(args.repeat ?? 30);
const MANY = EXACT_TICK_COUNT + 10_000;

const TRADES = `{ trades(symbol: "NVLX", first: 5000) { pageInfo { hasNextPage endCursor } nodes { id symbol tradeId price size exchange tape conditions sequenceNumber sipTimestamp time } } }`;
/** The peers' list page (bench/peers/pages.ts): 50 securities with 5 ratings and 5 news items each. */
const LIST = `{ securities(search: "US", searchType: EXCHANGE_COUNTRY, first: 50) { nodes { symbol name ratings(first: 5) { nodes { firm action rating priceTarget createdAt } } news(first: 5) { nodes { headline type createdAt } } } } }`;
const PLAIN = '{ trades(symbol: "ZZMANY", first: 1) { nodes { price } } }';
const COUNTED = '{ trades(symbol: "ZZMANY", first: 1) { totalCount totalCountIsEstimate nodes { price } } }';
const EXACT = '{ trades(symbol: "ZZMANY", first: 1, to: "2026-01-02T00:01:39.999Z") { totalCount nodes { price } } }';

const scratch = scratchDatabase('postgresql', 'tick_count');
try {
  console.log('seeding the sample data');
  cli(scratch.url, ['seed']);
  const h = await inProcessApp(scratch.url, { RESPONSE_CACHE_TTL_SECONDS: '0' });
  try {
    // one trade a millisecond from 2026-01-02T00:00:00Z; EXACT's range holds 99,999 of them
    await h.db.prisma.$executeRawUnsafe(
      `INSERT INTO "Trade" ("symbol", "sequenceNumber", "sipTimestamp", "tradeId", "price", "size", "exchange", "tape", "conditions")
       SELECT 'ZZMANY', i, 1767312000000000000 + i::bigint * 1000000, i::text, 10, 1, 4, 1, '[]' FROM generate_series(1, ${MANY}) i`,
    );
    await h.db.prisma.$executeRawUnsafe('VACUUM ANALYZE "Trade"');
    const docs = { TRADES, LIST, PLAIN, COUNTED, EXACT };
    const times: Record<string, number[]> = Object.fromEntries(Object.keys(docs).map((k) => [k, []]));
    for (const q of Object.values(docs)) await h.gql(q); // warm: plans, the pages' caches
    // alternating, so the machine's other work weighs on each alike
    for (let i = 0; i < REPEAT; i++)
      for (const [name, q] of Object.entries(docs)) {
        const t = performance.now();
        await h.gql(q);
        times[name]!.push(performance.now() - t);
      }
    const ms = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)])) as Record<string, number>;
    const costOf = (q: string) => operationCost(schema, parse(q), null, {}, costOptions).cost;
    // the faster of the two plain pages sets a unit's time: a count is then charged no less than it takes
    const msPerUnit = Math.min(ms.TRADES! / costOf(TRADES), ms.LIST! / costOf(LIST));
    const estimated = Math.max(0, ms.COUNTED! - ms.PLAIN!);
    const exact = Math.max(0, ms.EXACT! - ms.PLAIN!);
    const units = (t: number) => Math.round(t / msPerUnit).toLocaleString('en-US');
    const rows = [
      [
        '5,000 trades, every field',
        ms.TRADES!.toFixed(1),
        `${((ms.TRADES! / costOf(TRADES)) * 1000).toFixed(3)} µs a unit`,
      ],
      ["the peers' list page", ms.LIST!.toFixed(1), `${((ms.LIST! / costOf(LIST)) * 1000).toFixed(3)} µs a unit`],
      [`trades(first: 1) of a symbol of ${MANY.toLocaleString('en-US')}`, ms.PLAIN!.toFixed(1), ''],
      [
        '… with totalCount: past the bound, an estimate',
        ms.COUNTED!.toFixed(1),
        `count ${estimated.toFixed(1)} ms: ${units(estimated)} units`,
      ],
      ['… of a range of 99,999: exact', ms.EXACT!.toFixed(1), `count ${exact.toFixed(1)} ms: ${units(exact)} units`],
    ];
    console.log(rows.map((r) => r.join(' | ')).join('\n'));
    record(
      [
        `## What a tick count costs, in cost units, ${utcNow()} UTC`,
        '',
        await machineLine(['postgresql']),
        `In one process (app.fetch, response cache off), ${REPEAT} rounds, the documents alternating; medians. A count's time is the page with \`totalCount\` less the same page without; divided by the time of a cost unit of the faster of the two plain pages. EXACT_TICK_COUNT = ${EXACT_TICK_COUNT.toLocaleString('en-US')}; the schema charges TICK_COUNT_UNITS = ${TICK_COUNT_UNITS.toLocaleString('en-US')} per count.`,
        '',
        markdownTable(['document', 'median ms', 'derived'], rows),
      ].join('\n'),
      args['dry-run'],
    );
  } finally {
    await h.close?.();
  }
} finally {
  await scratch.drop();
}
