// N+1 check under a stopwatch: a list of 10, 50 and 200 securities, each with 6 nested relations
// (logo, latest quote, latest trade, latest balance sheet, 5 ratings, 5 news items), through the
// app in this process (app.fetch, no socket, as test/graphql/helpers.ts does). Prints the SQL
// statements each size sends (they must not grow with the size) and the latency; the sizes
// alternate request by request, so other work on the machine weighs on each alike. Appends a dated
// section to bench/RESULTS.md.
//
//   npm run bench -- n-plus-one [--reps 30] [--dry-run]
//
// Data: the sample generator with 250 securities (`cli seed --securities 250`): 50 of them are
// covered companies with quotes, trades, statements, ratings and news, the rest have a logo and a
// master record only; the "with data" column says how many listed securities carry all six.
import { parseArgs } from 'node:util';
import {
  cli,
  databaseKinds,
  inProcessApp,
  machineLine,
  markdownTable,
  median,
  quantile,
  record,
  scratchDatabase,
  utcNow,
} from './harness.js';

const { values: args } = parseArgs({
  options: { db: { type: 'string' }, reps: { type: 'string' }, 'dry-run': { type: 'boolean' } },
});
const KINDS = databaseKinds(args.db);
const REPS = Number(args.reps ?? 30);
const SIZES = [10, 50, 200];

const QUERY = `query Pages($n: Int!) {
  securities(search: "US", searchType: EXCHANGE_COUNTRY, first: $n) {
    nodes {
      symbol
      logo { png { url } }
      latestQuote { bidPrice askPrice }
      latestTrade { price size }
      latestBalanceSheet { totalAssets }
      ratings(first: 5) { nodes { firm rating } }
      news(first: 5) { nodes { headline } }
    }
  }
}`;

interface Line {
  kind: string;
  n: number;
  statements: number;
  withData: number;
  ms: number[];
}
const lines: Line[] = [];

for (const kind of KINDS) {
  console.log(`\n${kind}: seeding 250 securities`);
  const scratch = scratchDatabase(kind, 'n_plus_one');
  try {
    cli(scratch.url, ['seed', '--securities', '250']);
    const h = await inProcessApp(scratch.url);
    try {
      const mine: Line[] = [];
      for (const n of SIZES) {
        const before = h.db.statementCount;
        const data = await h.gql(QUERY, { n });
        const statements = h.db.statementCount - before;
        const nodes = data.securities.nodes as any[];
        if (nodes.length !== n) throw new Error(`asked for ${n} securities, got ${nodes.length}`);
        const withData = nodes.filter(
          (s) =>
            s.logo &&
            s.latestQuote &&
            s.latestTrade &&
            s.latestBalanceSheet &&
            s.ratings.nodes.length &&
            s.news.nodes.length,
        ).length;
        mine.push({ kind, n, statements, withData, ms: [] });
      }
      for (let rep = 0; rep < 3; rep++) for (const n of SIZES) await h.gql(QUERY, { n }); // warm-up
      for (let rep = 0; rep < REPS; rep++) {
        for (const line of mine) {
          const t0 = performance.now();
          await h.gql(QUERY, { n: line.n });
          line.ms.push(performance.now() - t0);
        }
      }
      for (const l of mine)
        console.log(
          `  ${String(l.n).padStart(3)} securities: ${l.statements} statements, median ${median(l.ms).toFixed(1)} ms, p99 ${quantile(l.ms, 0.99).toFixed(1)} ms`,
        );
      lines.push(...mine);
    } finally {
      await h.close();
    }
  } finally {
    await scratch.drop();
  }
}

const rows = lines.map((l) => {
  const first = lines.find((x) => x.kind === l.kind && x.n === SIZES[0])!;
  return [
    l.kind,
    l.n,
    l.withData,
    `**${l.statements}**`,
    median(l.ms).toFixed(1),
    quantile(l.ms, 0.99).toFixed(1),
    (median(l.ms) / l.n).toFixed(2),
    `${(median(l.ms) / median(first.ms)).toFixed(1)}×`,
  ];
});
const constant = KINDS.map((k) => {
  const counts = lines.filter((l) => l.kind === k).map((l) => l.statements);
  return `${k} ${counts.join(' / ')} (${counts.every((c) => c === counts[0]) ? 'constant' : 'NOT constant'})`;
});
const section = [
  `## N+1: a list of securities with 6 nested relations, ${utcNow()} UTC`,
  '',
  await machineLine(KINDS),
  `In-process (\`createApp\` + \`app.fetch\`, no socket), production config, an enterprise key; \`db.statementCount\` around one request. Query: \`securities(searchType: EXCHANGE_COUNTRY, first: n)\` with logo, latestQuote, latestTrade, latestBalanceSheet, ratings(first: 5), news(first: 5). Sample data with 250 securities (\`--securities 250\`), 50 of which carry every relation ("with data": how many of those listed do). ${REPS} requests per size, the sizes alternating request by request.`,
  '',
  markdownTable(
    ['database', 'securities', 'with data', 'SQL statements', 'median ms', 'p99 ms', 'ms per security', 'vs 10'],
    rows,
  ),
  '',
  `Statements per request for 10 / 50 / 200 securities: ${constant.join('; ')}.`,
].join('\n');
record(section, args['dry-run']);
