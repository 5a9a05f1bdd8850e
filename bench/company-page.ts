// The company page under load: the GraphQL query (one security with its logo, latest quote, latest
// balance sheet, 5 ratings and 5 news items) against (a) the ceiling, a hand-written node:http
// server answering the same JSON from raw SQL through the same driver (bench/ceiling-server.ts),
// (b) the same page assembled from the 6 REST-compatibility calls a legacy client makes, and two
// bounds under the GraphQL page: the floor (`{ __typename }` through the same gateway) and the bare
// stack (the same schema and resolvers behind a bare Yoga, bench/bare-yoga-server.ts).
// Each server runs in a process of its own; autocannon drives them from this one. At each
// connection count the three alternate, round after round, so other work on the machine weighs
// on all of them alike. Appends a dated section to bench/RESULTS.md.
//
//   npm run bench -- company-page [--connections 10,50] [--duration 5] [--rounds 2] [--dry-run]
//
// Data: the default sample (`cli seed`), symbol NVLX; a production server (no demo accounts) and
// an enterprise user's API key made with the CLI. The ceiling checks no credential.
import { parseArgs } from 'node:util';
import {
  databaseKinds,
  createKey,
  cli,
  loadTest,
  machineLine,
  markdownTable,
  record,
  scratchDatabase,
  startGateway,
  startProcess,
  utcNow,
  type DatabaseKind,
  type LoadResult,
} from './harness.js';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string' },
    connections: { type: 'string' },
    duration: { type: 'string' },
    rounds: { type: 'string' },
    'dry-run': { type: 'boolean' },
  },
});
const KINDS = databaseKinds(args.db);
const CONNECTIONS = (args.connections ?? '10,50').split(',').map(Number);
const DURATION = Number(args.duration ?? 5);
const ROUNDS = Number(args.rounds ?? 2);
const SYMBOL = 'NVLX';

const QUERY = `query CompanyPage($symbol: String!) {
  security(symbol: $symbol) {
    symbol
    name
    logo { png { url } }
    latestQuote { bidPrice askPrice time }
    latestBalanceSheet { reportingPeriodEnd totalAssets totalLiabilities totalEquity }
    ratings(first: 5) { nodes { firm action rating priceTarget createdAt } }
    news(first: 5) { nodes { headline type createdAt } }
  }
}`;

/** What a legacy client calls for the same page: master record, logo, quote, balance sheet, ratings, news. */
const REST_PAGE = [
  `/search/api/v1/securities?search=${SYMBOL}&search_type=symbol&per_page=1`,
  `/api/v1/logos?symbols=${SYMBOL}`,
  `/stocks/v3/quotes/${SYMBOL}?limit=1`,
  `/stocks/v1/fundamentals/balance-sheet?symbols=${SYMBOL}&sort=period_end.desc&limit=1`,
  `/rating/api/v1/ratings?symbol=${SYMBOL}&page_size=5`,
  `/news/api/v1/news?symbol=${SYMBOL}&page_size=5`,
];

/**
 * `floor`: `{ __typename }` through the same gateway and key, no resolver and no SQL: the most any
 * GraphQL answer can do here. `bare`: the page through the same schema and resolvers behind a bare
 * Yoga, without the gateway's request path: the most this stack does for the page.
 */
type Variant = 'graphql' | 'ceiling' | 'rest' | 'floor' | 'bare';
interface Cell {
  kind: DatabaseKind;
  connections: number;
  variant: Variant;
  runs: LoadResult[];
}
const cells: Cell[] = [];
const cell = (kind: DatabaseKind, connections: number, variant: Variant) => {
  let c = cells.find((x) => x.kind === kind && x.connections === connections && x.variant === variant);
  if (!c) cells.push((c = { kind, connections, variant, runs: [] }));
  return c;
};

