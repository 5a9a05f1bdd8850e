import { createServer } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { createApp } from './app.js';
import { withSigningSecret } from './credentials/secret.js';
import { createRedis } from './runtime/redis.js';
import { createEventBus, openDatabase } from './bootstrap.js';
import { currentEngine } from './services/security-index.js';
import { checkServingConfig, loadConfig, type Config } from './config.js';
import { ConfigError } from './domain/env-values.js';
import { AppError } from './errors.js';
import type { Db } from './db/client.js';
import { createLogger } from './observability/log.js';
import { MigrationError } from './db/migrate.js';
import { EmbeddedClusterError } from './db/embedded.js';
import { OcrPool } from './ocr/pool.js';
import { installProcessGuard } from './runtime/process-guard.js';
import { DEMO_ACCOUNTS } from './services/account.js';
import { createTracing } from './observability/tracing.js';
import { attachWebSocket } from './graphql/ws.js';
import { directListener } from './http/direct.js';
import { serverOptions } from './http/node.js';

function readConfig(): Readonly<Config> {
  try {
    const config = loadConfig();
    checkServingConfig(config);
    return config;
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
    const where =
      'embedded' in config.database
        ? `the embedded PostgreSQL in ${config.database.embedded}`
        : `the PostgreSQL database at ${config.database.url.replace(/\/\/[^@]*@/, '//')}`;
    logger.fatal(e instanceof AppError ? { code: e.code } : {}, `cannot open ${where}: ${(e as Error).message}`);
    // a migration the code does not know, a database to create by hand, a cluster that cannot start: retrying will not help
    process.exit(
      e instanceof MigrationError ||
        e instanceof EmbeddedClusterError ||
        (e instanceof AppError && e.code === 'DATABASE_MISSING')
        ? 2
        : 1,
    );
  }
}

const config = withSigningSecret(readConfig());
const logger = createLogger(config.observability.logLevel, undefined, config.observability.logFormat);
// before anything can fail unseen; an uncaught exception drains a serving instance (see shutdown)
let serving = false;
installProcessGuard(logger, () => (serving ? void shutdown('uncaught exception', 1) : process.exit(1)));
const log = (msg: string) => logger.info(msg);
const db = await open(config);
const redis = config.redisUrl ? createRedis(config.redisUrl) : undefined;

const ocr = new OcrPool(config.ocr);
// the database's outbox: a row the CLI stores reaches every subscriber, with the position it resumes from
const events = createEventBus(config, db);
const tracing = await createTracing(config.observability, config.version);
let draining = false;
const app = createApp({ config, db, redis, ocr, events, logger, tracing, draining: () => draining });
// POST /graphql with a small JSON body skips the fetch adapter; everything else goes through it (http/direct.ts)
const server = createServer(
  serverOptions(config.connections),
  config.graphql.direct
    ? directListener({
        fallback: app,
        handle: app.direct,
        RequestClass: app.socket.yoga.fetchAPI.Request,
        fellBack: (reason) => app.fallbacks.record('direct', reason),
      })
    : app,
);
const webSocket = attachWebSocket(server, app, { isProd: config.nodeEnv === 'production' });

