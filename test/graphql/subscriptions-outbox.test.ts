// Live events between processes without Redis (db/outbox.ts): `npm start` and, in another shell,
// `npm run cli -- import trades FILE`, as README's live examples run them, on each database. The
// server and the CLI are processes of their own; REDIS_URL is not set for either.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/bootstrap.js';
import { ROOT, type DatabaseConfig } from '../../src/config.js';
import { LISTENER_NAME } from '../../src/db/outbox-store.js';
import {
  REPLAY_LIMITS,
  databaseUrlOf,
  testDatabaseUrl,
  testConfig,
  testDatabases,
  TEST_JWT_SECRET,
  freePort,
} from '../helpers.js';
import { ndjson, SEQ, sse, trade, within, wsClients } from './subscription-helpers.js';

const TRADE = 'subscription { tradeAdded(symbol: "NVLX") { symbol sequenceNumber sipTimestamp } }';
const tradeAdded = (sequenceNumber: bigint) => ({
  data: { tradeAdded: { symbol: 'NVLX', sequenceNumber: String(sequenceNumber), sipTimestamp: '1795208399869397596' } },
});

describe.each(testDatabases())('live events across processes without Redis, on $name', (tdb) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdg-outbox-'));
  const children: ChildProcess[] = [];
  let database: DatabaseConfig;
  let env: Record<string, string>;
  let base: string;
  let output = '';
  const ws = wsClients(() => `${base.replace('http:', 'ws:')}/graphql`);

  /** The process's exit code and output, within 60 s (tsx compiles the CLI on start). */
  async function run(args: string[]): Promise<{ code: number | null; out: string }> {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const code = await within(
      new Promise<number | null>((resolve) => child.on('exit', resolve)),
      60_000,
      `exit of cli ${args.join(' ')}`,
    );
    return { code, out };
  }

  const importTrades = async (...sequences: bigint[]) => {
    const file = path.join(dataDir, `trades-${sequences.join('-')}.ndjson`);
    fs.writeFileSync(file, ndjson(sequences.flatMap((s) => [trade('NVLX', s), trade('ORBT', s)])));
    const imported = await run(['import', 'trades', file]);
    expect(imported.code, imported.out).toBe(0);
  };

  beforeAll(async () => {
    database = await tdb.createSeeded('none');
    await (await openDatabase(testConfig(database))).close();
    const { REDIS_URL: _unset, ...inherited } = process.env;
    env = {
      ...inherited,
      DATABASE_URL: databaseUrlOf(database),
      JWT_SECRET: TEST_JWT_SECRET,
      NODE_ENV: 'test',
      SAMPLE_DATA: 'none',
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
    } as Record<string, string>;
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const server = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      cwd: ROOT,
      env: { ...env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(server);
    server.stdout!.on('data', (d) => (output += d));
    server.stderr!.on('data', (d) => (output += d));
    const t0 = Date.now();
    while (
      (await fetch(`${base}/healthz`).then(
        (r) => r.status,
        () => 0,
      )) !== 200
    ) {
      if (server.exitCode !== null || Date.now() - t0 > 60_000)
        throw new Error(`the server did not come up:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  afterAll(async () => {
    await ws.disposeAll();
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await tdb.cleanup();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('a trade `cli import` stores in another process reaches an SSE and a WebSocket subscriber of the running server', async () => {
    const { client } = ws.client({ apiKey: 'demo-pro' }, undefined, { lazy: false });
    // a selection of its own: a subscription of its own on the bus, not a member of the SSE one's group
    const overWs = ws.run(client, 'subscription { tradeAdded(symbol: "NVLX") { sequenceNumber symbol sipTimestamp } }');
    const overSse = await sse(fetch, base, TRADE, { 'x-api-key': 'demo-pro' });
    expect(overSse.response.status).toBe(200);

    await importTrades(SEQ);

    expect(await overSse.next(10_000)).toEqual(tradeAdded(SEQ));
    await expect.poll(() => overWs.results, { timeout: 10_000 }).toEqual([tradeAdded(SEQ)]);
    // the ORBT trade of the same import went to nobody here; nothing else came
    await importTrades(SEQ + 1n);
    expect(await overSse.next(10_000)).toEqual(tradeAdded(SEQ + 1n));
    await expect.poll(() => overWs.results.length, { timeout: 10_000 }).toBe(2);
    overWs.dispose();
    await overSse.cancel();
  });

  it('keeps the table bounded: rows older than the replay depth are pruned by the next import', async () => {
    const overSse = await sse(fetch, base, TRADE, { 'x-api-key': 'demo-pro' });
    const client = await rawClient(database);
    try {
      await client.exec(`UPDATE "LiveEvent" SET at = at - ${REPLAY_LIMITS.ms + 60_000}`);
      const before = await client.count();
      expect(before).toBeGreaterThan(0);
      await importTrades(SEQ + 10n);
      // the two rows of this import stay; every older one went
      expect(await client.count()).toBe(2);
      expect(await overSse.next(10_000)).toEqual(tradeAdded(SEQ + 10n));
    } finally {
      await overSse.cancel();
      await client.close();
    }
  });

  it('a dropped LISTEN connection is opened again: the server lives, and events come after it as before', async () => {
    const overSse = await sse(fetch, base, TRADE, { 'x-api-key': 'demo-pro' });
    expect(overSse.response.status).toBe(200);
    const admin = new pg.Client({ connectionString: testDatabaseUrl() });
    await admin.connect();
    try {
      const listeners = async () =>
        (
          await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [
            LISTENER_NAME,
          ])
        ).rows.map((r) => r.pid);
      const [first] = await listeners();
      expect(first).toBeDefined();
      await admin.query('SELECT pg_terminate_backend($1)', [first]);
      await expect.poll(async () => (await listeners()).filter((p) => p !== first).length, { timeout: 10_000 }).toBe(1);
    } finally {
      await admin.end();
    }
    await importTrades(SEQ + 20n);
    expect(await overSse.next(10_000)).toEqual(tradeAdded(SEQ + 20n));
    await overSse.cancel();
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });
});

/** Plain SQL on the test database, for what no API shows: the rows of "LiveEvent". */
async function rawClient(
  database: DatabaseConfig,
): Promise<{ exec(sql: string): Promise<void>; count(): Promise<number>; close(): Promise<void> }> {
  const COUNT = 'SELECT count(*) AS n FROM "LiveEvent"';
  const client = new pg.Client({ connectionString: database.url, options: `-c search_path="${database.schema}"` });
  await client.connect();
  return {
    exec: async (sql) => void (await client.query(sql)),
    count: async () => Number((await client.query<{ n: string }>(COUNT)).rows[0]!.n),
    close: () => client.end(),
  };
}