for (const [i, kind] of KINDS.entries()) {
  console.log(`\n${kind}: seeding the default sample`);
  const db = scratchDatabase(kind, 'company_page');
  let servers: { stop(): Promise<void> }[] = [];
  try {
    cli(db.url, ['seed']);
    const key = createKey(db.url, 'enterprise');
    const gateway = await startGateway(db.url, 4310 + i);
    servers.push(gateway);
    const ceiling = await startProcess('bench/ceiling-server.ts', 4320 + i, { DATABASE_URL: db.url });
    servers.push(ceiling);
    const bare = await startProcess('bench/bare-yoga-server.ts', 4330 + i, { DATABASE_URL: db.url });
    servers.push(bare);

    const headers = { 'content-type': 'application/json', 'x-api-key': key };
    const body = JSON.stringify({ query: QUERY, variables: { symbol: SYMBOL } });
    const floorBody = JSON.stringify({ query: '{ __typename }' });
    // the three must serve the same page before their speed means anything
    // the gateway says what the page cost beside it (extensions.cost, last); the page itself is compared byte for byte
    const answered = await (await fetch(`${gateway.base}/graphql`, { method: 'POST', headers, body })).text();
    const viaGraphql = answered.replace(/,"extensions":\{"cost":\{"requested":\d+,"limit":\d+\}\}\}$/, '}');
    if (viaGraphql === answered) throw new Error(`the gateway's page says no cost: ${answered.slice(-200)}`);
    const viaCeiling = await (await fetch(`${ceiling.base}/company-page?symbol=${SYMBOL}`)).text();
    if (viaGraphql !== viaCeiling)
      throw new Error(`the ceiling answers another page than GraphQL:\n${viaGraphql}\n${viaCeiling}`);
    const viaBare = await (await fetch(`${bare.base}/graphql`, { method: 'POST', headers, body })).text();
    if (viaBare !== viaGraphql)
      throw new Error(`the bare stack answers another page than the gateway:\n${viaBare}\n${viaGraphql}`);
    const parsed = JSON.parse(viaGraphql);
    if (!parsed.data.security.ratings.nodes.length || !parsed.data.security.news.nodes.length)
      throw new Error(`the page lacks ratings or news: ${viaGraphql}`);
    for (const p of REST_PAGE) {
      const r = await fetch(gateway.base + p, { headers: { 'x-api-key': key } });
      if (r.status !== 200) throw new Error(`GET ${p}: ${r.status} ${await r.text()}`);
    }
    console.log(
      `  the GraphQL page (${viaGraphql.length} bytes) equals the ceiling's and the bare stack's; the 6 REST calls answer 200`,
    );

    const run = (variant: Variant, connections: number, duration: number) =>
      variant === 'graphql' || variant === 'floor'
        ? loadTest({
            url: `${gateway.base}/graphql`,
            connections,
            duration,
            method: 'POST',
            headers,
            body: variant === 'floor' ? floorBody : body,
          })
        : variant === 'bare'
          ? loadTest({ url: `${bare.base}/graphql`, connections, duration, method: 'POST', headers, body })
          : variant === 'ceiling'
            ? loadTest({ url: `${ceiling.base}/company-page?symbol=${SYMBOL}`, connections, duration })
            : loadTest({
                url: gateway.base,
                connections,
                duration,
                headers: { 'x-api-key': key },
                requests: REST_PAGE.map((path) => ({ path, method: 'GET' as const })),
              });

    const variants: Variant[] = ['graphql', 'ceiling', 'rest', 'floor', 'bare'];
    for (const v of variants) await run(v, 10, 2); // warm-up: JIT, pools, caches
    for (const connections of CONNECTIONS) {
      for (let round = 0; round < ROUNDS; round++) {
        // rotate the order each round, so no variant always runs first
        for (const v of [...variants.slice(round % variants.length), ...variants.slice(0, round % variants.length)]) {
          const r = await run(v, connections, DURATION);
          if (r.non2xx || r.errors)
            throw new Error(`${v} at ${connections} connections: ${r.non2xx} non-2xx, ${r.errors} errors`);
          cell(kind, connections, v).runs.push(r);
          console.log(
            `  ${connections} conn, round ${round + 1}, ${v.padEnd(7)} ${(r.total / r.seconds).toFixed(0).padStart(6)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms`,
          );
        }
      }
    }
  } finally {
    for (const s of servers) await s.stop();
    servers = [];
    await db.drop();
  }
}

/** Rate over all rounds; latency percentiles as the mean of the rounds'. */
function summary(c: Cell, per = 1) {
  const total = c.runs.reduce((s, r) => s + r.total, 0);
  const seconds = c.runs.reduce((s, r) => s + r.seconds, 0);
  const avg = (f: (r: LoadResult) => number) => c.runs.reduce((s, r) => s + f(r), 0) / c.runs.length;
  return {
    rate: total / seconds / per,
    p50: avg((r) => r.p50),
    p99: avg((r) => r.p99),
    runs: c.runs.map((r) => r.total / r.seconds / per),
  };
}

