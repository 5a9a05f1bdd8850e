// What a pass of the search engine over the whole master costs, in the cost analysis's units
// (graphql/cost.ts): the time of one pass (a sort over every match, or one facet's counts) beside
// the time of answering a cost unit of a plain page, measured in one process on one master. The
// units the schema charges a search (SEARCH_PASS_UNITS, domain/limits.ts) are chosen from it.
//
//   npm run bench -- search-cost [--securities 50000] [--repeat 30] [--dry-run]
import { parseArgs } from 'node:util';
import { parse } from 'graphql';
import { operationCost } from '../src/graphql/cost.js';
import { costOptions } from '../src/graphql/guard.js';
import { schema } from '../src/schema/index.js';
import { MAX_INDEXED_SECURITIES } from '../src/services/security-index.js';
import { SEARCH_PASS_UNITS } from '../src/domain/limits.js';
import { cli, inProcessApp, machineLine, markdownTable, record, scratchDatabase, utcNow } from './harness.js';

const { values: args } = parseArgs({
  options: { securities: { type: 'string' }, repeat: { type: 'string' }, 'dry-run': { type: 'boolean' } },
});
const SECURITIES = Number(args.securities ?? 50_000);
const REPEAT = Number(args.repeat ?? 30);

const TRADES = `{ trades(symbol: "NVLX", first: 5000) { pageInfo { hasNextPage endCursor } nodes { id symbol tradeId price size exchange tape conditions sequenceNumber sipTimestamp time } } }`;
/** The peers' list page (bench/peers/pages.ts): 50 securities with 5 ratings and 5 news items each. */
const LIST = `{ securities(search: "US", searchType: EXCHANGE_COUNTRY, first: 50) { nodes { symbol name ratings(first: 5) { nodes { firm action rating priceTarget createdAt } } news(first: 5) { nodes { headline type createdAt } } } } }`;
const PLAIN = '{ securities(first: 1) { nodes { symbol } } }';
const SORTED =
  '{ securities(first: 1, orderBy: [{ field: PE_RATIO, direction: DESC }]) { totalCount nodes { symbol } } }';
const FACETS = `{ securities(first: 1, orderBy: [{ field: PE_RATIO, direction: DESC }]) { totalCount nodes { symbol } facets(fields: [MIC_CODE, SECTOR, ACTIVE, MARKET_CAP]) { field counts { value count } } } }`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const scratch = scratchDatabase('postgresql', 'search_cost');
try {
  console.log(`seeding ${SECURITIES} securities`);
  cli(scratch.url, ['seed', '--securities', String(SECURITIES)]);
  const h = await inProcessApp(scratch.url, { RESPONSE_CACHE_TTL_SECONDS: '0' });
  try {
    const master = await h.db.prisma.security.count();
    const times: Record<string, number[]> = { TRADES: [], LIST: [], PLAIN: [], SORTED: [], FACETS: [] };
    const docs = { TRADES, LIST, PLAIN, SORTED, FACETS };
    for (const q of Object.values(docs)) await h.gql(q); // warm: the engine's build, the plans
    // alternating, so the machine's other work weighs on each alike
    for (let i = 0; i < REPEAT; i++)
      for (const [name, q] of Object.entries(docs)) {
        const t = performance.now();
        await h.gql(q);
        times[name]!.push(performance.now() - t);
      }
    const ms = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)])) as Record<string, number>;
    const tradesCost = operationCost(schema, parse(TRADES), null, {}, costOptions).cost;
    const listCost = operationCost(schema, parse(LIST), null, {}, costOptions).cost;
    // the faster of the two pages sets a unit's time: a pass is then charged no less than it takes
    const msPerUnit = Math.min(ms.TRADES! / tradesCost, ms.LIST! / listCost);
    const sortPass = Math.max(0, ms.SORTED! - ms.PLAIN!);
    const facetPass = Math.max(0, (ms.FACETS! - ms.SORTED!) / 4);
    const atCap = MAX_INDEXED_SECURITIES / master;
    const unitsOf = (passMs: number) => Math.round((passMs * atCap) / msPerUnit);
    const rows = [
      [
        '5,000 trades, every field (cost units)',
        `${ms.TRADES!.toFixed(1)}`,
        tradesCost.toLocaleString('en-US'),
        `${((ms.TRADES! / tradesCost) * 1000).toFixed(3)} µs a unit`,
      ],
      [
        "50 securities × (5 ratings + 5 news): the peers' list page",
        ms.LIST!.toFixed(1),
        listCost.toLocaleString('en-US'),
        `${((ms.LIST! / listCost) * 1000).toFixed(3)} µs a unit`,
      ],
      ['securities(first: 1), SQL', ms.PLAIN!.toFixed(1), '', ''],
      [
        '… sorted by P/E: one pass',
        ms.SORTED!.toFixed(1),
        '',
        `pass ${sortPass.toFixed(1)} ms; at ${MAX_INDEXED_SECURITIES.toLocaleString('en-US')}: ${unitsOf(sortPass).toLocaleString('en-US')} units`,
      ],
      [
        '… and 4 facets',
        ms.FACETS!.toFixed(1),
        '',
        `a facet ${facetPass.toFixed(1)} ms; at ${MAX_INDEXED_SECURITIES.toLocaleString('en-US')}: ${unitsOf(facetPass).toLocaleString('en-US')} units`,
      ],
    ];
    console.log(rows.map((r) => r.join(' | ')).join('\n'));
    record(
      [
        `## What a search pass costs, in cost units, over ${master.toLocaleString('en-US')} securities, ${utcNow()} UTC`,
        '',
        await machineLine(['postgresql']),
        `In one process (app.fetch, response cache off), ${REPEAT} rounds, the documents alternating; medians. A pass's time is the sorted search less the plain page (the same request's fixed part); a facet's, the four facets' extra time over four. Scaled to the engine's cap (${MAX_INDEXED_SECURITIES.toLocaleString('en-US')} securities: the most a pass can cover) and divided by the time of a cost unit of the faster of the two plain pages. The schema charges SEARCH_PASS_UNITS = ${SEARCH_PASS_UNITS.toLocaleString('en-US')} per pass.`,
        '',
        markdownTable(['document', 'median ms', 'cost', 'derived'], rows),
      ].join('\n'),
      args['dry-run'],
    );
  } finally {
    await h.close?.();
  }
} finally {
  await scratch.drop();
}
