// The peer of bench/peers.ts: PostGraphile 5 (amber preset) over the scratch PostgreSQL schema the
// bench seeded, with the relations of bench/peers/relations.sql as computed columns. Run as
// production would: no GraphiQL, no watch mode, no explain, NODE_ENV=production. /healthz answers
// the bench's probe; /stats says how many statements its connections sent, counted on every pg
// client the pool hands out (introspection at start included: the bench reads differences).
//
//   DATABASE_URL=postgresql://…?schema=… PORT=… node --import ./bench/peers/polyfill.mjs --import tsx bench/peers/postgraphile-server.ts
//
// PostGraphile declares Node >= 22 (npm ci warns EBADENGINE); polyfill.mjs supplies what it uses
// of Node 22 on this project's Node 20. bench/peers.ts starts it; without DATABASE_URL and PORT it exits.
import { createServer } from 'node:http';
import pg from 'pg';
import { postgraphile } from 'postgraphile';
import { makePgService } from 'postgraphile/adaptors/pg';
import { grafserv } from 'postgraphile/grafserv/node';
import { PostGraphileAmberPreset } from 'postgraphile/presets/amber';
import { parsePostgresUrl } from '../../src/config.js';

const { DATABASE_URL, PORT } = process.env;
if (!DATABASE_URL || !PORT) {
  console.error('bench/peers/postgraphile-server.ts is started by bench/peers.ts (it needs DATABASE_URL and PORT)');
  process.exit(2);
}
const database = parsePostgresUrl(DATABASE_URL);

// the size of the gateway's Prisma pool (src/db/client.ts); relations.sql names tables unqualified
const pool = new pg.Pool({ connectionString: database.url, max: 10, options: `-c search_path="${database.schema}"` });
pool.on('error', () => {});
let statements = 0;
pool.on('connect', (client) => {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
    statements++;
    return query(...args);
  };
});

const preset: GraphileConfig.Preset = {
  extends: [PostGraphileAmberPreset],
  pgServices: [makePgService({ pool, schemas: [database.schema] })],
  grafserv: { graphiql: false, graphiqlOnGraphQLGET: false, watch: false, websockets: false },
  grafast: { explain: false },
};
const pgl = postgraphile(preset);
const serv = pgl.createServ(grafserv);
const handler = serv.createHandler();

const server = createServer((req, res) => {
  if (req.url === '/healthz') return void res.end('ok');
  if (req.url === '/stats')
    return void res.setHeader('content-type', 'application/json').end(JSON.stringify({ statements }));
  handler(req, res);
});
// the schema is built before the first request is served, so the probe waits for it
await serv.ready();
server.listen(Number(PORT), '127.0.0.1');
process.on('SIGTERM', () => {
  server.close();
  void Promise.resolve(pgl.release())
    .finally(() => pool.end())
    .finally(() => process.exit(0));
});