const rows: (string | number)[][] = [];
const verdicts: string[] = [];
for (const kind of KINDS) {
  for (const connections of CONNECTIONS) {
    const g = summary(cell(kind, connections, 'graphql'));
    const c = summary(cell(kind, connections, 'ceiling'));
    const r = summary(cell(kind, connections, 'rest'), REST_PAGE.length);
    const f = summary(cell(kind, connections, 'floor'));
    const b = summary(cell(kind, connections, 'bare'));
    const rest = cell(kind, connections, 'rest');
    const callP50 = rest.runs.reduce((s, x) => s + x.p50, 0) / rest.runs.length;
    const callP99 = rest.runs.reduce((s, x) => s + x.p99, 0) / rest.runs.length;
    const share = g.rate / c.rate;
    const perRound = g.runs.map((x, i) => x / c.runs[i]!);
    rows.push([
      kind,
      connections,
      `${g.rate.toFixed(0)} (p50 ${g.p50.toFixed(0)} / p99 ${g.p99.toFixed(0)})`,
      `${c.rate.toFixed(0)} (p50 ${c.p50.toFixed(0)} / p99 ${c.p99.toFixed(0)})`,
      `${r.rate.toFixed(0)} (per call p50 ${callP50.toFixed(0)} / p99 ${callP99.toFixed(0)})`,
      `**${(share * 100).toFixed(0)}%** (rounds ${perRound.map((x) => `${(x * 100).toFixed(0)}%`).join(', ')})`,
      `**${(g.rate / r.rate).toFixed(2)}×**`,
      `${f.rate.toFixed(0)} (p50 ${f.p50.toFixed(0)} / p99 ${f.p99.toFixed(0)}); **${((f.rate / c.rate) * 100).toFixed(0)}%** of the ceiling`,
      `${b.rate.toFixed(0)} (p50 ${b.p50.toFixed(0)} / p99 ${b.p99.toFixed(0)}); **${((b.rate / c.rate) * 100).toFixed(0)}%** of the ceiling; gateway = **${((g.rate / b.rate) * 100).toFixed(0)}%** of it`,
    ]);
    verdicts.push(`${kind} at ${connections}: ${(share * 100).toFixed(0)}% (${share >= 0.5 ? 'met' : 'NOT met'})`);
  }
}

const table = markdownTable(
  [
    'database',
    'connections',
    'GraphQL pages/s (ms)',
    'ceiling pages/s (ms)',
    'REST: pages/s of 6 calls (ms)',
    'GraphQL / ceiling',
    'GraphQL / REST pages',
    'floor: `{ __typename }` req/s (ms)',
    'bare stack: the page on a bare Yoga, pages/s (ms)',
  ],
  rows,
);
const section = [
  `## Company page: GraphQL vs a hand-written ceiling vs 6 REST calls, ${utcNow()} UTC`,
  '',
  await machineLine(KINDS),
  `Default sample data, symbol ${SYMBOL}. Servers each in their own process (the gateway: \`src/server.ts\`, NODE_ENV=production, API key of an enterprise user made with the CLI; the ceiling: \`bench/ceiling-server.ts\`, same driver, 6 hand-written SQL statements, no auth), driven by autocannon from a third process on the same 2 CPUs. ${ROUNDS} rounds of ${DURATION} s per variant and connection count, variants alternating; rates over all rounds, latency the mean of the rounds' p50/p99. The GraphQL answer was checked byte-equal to the ceiling's before measuring. A REST page = the 6 calls one after another on one connection (${REST_PAGE.map((p) => `\`${p.split('?')[0]}\``).join(', ')}); pages/s = calls/s ÷ 6. The floor is \`{ __typename }\` through the same gateway and key (authentication, rate limit, request log, Yoga and its plugins, no resolver, no SQL): no GraphQL answer here can be faster. The bare stack is the same page through the same schema, resolvers, loaders and services behind a bare Yoga (\`bench/bare-yoga-server.ts\`: no plugin, authentication, rate limit, log, metrics or body bound; one fixed enterprise caller), answer checked byte-equal: what graphql-yoga + Pothos + DataLoader and our resolvers cost for this page with nothing of the gateway around them, so the GraphQL page cannot be faster than it.`,
  '',
  table,
  '',
  `Target GraphQL ≥ 50% of the ceiling: ${verdicts.join('; ')}.`,
].join('\n');
record(section, args['dry-run']);
