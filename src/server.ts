import { createServer } from 'node:http';
import { createApp } from './app.js';
import { withSigningSecret } from './auth/secret.js';
import { createRedis } from './redis.js';
import { openDatabase } from './bootstrap.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import type { Db } from './db.js';
import { MigrationError } from './migrate.js';
import { OcrPool } from './ocr/pool.js';
import { DEMO_ACCOUNTS } from './services/account.js';

const log = (msg: string) => console.log(`[gateway] ${msg}`);

function readConfig(): Readonly<Config> {
  try {
    return loadConfig();
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    console.error(`configuration error: ${e.message}`);
    process.exit(2);
  }
}

async function open(config: Readonly<Config>): Promise<Db> {
  try {
    return await openDatabase(config, log);
  } catch (e) {
    const where = config.database.kind === 'sqlite' ? config.database.file : config.database.url.replace(/\/\/[^@]*@/, '//');
    console.error(`cannot open the ${config.database.kind} database at ${where}: ${(e as Error).message}`);
    process.exit(e instanceof MigrationError ? 2 : 1);
  }
}

const config = withSigningSecret(readConfig());
const db = await open(config);
const redis = config.redisUrl ? createRedis(config.redisUrl) : undefined;

const ocr = new OcrPool(config.ocr);
const app = createApp({ config, db, redis, ocr });
const server = createServer(app);
server.on('error', (e: NodeJS.ErrnoException) => {
  console.error(e.code === 'EADDRINUSE' ? `port ${config.port} is already in use (set PORT to another)` : `server error: ${e.message}`);
  process.exit(1);
});
server.listen(config.port, config.host, () => {
  const base = `http://localhost:${config.port}`;
  log(`serving ${config.database.kind} at ${base}  (GraphQL: ${base}/graphql, health: ${base}/healthz)`);
  if (config.nodeEnv !== 'production') {
    log('demo accounts (password "demo-password"): ' + DEMO_ACCOUNTS.map((a) => `${a.email} key=${a.apiKey} tier=${a.tier}`).join('; '));
  }
});

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log(`${signal}: stopping`);
  const deadline = setTimeout(() => process.exit(1), 10_000).unref();
  server.close();
  server.closeIdleConnections();
  await ocr.terminate().catch(() => {});
  await db.close().catch(() => {});
  redis?.disconnect();
  clearTimeout(deadline);
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