/** Ends every live subscription (SSE streams complete, WebSocket clients get 1001) and the bus; for shutdown. */
async function closeSubscriptions(): Promise<void> {
  await webSocket.close();
  await events.close();
}
/** Why listening failed, in words an operator acts on. */
function listenFailure(e: NodeJS.ErrnoException): string {
  const at = `${config.host}:${config.port}`;
  if (e.code === 'EADDRINUSE') return `port ${config.port} is in use (${at}): stop the other server or set PORT`;
  if (e.code === 'EACCES')
    return `port ${config.port} needs privileges this user lacks (${at}): set PORT to 1024 or above`;
  if (e.code === 'EADDRNOTAVAIL')
    return `HOST ${config.host} is no address of this machine: set HOST (0.0.0.0 listens on every address)`;
  return `cannot listen on ${at}: ${e.message}`;
}
server.on('error', (e: NodeJS.ErrnoException) => {
  logger.fatal(serving ? `server error: ${e.message}` : listenFailure(e));
  process.exit(1);
});
server.listen(config.port, config.host, () => {
  serving = true;
  // the search engine (services/security-index.ts) reads the master now, not when the first search
  // waits for it; a failure leaves it to the next search
  currentEngine(db).catch((err: unknown) =>
    logger.error({ err }, `reading the security master into the search engine failed: ${(err as Error)?.message}`),
  );
  const base = `http://localhost:${config.port}`;
  // the server and database of DATABASE_URL, never its credentials
  const where = (url: string) => {
    const u = new URL(url);
    return `${u.hostname}:${u.port || 5432}${u.pathname}`;
  };
  log(
    `listening at ${base} (GraphQL: ${base}/graphql, health: ${base}/healthz), with data from ${'embedded' in config.database ? 'the embedded PostgreSQL' : `PostgreSQL on ${where(config.database.url)}`}`,
  );
  if (config.nodeEnv !== 'production') {
    log(
      'demo accounts (password "demo-password"): ' +
        DEMO_ACCOUNTS.map((a) => `${a.email} key=${a.apiKey} tier=${a.tier}`).join('; '),
    );
  }
});

/**
 * SIGTERM/SIGINT: /readyz answers 503 at once (and for SHUTDOWN_DRAIN_DELAY_MS new connections are
 * still taken, for load balancers that poll it); then the listener closes, live subscriptions end,
 * keep-alive connections close as soon as they are idle, and requests in flight may finish until
 * SHUTDOWN_TIMEOUT_MS after the signal, when the connections still open are cut. Then the OCR
 * workers, the database, Redis and the trace exporter are stopped. Exit 0, or 1 if connections had
 * to be cut (or a second signal asked for it), and 1 after an uncaught exception (runtime/process-guard.ts).
 */
let cut = false;
async function shutdown(signal: string, exitCode = 0) {
  if (draining) {
    logger.warn(`${signal} again: closing every connection now`);
    cut = true;
    server.closeAllConnections();
    return;
  }
  draining = true;
  const t0 = Date.now();
  const { shutdownTimeoutMs, drainDelayMs } = config.lifecycle;
  log(`${signal}: stopping (requests in flight have ${shutdownTimeoutMs} ms)`);
  // whatever hangs below, the process ends
  setTimeout(() => process.exit(1), shutdownTimeoutMs + 5_000).unref();
  if (drainDelayMs > 0) await sleep(Math.min(drainDelayMs, shutdownTimeoutMs));

  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // live subscriptions never end by themselves: they would hold their connections to the deadline
  await closeSubscriptions().catch((e) => logger.warn({ err: e }, 'closing subscriptions failed'));
  server.closeIdleConnections();
  // a keep-alive connection becomes idle when its last response is sent: close it then
  const idle = setInterval(() => server.closeIdleConnections(), 100);
  const left = Math.max(0, shutdownTimeoutMs - (Date.now() - t0));
  let timer: NodeJS.Timeout | undefined;
  const drained = await Promise.race([
    closed.then(() => true),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), left))),
  ]);
  clearInterval(idle);
  clearTimeout(timer);
  if (!drained) {
    cut = true;
    logger.warn(
      `requests still in flight after SHUTDOWN_TIMEOUT_MS (${shutdownTimeoutMs} ms): closing their connections`,
    );
    server.closeAllConnections();
  }

  await ocr.terminate().catch(() => {});
  await db.close().catch(() => {});
  if (redis) await redis.quit().catch(() => redis.disconnect());
  await tracing?.shutdown().catch(() => {});
  log(`stopped in ${Date.now() - t0} ms${cut ? ' (connections cut)' : ''}`);
  process.exit(cut ? 1 : exitCode);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
