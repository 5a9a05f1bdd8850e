// Which engine should search the security master: the repository's own index in memory
// (services/security-index.ts over services/security-text.ts), or a library that would do it with
// less code of ours, Orama or MiniSearch (bench/engines/). One run, the same master and the same
// queries for all three, asked engine after engine query by query: build time and the heap each
// keeps, p50/p99 of text searches with typos, filter + sort + facets, text + filter + facets, and
// an update of one security then the next search; how far the libraries' answers agree with the
// repository's; and the lines each approach needs. Appends a dated section to bench/RESULTS.md.
//
//   npm run bench -- search-engines [--securities 50000] [--queries 200] [--repo-updates 25] [--dry-run]
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import vm from 'node:vm';
import { openDatabase } from '../src/bootstrap.js';
import { loadConfig, ROOT } from '../src/config.js';
import { words } from '../src/search/text.js';
import { SECURITY_SEARCH_FIELDS } from '../src/search/fields.js';
import type { Engine, Listing, SearchAnswer, SearchRequest, Value } from './engines/engine.js';
import { miniSearchEngine } from './engines/minisearch.js';
import { oramaEngine } from './engines/orama.js';
import { repoEngine } from './engines/repo.js';
import {
  cli,
  JWT_SECRET,
  machineLine,
  markdownTable,
  median,
  prng,
  quantile,
  record,
  scratchDatabase,
  utcNow,
  withTypos,
} from './harness.js';

const { values: args } = parseArgs({
  options: {
    securities: { type: 'string' },
    queries: { type: 'string' },
    'repo-updates': { type: 'string' },
    'dry-run': { type: 'boolean' },
  },
});
const SECURITIES = Number(args.securities ?? 50_000);
const QUERIES = Number(args.queries ?? 200);
/** Each update of the repository's index reads the master again (about a second at 50,000): fewer of them. */
const REPO_UPDATES = Math.min(QUERIES, Number(args['repo-updates'] ?? 25));
const FACETS = ['classification.gics', 'exchange_info.mic_code'];

// a full collection before and after a build: what the heap keeps is the engine
v8.setFlagsFromString('--expose-gc');
const gc = (globalThis.gc ?? vm.runInNewContext('gc')) as () => void;
const settledHeap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
const pct = (xs: readonly boolean[]) => `${Math.round((100 * xs.filter(Boolean).length) / xs.length)}%`;
const linesOf = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n').length - 1;

/** The search fields of every security, as the libraries would read them at start: the master's columns and each symbol's latest metrics. */
async function readListings(db: Awaited<ReturnType<typeof openDatabase>>): Promise<Listing[]> {
  const fields = [...SECURITY_SEARCH_FIELDS.values()];
  const own = fields.filter((f) => !f.metrics);
  const metrics = fields.filter((f) => f.metrics);
  const rows = await db.prisma.security.findMany({
    select: { id: true, ...Object.fromEntries(own.map((f) => [f.column, true])) },
    orderBy: { id: 'asc' },
  });
  const latest = await db.prisma.$queryRawUnsafe<Record<string, unknown>[]>(
    `SELECT DISTINCT ON (f."symbol") f."symbol", ${metrics.map((m) => `fm."${m.column}"`).join(', ')}
     FROM "Fundamental" f JOIN "FundamentalMetrics" fm ON fm."fundamentalId" = f."id"
     ORDER BY f."symbol", f."endPeriod" DESC, (f."quarter" = 'FY') DESC, f."id" DESC`,
  );
  const bySymbol = new Map(latest.map((r) => [String(r.symbol), r]));
  const valueOf = (kind: string, v: unknown): Value =>
    v === null || v === undefined ? null : kind === 'number' ? Number(v) : kind === 'boolean' ? Boolean(v) : String(v);
  return rows.map((r: Record<string, unknown>) => {
    const m = bySymbol.get(String(r.symbol));
    return {
      id: String(r.id),
      values: Object.fromEntries([
        ...own.map((f) => [f.name, valueOf(f.kind, r[f.column])]),
        ...metrics.map((f) => [f.name, valueOf(f.kind, m?.[f.column])]),
      ]),
    };
  });
}

