// A lower bound for the company-page benchmark: the gateway's own schema and resolvers behind a
// bare Yoga (no plugin of ours, no authentication, rate limit, request log, metrics or body bound;
// every request runs as one fixed enterprise caller). What graphql-yoga, Pothos and our resolvers
// cost for the page with nothing of the gateway around them: the GraphQL page cannot be faster
// than this, whatever the gateway's request path does.
//
//   DATABASE_URL=... PORT=... node --import tsx bench/bare-yoga-server.ts   (company-page.ts spawns it)
//
// bench/peers.ts starts it too. Not run by `npm run bench -- bare-yoga-server` on purpose: without DATABASE_URL and PORT it exits.
import { createServer } from 'node:http';
import { openDatabase } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { bareYoga, JWT_SECRET } from './harness.js';

const { DATABASE_URL, PORT } = process.env;
if (!DATABASE_URL || !PORT) {
  console.error('bench/bare-yoga-server.ts is started by bench/company-page.ts (it needs DATABASE_URL and PORT)');
  process.exit(2);
}
const config = loadConfig({
  DATABASE_URL,
  NODE_ENV: 'production',
  JWT_SECRET,
  SAMPLE_DATA: 'none',
  LOG_LEVEL: 'silent',
});
const db = await openDatabase(config);
const yoga = bareYoga(config, db);
createServer((req, res) => {
  if (req.url === '/healthz') return void res.end('ok');
  // bench/peers.ts counts the statements of a page: the gateway says it on /metrics, this on /stats
  if (req.url === '/stats')
    return void res
      .setHeader('content-type', 'application/json')
      .end(JSON.stringify({ statements: db.statementCount }));
  return yoga(req, res);
}).listen(Number(PORT), '127.0.0.1');
// an exit of its own on SIGTERM, so that `--cpu-prof` (BENCH_SERVER_NODE_ARGS) writes its profile
process.on('SIGTERM', () => void db.close().finally(() => process.exit(0)));
