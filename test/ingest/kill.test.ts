// kill -9 in the middle of `cli import trades FILE`, then the same import again: the table ends
// exactly as after one clean run (each batch is one transaction, and writing a row again is a no-op);
// and each stored trade has its live event, once: they commit in the batch's transaction.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, type DatabaseConfig } from '../../src/config.js';
import { createDb, type Db } from '../../src/db/client.js';
import { importStream } from '../../src/ingest/import-stream.js';
import { importer } from '../../src/ingest/resources/trade.js';
import { migrate } from '../../src/db/migrate.js';
import { databaseUrlOf, testDatabases } from '../helpers.js';

// 20 batches are enough: the kill lands once 2 are committed, with 18 still to write (the child
// writes 20-30k rows/s, ~40 ms a batch, and the poll looks every 25 ms), so it always cuts the
// import short with a batch in flight; the rerun then has both committed rows to leave alone and
// missing ones to insert. (60k rows proved nothing more and tripled the time of every phase.)
const ROWS = 20_000;
const BATCH = 1_000;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-kill-'));
const file = path.join(dir, 'trades.ndjson');
{
  const lines: string[] = [];
  for (let i = 0; i < ROWS; i++) {
    const s = i % 20;
    lines.push(
      `{"symbol":"K${s}","conditions":[${i % 3 ? '12,37' : ''}],"exchange":${4 + (i % 5)},"id":"${i}","price":${100 + s + (i % 997) / 100},` +
        `"sequence_number":${9_007_199_254_740_000n + BigInt(Math.floor(i / 20))},"sip_timestamp":${1_795_208_399_000_000_000n + BigInt(i) * 7_919n},"size":${1 + (i % 500)},"tape":${1 + (s % 3)}}`,
    );
  }
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
}
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const cliArgs = ['--import', 'tsx', 'src/cli.ts', 'import', 'trades', file, '--batch', String(BATCH)];
const cliEnv = (d: DatabaseConfig) => ({
  ...process.env,
  DATABASE_URL: databaseUrlOf(d),
  NODE_ENV: 'test',
  REDIS_URL: '',
});

/** The whole table, in key order, as one hash (every column, bigints as their digits). */
async function tableHash(db: Db): Promise<{ rows: number; hash: string }> {
  const hash = createHash('sha256');
  let rows = 0;
  let after: { symbol: string; sequenceNumber: bigint } | undefined;
  for (;;) {
    const page = await db.prisma.trade.findMany({
      where: after
        ? {
            OR: [
              { symbol: { gt: after.symbol } },
              { symbol: after.symbol, sequenceNumber: { gt: after.sequenceNumber } },
            ],
          }
        : {},
      orderBy: [{ symbol: 'asc' }, { sequenceNumber: 'asc' }],
      take: 20_000,
    });
    if (page.length === 0) return { rows, hash: hash.digest('hex') };
    for (const t of page) hash.update(JSON.stringify(t, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));
    rows += page.length;
    after = page.at(-1);
  }
}

/** How many live events of trades the database keeps (db/outbox.ts). */
async function tradeEvents(db: Db): Promise<number> {
  const [r] = await db.prisma.$queryRawUnsafe<{ n: bigint }[]>(
    `SELECT count(*) AS n FROM "LiveEvent" WHERE topic LIKE 'trade:%'`,
  );
  return Number(r!.n);
}

describe.each(testDatabases())('kill -9 during an import on $name', (tdb) => {
  afterAll(() => tdb.cleanup());

  it('a rerun after kill -9 ends with exactly the rows of one clean run', async () => {
    const killed = await tdb.create();
    const clean = await tdb.create();
    await migrate(killed);
    await migrate(clean);
    const db = await createDb(killed);
    const cleanDb = await createDb(clean);
    try {
      const child = spawn(process.execPath, cliArgs, {
        cwd: ROOT,
        env: cliEnv(killed),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
        child.on('exit', (code, signal) => resolve(signal ?? code)),
      );
      // some batches committed, not all: then the process dies without any chance to clean up
      await expect
        .poll(() => db.prisma.trade.count(), { timeout: 20_000, interval: 25 })
        .toBeGreaterThanOrEqual(BATCH * 2);
      child.kill('SIGKILL');
      expect(await exited, stderr).toBe('SIGKILL');
      const atKill = await db.prisma.trade.count();
      expect(atKill).toBeGreaterThan(0);
      expect(atKill).toBeLessThan(ROWS);
      expect(atKill % BATCH).toBe(0); // whole batches only: the one in flight was rolled back
      // the events of exactly the committed batches: none lost after its rows, none without them
      expect(await tradeEvents(db)).toBe(atKill);

      const rerun = spawnSync(process.execPath, cliArgs, {
        cwd: ROOT,
        env: cliEnv(killed),
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(rerun.status, rerun.stderr).toBe(0);
      const n = (x: number) => x.toLocaleString('en-US');
      expect(rerun.stdout).toContain(
        `${n(ROWS)} read, ${n(ROWS - atKill)} inserted, 0 updated, ${n(atKill)} unchanged, 0 rejected`,
      );

      const once = await importStream(cleanDb, importer, file, { batchSize: BATCH });
      expect(once.counts).toMatchObject({ inserted: ROWS, rejected: 0 });
      const [a, b] = [await tableHash(db), await tableHash(cleanDb)];
      expect(a.rows).toBe(ROWS);
      expect(a).toEqual(b);
      expect(await tradeEvents(db)).toBe(ROWS); // the rerun published only what it inserted
    } finally {
      await db.close();
      await cleanDb.close();
    }
  }, 60_000);
});