type Kind = 'text' | 'filter' | 'text+filter';
interface Query {
  kind: Kind;
  /** What the query is, for the agreement table. */
  shape: string;
  request: SearchRequest;
}

/** The queries of every kind, drawn deterministically from the master's names, MICs, sectors and market caps. */
function queriesOf(listings: readonly Listing[], count: number): Query[] {
  const random = prng(23);
  const draw = () => listings[Math.floor(random() * listings.length)]!;
  const wordsOf = () => {
    const name = String(draw().values.name);
    return words(name)
      .map((w) => name.slice(w.start, w.end))
      .filter((w) => /^\p{L}+$/u.test(w));
  };
  const wordOf = (min: number) => {
    for (;;) {
      const w = wordsOf()[0];
      if (w && w.length >= min) return w;
    }
  };
  const pair = () => {
    for (;;) {
      const ws = wordsOf();
      if (ws.length >= 2) return [ws[0]!, ws[1]!] as const;
    }
  };
  const caps = listings
    .map((l) => l.values['financials.market_cap'])
    .filter((c): c is number => typeof c === 'number')
    .sort((a, b) => a - b);
  const capAt = (q: number) => caps[Math.floor(q * (caps.length - 1))]!;
  const employees = listings
    .map((l) => l.values['company_info.total_employees'])
    .filter((c): c is number => typeof c === 'number')
    .sort((a, b) => a - b);
  const text = (i: number): { shape: string; q: string } => {
    switch (i % 4) {
      case 0:
        return { shape: 'a word, 1 typo ("microsft")', q: withTypos(wordOf(4), 1, random) };
      case 1:
        return { shape: 'a word (≥ 7), 2 typos', q: withTypos(wordOf(7), 2, random) };
      case 2: {
        const [w, next] = pair();
        return {
          shape: 'a word + a prefix of the next ("merion te")',
          q: `${w} ${next.slice(0, 2 + Math.floor(random() * (next.length - 1)))}`,
        };
      }
      default: {
        const [w, next] = pair();
        return {
          shape: 'a word with 1 typo + the next ("appel inc")',
          q: `${w.length >= 4 ? withTypos(w, 1, random) : w} ${next}`,
        };
      }
    }
  };
  const filter = (i: number): { shape: string; filterBy: string; sortBy: string } => {
    const l = draw().values;
    switch (i % 3) {
      case 0:
        return {
          shape: 'country = US && market cap > x, market cap desc',
          filterBy: `exchange_info.exchange_country:=US && financials.market_cap:>${capAt(random())}`,
          sortBy: 'financials.market_cap:desc',
        };
      case 1:
        return {
          shape: 'MIC = x && employees > y, market cap asc',
          filterBy: `exchange_info.mic_code:=${l['exchange_info.mic_code']} && company_info.total_employees:>${employees[Math.floor(random() * employees.length)]}`,
          sortBy: 'financials.market_cap:asc',
        };
      default:
        return {
          shape: 'GICS sector = x && active, employees desc',
          filterBy: `classification.gics:=\`${l['classification.gics']}\` && ticker_meta.active:=true`,
          sortBy: 'company_info.total_employees:desc',
        };
    }
  };
  const out: Query[] = [];
  for (let i = 0; i < count; i++) {
    const t = text(i);
    out.push({ kind: 'text', shape: t.shape, request: { q: t.q } });
    const f = filter(i);
    out.push({
      kind: 'filter',
      shape: f.shape,
      request: { q: '*', filterBy: f.filterBy, sortBy: f.sortBy, facetBy: FACETS },
    });
    const tf = text(i % 2 === 0 ? 0 : 2);
    const bound =
      i % 4 < 2
        ? `financials.market_cap:>${capAt(0.5)}`
        : `exchange_info.mic_code:=${draw().values['exchange_info.mic_code']}`;
    out.push({
      kind: 'text+filter',
      shape: `${tf.shape.replace(/ \(".*"\)/, '')}, ${i % 4 < 2 ? 'market cap > median' : 'MIC = x'}`,
      request: { q: tf.q, filterBy: bound, facetBy: FACETS },
    });
  }
  return out;
}

