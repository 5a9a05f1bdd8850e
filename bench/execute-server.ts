// The lower bound of any JS GraphQL server over the gateway's schema, for bench/path-profile.ts:
// node:http, the JSON body read whole, graphql-js `execute` on a document parsed and validated
// once per text (harness.ts executeOnly), the JSON answer written. One fixed enterprise caller.
//
//   DATABASE_URL=... PORT=... node --import tsx bench/execute-server.ts   (path-profile.ts spawns it)
//
// Not run by `npm run bench -- execute-server` on purpose: without DATABASE_URL and PORT it exits.
import { createServer } from 'node:http';
import { openDatabase } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { executeOnly, JWT_SECRET } from './harness.js';

const { DATABASE_URL, PORT } = process.env;
if (!DATABASE_URL || !PORT) {
  console.error('bench/execute-server.ts is started by bench/path-profile.ts (it needs DATABASE_URL and PORT)');
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
const answer = executeOnly(config, db);
createServer((req, res) => {
  if (req.url === '/healthz') return void res.end('ok');
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    answer(Buffer.concat(chunks).toString('utf8')).then(
      (text) => res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(text),
      (e: Error) => res.writeHead(500).end(e.message),
    );
  });
}).listen(Number(PORT), '127.0.0.1');
process.on('SIGTERM', () => void db.close().finally(() => process.exit(0)));
