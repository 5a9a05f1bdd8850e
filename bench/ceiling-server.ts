// The ceiling for the company-page benchmark: a hand-written node:http server answering
// GET /company-page?symbol=S with the very JSON the gateway's GraphQL company page returns
// ({"data":{"security":{...}}}), from six hand-written SQL statements through the gateway's own
// driver (pg with 4 pipelined connections, the six statements sent at once). No framework, no auth, no validation beyond the symbol: what the hardware allows.
//
//   DATABASE_URL=... PORT=... node --import tsx bench/ceiling-server.ts   (company-page.ts spawns it)
//
// Not run by `npm run bench -- ceiling-server` on purpose: without DATABASE_URL and PORT it exits.
import { createServer } from 'node:http';
import pg from 'pg';
import { parsePostgresUrl } from '../src/config.js';

const { DATABASE_URL, PORT } = process.env;
if (!DATABASE_URL || !PORT) {
  console.error('bench/ceiling-server.ts is started by bench/company-page.ts (it needs DATABASE_URL and PORT)');
  process.exit(2);
}
const database = parsePostgresUrl(DATABASE_URL);

// The six statements of a company page, as the gateway's queries order and limit them.
const SQL = {
  security: 'SELECT "id", "symbol", "name" FROM "Security" WHERE "symbol" = $1 ORDER BY "id" LIMIT 1',
  logo: 'SELECT "pngUrl" FROM "Logo" WHERE "symbol" = $1',
  quote:
    'SELECT "bidPrice", "askPrice", "sipTimestamp" FROM "Quote" WHERE "symbol" = $1 ORDER BY "sipTimestamp" DESC, "sequenceNumber" DESC LIMIT 1',
  balanceSheet:
    'SELECT b."reportingPeriodEnd", b."totalAssets", b."totalLiabilities", b."totalEquity" FROM "BalanceSheet" b JOIN "BalanceSheetSymbol" s ON s."balanceSheetId" = b."id" WHERE s."symbol" = $1 ORDER BY b."reportingPeriodEnd" DESC, b."id" DESC LIMIT 1',
  ratings:
    'SELECT "firm", "action", "rating", "priceTarget", "createdAt" FROM "Rating" WHERE "ticker" = $1 ORDER BY "createdAt" DESC, "id" DESC LIMIT 5',
  news: 'SELECT "headline", "type", "createdAt" FROM "NewsItem" WHERE "ticker" = $1 ORDER BY "createdAt" DESC, "id" DESC LIMIT 5',
} as const;
type Rows = { [K in keyof typeof SQL]: Record<string, any>[] };

/** ISO time of a nanosecond timestamp, as the gateway's DateTime scalar prints it. */
const nsToIso = (ns: bigint | string) => new Date(Number(BigInt(ns) / 1_000_000n)).toISOString();
const iso = (v: Date | string) => new Date(v).toISOString();
/** The GraphQL enum NewsType prints the stored value in upper case. */
const newsType = (t: string) => t.toUpperCase();

function page(r: Rows) {
  const s = r.security[0];
  if (!s) return { data: { security: null } };
  const q = r.quote[0];
  const b = r.balanceSheet[0];
  return {
    data: {
      security: {
        symbol: s.symbol,
        name: s.name,
        logo: r.logo[0] ? { png: { url: r.logo[0].pngUrl } } : null,
        latestQuote: q ? { bidPrice: q.bidPrice, askPrice: q.askPrice, time: nsToIso(q.sipTimestamp) } : null,
        latestBalanceSheet: b
          ? {
              reportingPeriodEnd: b.reportingPeriodEnd,
              totalAssets: b.totalAssets,
              totalLiabilities: b.totalLiabilities,
              totalEquity: b.totalEquity,
            }
          : null,
        ratings: {
          nodes: r.ratings.map((x) => ({
            firm: x.firm,
            action: x.action,
            rating: x.rating,
            priceTarget: x.priceTarget,
            createdAt: iso(x.createdAt),
          })),
        },
        news: {
          nodes: r.news.map((x) => ({ headline: x.headline, type: newsType(x.type), createdAt: iso(x.createdAt) })),
        },
      },
    },
  };
}

let load: (symbol: string) => Promise<Rows> | Rows;
{
  // Prisma stores DateTime as `timestamp(3)` in UTC; pg would read it as local time
  pg.types.setTypeParser(1114, (v) => new Date(`${v.replace(' ', 'T')}Z`));
  // What measured fastest with this driver (bench/RESULTS.md): 4 connections in pg's pipeline mode,
  // a page's six statements sent at once on one of them (round robin), each statement named (parsed
  // and planned once per connection) and its plan kept.
  const clients = await Promise.all(
    Array.from({ length: 4 }, async () => {
      const client = new pg.Client({
        connectionString: database.url,
        options: `-c search_path="${database.schema}" -c plan_cache_mode=force_generic_plan`,
        pipeline: true,
      } as pg.ClientConfig);
      await client.connect();
      return client;
    }),
  );
  let next = 0;
  const keys = Object.keys(SQL) as (keyof typeof SQL)[];
  load = async (symbol) => {
    const client = clients[next++ % clients.length]!;
    const results = await Promise.all(keys.map((k) => client.query({ name: k, text: SQL[k], values: [symbol] })));
    return Object.fromEntries(keys.map((k, i) => [k, results[i]!.rows])) as Rows;
  };
}

const SYMBOL = /^[A-Za-z0-9.-]{1,20}$/;
createServer(async (req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  if (url.pathname === '/healthz') return void res.end('ok');
  const symbol = url.searchParams.get('symbol')?.toUpperCase() ?? '';
  if (url.pathname !== '/company-page' || !SYMBOL.test(symbol)) {
    res.writeHead(404).end();
    return;
  }
  try {
    const body = JSON.stringify(page(await load(symbol)));
    res
      .writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) })
      .end(body);
  } catch (e) {
    console.error(`ceiling: ${(e as Error).message}`);
    res.writeHead(500).end();
  }
}).listen(Number(PORT), '127.0.0.1');