/** Share of the repository's top 10 that the other engine's top 10 holds (both empty: 1). */
function overlap(a: readonly string[], repo: readonly string[]): number {
  if (a.length === 0 && repo.length === 0) return 1;
  const mine = new Set(a);
  return repo.filter((id) => mine.has(id)).length / Math.max(a.length, repo.length);
}
const sameFacets = (a: SearchAnswer, b: SearchAnswer) => JSON.stringify(a.facets) === JSON.stringify(b.facets);

// ------------------------------------------------------------------ the run

console.log(`seeding ${SECURITIES} securities`);
const scratch = scratchDatabase('postgresql', 'engines');
try {
  cli(scratch.url, ['seed', '--securities', String(SECURITIES)]);
  const db = await openDatabase(
    loadConfig({
      DATABASE_URL: scratch.url,
      NODE_ENV: 'production',
      JWT_SECRET,
      SAMPLE_DATA: 'none',
      LOG_LEVEL: 'silent',
    }),
  );
  try {
    const repo = repoEngine(db);
    const engines: Engine[] = [repo, oramaEngine(), miniSearchEngine()];
    const built = new Map<Engine, { ms: number; mb: number }>();
    let listings: Listing[] = [];
    let readMs = 0;
    for (const engine of engines) {
      if (engine !== repo && listings.length === 0) {
        const t = performance.now();
        listings = await readListings(db);
        readMs = performance.now() - t;
        if (listings.length !== SECURITIES)
          throw new Error(`expected ${SECURITIES} securities, read ${listings.length}`);
      }
      const before = settledHeap();
      const t = performance.now();
      await engine.build(listings);
      const ms = performance.now() - t;
      built.set(engine, { ms, mb: (settledHeap() - before) / 2 ** 20 });
      console.log(
        `  ${engine.name}: built in ${ms.toFixed(0)} ms, ${built.get(engine)!.mb.toFixed(1)} MB of heap kept`,
      );
    }

    const queries = queriesOf(listings, QUERIES);
    for (const q of queries.slice(0, 30)) for (const e of engines) await e.search(q.request); // warm-up
    const ms = new Map(engines.map((e) => [e, new Map<Kind, number[]>()]));
    const answers = new Map(engines.map((e) => [e, [] as SearchAnswer[]]));
    for (const q of queries) {
      for (const e of engines) {
        const t = performance.now();
        const answer = await e.search(q.request);
        const took = performance.now() - t;
        const byKind = ms.get(e)!;
        (byKind.get(q.kind) ?? byKind.set(q.kind, []).get(q.kind)!).push(took);
        answers.get(e)!.push(answer);
      }
    }

    // an update: one security renamed (a word no name has) and given a larger market cap, then the search for that word
    const updateMs = new Map(
      engines.map((e) => [e, { current: [] as number[], next: [] as number[], found: [] as boolean[] }]),
    );
    const writes: number[] = [];
    for (let k = 0; k < QUERIES; k++) {
      const target = listings[(k * 7919 + 13) % listings.length]!;
      const word = `zorva${k.toString(26).replace(/./g, (c) => String.fromCharCode(97 + Number.parseInt(c, 26)))}`;
      const changed: Listing = {
        id: target.id,
        values: {
          ...target.values,
          name: `${String(target.values.name).split(' ')[0]} ${word} Holdings`,
          'financials.market_cap': 4e12 + k * 1e9,
        },
      };
      for (const e of engines) {
        if (e === repo && k >= REPO_UPDATES) continue;
        const m = updateMs.get(e)!;
        const t = performance.now();
        await e.update(changed);
        m.current.push(performance.now() - t - (e === repo ? repo.lastWriteMs : 0));
        if (e === repo) writes.push(repo.lastWriteMs);
        const t2 = performance.now();
        const answer = await e.search({ q: word });
        m.next.push(performance.now() - t2);
        m.found.push(answer.ids.includes(target.id));
      }
    }

    // ------------------------------------------------------------------ the report
    const repoMs = ms.get(repo)!;
    const kinds: [Kind, string][] = [
      ['text', 'text with typos, top 10 + count'],
      ['filter', '`q=*`, filter + sort by a number + facets (GICS, MIC)'],
      ['text+filter', 'text + filter + facets (GICS, MIC)'],
    ];
    const ratio = (x: number, base: number) => `${(x / base).toFixed(2)}×`;
    const speedRows = kinds.flatMap(([kind, label]) =>
      engines.map((e) => {
        const xs = ms.get(e)!.get(kind)!;
        const base = repoMs.get(kind)!;
        return [
          label,
          e.name,
          xs.length,
          median(xs).toFixed(2),
          quantile(xs, 0.99).toFixed(2),
          e === repo ? '—' : ratio(median(xs), median(base)),
          e === repo ? '—' : ratio(quantile(xs, 0.99), quantile(base, 0.99)),
        ];
      }),
    );
    const repoUpdate = updateMs.get(repo)!;
    const updateRows = engines.map((e) => {
      const m = updateMs.get(e)!;
      return [
        e.name,
        m.current.length,
        median(m.current).toFixed(2),
        quantile(m.current, 0.99).toFixed(2),
        e === repo ? '—' : ratio(median(m.current), median(repoUpdate.current)),
        median(m.next).toFixed(2),
        quantile(m.next, 0.99).toFixed(2),
        pct(m.found),
      ];
    });
    const buildRows = engines.map((e) => {
      const b = built.get(e)!;
      const lines = e.files.map(linesOf);
      return [
        e.name,
        e === repo
          ? `${b.ms.toFixed(0)} (read from PostgreSQL)`
          : `${b.ms.toFixed(0)} (+ ${readMs.toFixed(0)} to read the rows)`,
        b.mb.toFixed(1),
        `${lines.reduce((a, n) => a + n, 0)} (${e.files.map((f, i) => `${path.basename(f)} ${lines[i]}`).join(', ')})`,
      ];
    });
    const shapes = kinds.flatMap(([kind]) =>
      [...new Set(queries.filter((q) => q.kind === kind).map((q) => q.shape))].map((shape) => [kind, shape] as const),
    );
    const agreementRows = shapes.flatMap(([kind, shape]) => {
      const at = queries.flatMap((q, i) => (q.kind === kind && q.shape === shape ? [i] : []));
      const base = at.map((i) => answers.get(repo)![i]!);
      return engines
        .filter((e) => e !== repo)
        .map((e) => {
          const mine = at.map((i) => answers.get(e)![i]!);
          return [
            kind,
            shape,
            e.name,
            at.length,
            mean(base.map((a) => a.found)).toFixed(0),
            mean(mine.map((a) => a.found)).toFixed(0),
            pct(mine.map((a, j) => a.found === base[j]!.found)),
            kind === 'filter'
              ? pct(mine.map((a, j) => a.ids.join() === base[j]!.ids.join()))
              : mean(mine.map((a, j) => overlap(a.ids, base[j]!.ids))).toFixed(2),
            kind === 'text' ? '' : pct(mine.map((a, j) => sameFacets(a, base[j]!))),
          ];
        });
    });

    const section = [
      `## Search engines: the repository's index, Orama and MiniSearch over ${SECURITIES.toLocaleString('en-US')} securities, ${utcNow()} UTC`,
      '',
      await machineLine(['postgresql']),
      '',
      `\`npm run bench -- search-engines\` (bench/search-engines.ts, engines in bench/engines/): \`cli seed --securities ${SECURITIES}\` into a scratch PostgreSQL schema; the repository's engine (src/search/, kept by services/security-index.ts) read from it as a server reads it (\`currentEngine\`), and ${listings.length.toLocaleString('en-US')} rows of the search fields (symbol, name, MIC, country, GICS, security type, market sector, active, market cap, employees, and the symbol's latest 7 metrics) read once (${readMs.toFixed(0)} ms) and given to Orama ${pkg('@orama/orama')} (a schema of those fields: strings for symbol and name, enums and a boolean for the facets, numbers) and to MiniSearch ${pkg('minisearch')} (symbol and name only; the filter, the sort and the facets by hand over every match). Heap kept: \`heapUsed\` after two \`gc()\` before and after each build. Then ${QUERIES} queries of each kind, every query asked of each engine in turn (30 warm-up queries first): the engine's own work from a Typesense-shaped request (q over symbol and name, filter_by, sort_by, facet_by, parsed by search/syntax.ts in every engine) to the top 10 ids, the count and the facets; for the repository that is the engine's \`match\` + \`search\` + \`facetsOf\`, without the master-version statement and the fetch of the page's rows a request also makes. Text queries rotate four shapes drawn from the master's names: a word with 1 typo, a word of 7 letters or more with 2, a word and a prefix of the next, a word with 1 typo and the next whole word. Filters rotate country = US && market cap > a drawn quantile (market cap desc), a MIC && employees > a drawn value (market cap asc), a GICS sector && active (employees desc). Text + filter: a word with 1 typo or a word + prefix, with market cap > the median or a MIC. Orama: \`threshold: 0\` (every word must match), one \`tolerance\` per query (the longest word's Typesense budget), enum facets ranked and cut to 10 by the adapter. MiniSearch: \`combineWith: 'AND'\`, fuzzy by each word's length (1 from 4 letters, 2 from 7), prefix on the last word only. Update: one security renamed (a new word) and its market cap raised, then a search for the new word; the repository writes it to PostgreSQL (writeSecurities, ${median(writes).toFixed(0)} ms median, not counted below: every engine's source of truth pays it) and its engine is current again when it has read the rows stamped since its version and applied them (\`currentEngine\`); measured ${REPO_UPDATES} times, the libraries ${QUERIES}. Ratios are the engine's ms over the repository's (above 1: slower).`,
      '',
      markdownTable(['engine', 'build ms', 'heap kept MB', 'lines for the search features'], buildRows),
      '',
      markdownTable(['query kind', 'engine', 'queries', 'p50 ms', 'p99 ms', 'p50 vs repo', 'p99 vs repo'], speedRows),
      '',
      markdownTable(
        [
          'engine',
          'updates',
          'update → current p50 ms',
          'p99 ms',
          'p50 vs repo',
          'next search p50 ms',
          'p99 ms',
          'updated security in its top 10',
        ],
        updateRows,
      ),
      '',
      "Agreement with the repository's index (the reference: Typesense's rules, held to a brute-force scan of every row by test/services/security-index.test.ts). Text: overlap@10 is the share of the two top 10s in common; filters: whether the top 10 is the same, in order.",
      '',
      markdownTable(
        [
          'kind',
          'shape',
          'engine',
          'queries',
          'repo mean found',
          'engine mean found',
          'same count',
          'top 10 same / overlap@10',
          'same facets',
        ],
        agreementRows,
      ),
    ].join('\n');
    record(section, args['dry-run']);
  } finally {
    await db.close();
  }
} finally {
  await scratch.drop();
}

function pkg(name: string): string {
  const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8'));
  return version;
}
