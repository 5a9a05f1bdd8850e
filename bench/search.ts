// Security search over a 50k-security master: latency p50/p99 for every search_type, through the
// REST route (GET /search/api/v1/securities, per_page 10, with its `found` count) and the GraphQL
// field (securities(search, searchType, first: 10), no totalCount), in this process (app.fetch, no
// socket). Queries are prefixes of real values (1 to 8 characters, as a user types them) and one in
// ten a prefix nothing matches; the types and the two APIs alternate query by query. Appends a
// dated section to bench/RESULTS.md.
//
//   npm run bench -- search [--db sqlite,postgresql] [--securities 50000] [--queries 200] [--dry-run]
import { parseArgs } from 'node:util';
import { SEARCH_TYPES, type SearchType } from '../src/services/security.js';
import { cli, databaseKinds, inProcessApp, machineLine, markdownTable, median, quantile, record, scratchDatabase, utcNow } from './harness.js';

const { values: args } = parseArgs({ options: { db: { type: 'string' }, securities: { type: 'string' }, queries: { type: 'string' }, 'dry-run': { type: 'boolean' } } });
const KINDS = databaseKinds(args.db);
const SECURITIES = Number(args.securities ?? 50_000);
const QUERIES = Number(args.queries ?? 200);
const TYPES = Object.keys(SEARCH_TYPES) as SearchType[];
/** The GraphQL enum value of each REST search_type. */
const GRAPHQL_TYPE: Record<SearchType, string> = {
  symbol: 'SYMBOL',
  'identifiers.figi': 'FIGI',
  'identifiers.figi_composite': 'FIGI_COMPOSITE',
  'identifiers.figi_share_class': 'FIGI_SHARE_CLASS',
  'identifiers.isin': 'ISIN',
  'identifiers.opol': 'OPOL',
  'identifiers.cusip': 'CUSIP',
  'identifiers.cik': 'CIK',
  'exchange_info.mic_code': 'MIC_CODE',
  'exchange_info.exchange_country': 'EXCHANGE_COUNTRY',
  'classification.gics_code': 'GICS_CODE',
};
const GQL = `query Search($q: String!, $t: SecuritySearchType!) { securities(search: $q, searchType: $t, first: 10) { nodes { symbol name } } }`;

/** A deterministic PRNG (mulberry32), so every run asks the same queries. */
function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Line {
  kind: string;
  type: SearchType;
  api: 'REST' | 'GraphQL';
  ms: number[];
  found: number[];
  statements: number;
}
const lines: Line[] = [];

for (const kind of KINDS) {
  console.log(`\n${kind}: seeding ${SECURITIES} securities`);
  const scratch = scratchDatabase(kind, 'search');
  try {
    const t0 = Date.now();
    cli(scratch.url, ['seed', '--securities', String(SECURITIES)]);
    console.log(`  seeded in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    // the GraphQL response cache off: a typed query is rarely asked twice, and we measure the search itself
    const h = await inProcessApp(scratch.url, { RESPONSE_CACHE_TTL_SECONDS: '0' });
    try {
      const all = await h.db.prisma.security.findMany({ select: Object.fromEntries(Object.values(SEARCH_TYPES).map((c) => [c, true])) as Record<string, true> });
      if (all.length < SECURITIES) throw new Error(`expected ${SECURITIES} securities, found ${all.length}`);
      const random = prng(7);
      const queries = new Map<SearchType, string[]>();
      for (const type of TYPES) {
        const column = SEARCH_TYPES[type];
        const values = all.map((s) => String((s as Record<string, unknown>)[column] ?? '')).filter(Boolean);
        const qs: string[] = [];
        while (qs.length < QUERIES) {
          if (qs.length % 10 === 9) {
            qs.push(type === 'identifiers.cik' ? '9999999999' : 'ZZQX');
            continue;
          }
          const v = values[Math.floor(random() * values.length)]!;
          const len = 1 + Math.floor(random() * Math.min(8, v.length));
          // a CIK is typed without its leading zeros as often as with them
          qs.push(type === 'identifiers.cik' && random() < 0.5 ? v.replace(/^0+/, '').slice(0, len) || '1' : v.slice(0, len));
        }
        queries.set(type, qs);
      }

      const mine: Line[] = TYPES.flatMap((type) => (['REST', 'GraphQL'] as const).map((api) => ({ kind, type, api, ms: [], found: [], statements: 0 })));
      const ask = async (line: Line, q: string) => {
        if (line.api === 'REST') {
          const body = JSON.parse(await h.get(`/search/api/v1/securities?search=${encodeURIComponent(q)}&search_type=${line.type}&per_page=10`));
          return body.data.found as number;
        }
        return (await h.gql(GQL, { q, t: GRAPHQL_TYPE[line.type] })).securities.nodes.length as number;
      };
      for (const line of mine) {
        await ask(line, queries.get(line.type)![0]!); // warm-up
        const before = h.db.statementCount;
        await ask(line, queries.get(line.type)![0]!);
        line.statements = h.db.statementCount - before;
      }
      for (let i = 0; i < QUERIES; i++) {
        for (const line of mine) {
          const q = queries.get(line.type)![i]!;
          const t = performance.now();
          const found = await ask(line, q);
          line.ms.push(performance.now() - t);
          line.found.push(found);
        }
      }
      for (const l of mine) console.log(`  ${l.type.padEnd(32)} ${l.api.padEnd(7)} p50 ${median(l.ms).toFixed(1)} ms  p99 ${quantile(l.ms, 0.99).toFixed(1)} ms`);
      lines.push(...mine);
    } finally {
      await h.close();
    }
  } finally {
    await scratch.drop();
  }
}

const rows = lines.map((l) => {
  const p99 = quantile(l.ms, 0.99);
  return [l.kind, `\`${l.type}\``, l.api, l.statements, l.api === 'REST' ? median(l.found).toFixed(0) : '', median(l.ms).toFixed(1), `${p99.toFixed(1)}${p99 <= 10 ? '' : ' ✗'}`, Math.max(...l.ms).toFixed(1)];
});
const missed = lines.filter((l) => quantile(l.ms, 0.99) > 10);
const verdict = missed.length
  ? `NOT met for ${missed.length} of ${lines.length}: ${missed.map((l) => `${l.kind} ${l.type} ${l.api} ${quantile(l.ms, 0.99).toFixed(1)} ms`).join(', ')}`
  : `met for all ${lines.length}`;
const section = [
  `## Security search over ${SECURITIES.toLocaleString('en-US')} securities, ${utcNow()} UTC`,
  '',
  await machineLine(KINDS),
  `In-process (\`createApp\` + \`app.fetch\`, no socket: the latency is the app's and the database's, not the network's), production config with the GraphQL response cache off (RESPONSE_CACHE_TTL_SECONDS=0), an enterprise key. \`cli seed --securities ${SECURITIES}\`. ${QUERIES} queries per search_type and API: prefixes (1–8 characters) of values drawn from the master, one in ten matching nothing; REST \`per_page=10\` (with its \`found\` count), GraphQL \`first: 10\` (no totalCount). Types and APIs alternate query by query.`,
  '',
  markdownTable(['database', 'search_type', 'API', 'SQL statements', 'median found', 'p50 ms', 'p99 ms', 'max ms'], rows),
  '',
  `Target p99 ≤ 10 ms: ${verdict}.`,
].join('\n');
record(section, args['dry-run']);
