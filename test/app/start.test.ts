import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../src/config.js';
import { freePort, testDatabaseUrl, TEST_JWT_SECRET } from '../helpers.js';

interface Started {
  child: ChildProcess;
  output: () => string;
  /** Resolves once npm and the server under it have ended (the server holds npm's pipes): npm's exit code, or the signal that ended it. */
  exited: Promise<number | NodeJS.Signals | null>;
}

/** `npm start` exactly as the README says, in a fresh data directory. */
function npmStart(env: Record<string, string>): Started {
  // detached: its own process group, so a signal reaches npm and the server under it alike
  const child = spawn('npm', ['start'], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) =>
    child.on('close', (code, signal) => resolve(code ?? signal)),
  );
  return { child, output: () => out, exited };
}

async function waitForHealthy(port: number, started: Started, limitMs: number): Promise<number> {
  const t0 = Date.now();
  while (Date.now() - t0 < limitMs) {
    if (started.child.exitCode !== null) throw new Error(`server exited early:\n${started.output()}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (res.status === 200) return Date.now() - t0;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 50)); // a refused connection costs nothing: look often
  }
  throw new Error(`no 200 from /healthz within ${limitMs} ms:\n${started.output()}`);
}

/** SIGTERM to the whole group; resolves once the server has logged its shutdown and stopped listening. */
async function stop(started: Started, port: number): Promise<void> {
  process.kill(-started.child.pid!, 'SIGTERM');
  await started.exited;
  const t0 = Date.now();
  while (Date.now() - t0 < 15_000) {
    const listening = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      () => true,
      () => false,
    );
    if (!listening) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the server still answers 15 s after SIGTERM');
}

describe('npm start on a fresh machine', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdg-start-'));
  fs.chmodSync(dataDir, 0o755); // as root, the cluster runs as the user postgres, who must reach it
  const children: ChildProcess[] = [];
  afterAll(async () => {
    for (const c of children) {
      try {
        process.kill(-c.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    // a cluster a failed test left running: its postmaster's fast shutdown
    const pidFile = path.join(dataDir, 'pg', 'postmaster.pid');
    if (fs.existsSync(pidFile)) {
      const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
      try {
        process.kill(pid, 'SIGINT');
        for (let i = 0; i < 100 && fs.existsSync(pidFile); i++) await new Promise((r) => setTimeout(r, 100));
      } catch {
        /* already gone */
      }
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const postmasterRunning = () => fs.existsSync(path.join(dataDir, 'pg', 'postmaster.pid'));

  it('serves /healthz with sample data from an embedded PostgreSQL, prints the demo keys, stops the cluster with itself, and a restart does not seed again', async () => {
    const port = await freePort();
    const env = { PORT: String(port), DATA_DIR: dataDir, DATABASE_URL: '' };
    // what an earlier release left: it is named, not read
    fs.writeFileSync(path.join(dataDir, 'market.db'), 'SQLite format 3\0');
    const first = npmStart(env);
    children.push(first.child);
    await waitForHealthy(port, first, 120_000);
    expect(fs.existsSync(path.join(dataDir, 'pg', 'PG_VERSION'))).toBe(true);
    expect(postmasterRunning()).toBe(true);
    expect(first.output()).toContain('(SQLite) is no longer read: the data now lives in PostgreSQL');
    expect(first.output()).toMatch(/embedded PostgreSQL started on 127\.0\.0\.1:\d+/);
    expect(first.output()).toMatch(/sample data: 50 securities/);
    expect(first.output()).toContain('key=demo-pro');
    expect(first.output()).toContain(`http://localhost:${port}`);
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(ready.status).toBe(200);

    await stop(first, port);
    expect(first.output()).toContain('SIGTERM: stopping');
    expect(postmasterRunning()).toBe(false);

    const second = npmStart(env);
    children.push(second.child);
    await waitForHealthy(port, second, 120_000);
    expect(second.output()).not.toMatch(/sample data:/);
    expect(second.output()).not.toMatch(/applied migrations/);
    await stop(second, port);
  }, 300_000);

  it('a server killed with SIGKILL leaves its cluster running; the next start uses it, two servers share it, and the last to stop stops it', async () => {
    const [a, b] = [await freePort(), await freePort()];
    const killed = npmStart({ PORT: String(a), DATA_DIR: dataDir, DATABASE_URL: '' });
    children.push(killed.child);
    await waitForHealthy(a, killed, 120_000);
    process.kill(-killed.child.pid!, 'SIGKILL');
    await killed.exited;
    expect(postmasterRunning()).toBe(true);
    const pid = fs.readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0];

    const [one, two] = [
      npmStart({ PORT: String(a), DATA_DIR: dataDir, DATABASE_URL: '' }),
      npmStart({ PORT: String(b), DATA_DIR: dataDir, DATABASE_URL: '' }),
    ];
    children.push(one.child, two.child);
    await Promise.all([waitForHealthy(a, one, 120_000), waitForHealthy(b, two, 120_000)]);
    expect(one.output() + two.output()).not.toMatch(/embedded PostgreSQL started/);
    expect(fs.readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]).toBe(pid);
    await stop(one, a);
    expect(postmasterRunning()).toBe(true); // the other server still uses it
    expect((await fetch(`http://127.0.0.1:${b}/readyz`)).status).toBe(200);
    await stop(two, b);
    expect(postmasterRunning()).toBe(false);
  }, 300_000);

  it('a port already in use: one line naming the port and the remedy, no stack, exit code 1', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const started = npmStart({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, DATABASE_URL: '' });
      children.push(started.child);
      const code = await started.exited;
      expect(code).toBe(1);
      const out = started.output();
      expect(out).toContain(`port ${port} is in use (127.0.0.1:${port}): stop the other server or set PORT`);
      expect(out).not.toMatch(/Internal error|EADDRINUSE|\n\s+at /);
    } finally {
      taken.close();
    }
  }, 120_000);
});

describe('npm start on a PostgreSQL server without the database', () => {
  const name = `mdg_start_${process.pid}`;
  const url = new URL(testDatabaseUrl());
  url.pathname = `/${name}`;
  const children: ChildProcess[] = [];
  const admin = async (sql: string, params: unknown[] = []) => {
    const maintenance = new URL(url);
    maintenance.pathname = '/postgres';
    const client = new pg.Client({ connectionString: maintenance.toString() });
    await client.connect();
    try {
      return await client.query(sql, params);
    } finally {
      await client.end();
    }
  };
  afterAll(async () => {
    for (const c of children) {
      try {
        process.kill(-c.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });

  // in this order: the production start must find no database, the README's start then makes it
  it('in production stops at once with exit code 2 and one line naming the createdb command', async () => {
    const started = npmStart({
      PORT: String(await freePort()),
      DATABASE_URL: url.toString(),
      NODE_ENV: 'production',
      JWT_SECRET: TEST_JWT_SECRET,
      PUBLIC_URL: 'http://test',
    });
    children.push(started.child);
    expect(await started.exited).toBe(2);
    const fatal = started
      .output()
      .split('\n')
      .filter((l) => l.includes('"level":"fatal"'));
    expect(fatal).toHaveLength(1);
    expect(JSON.parse(fatal[0]!)).toMatchObject({
      code: 'DATABASE_MISSING',
      msg: expect.stringContaining(`create it with: createdb -h ${url.hostname}`),
    });
    expect((await admin('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount).toBe(0);
  }, 60_000);

  it('as the README says: creates the database, seeds it and serves', async () => {
    const port = await freePort();
    const started = npmStart({ PORT: String(port), DATABASE_URL: url.toString() });
    children.push(started.child);
    await waitForHealthy(port, started, 120_000);
    expect(started.output()).toContain(
      `created database \\"${name}\\" (UTF8, collation C.UTF-8: text compares by code point)`,
    );
    expect(started.output()).toMatch(/sample data: 50 securities/);
    await stop(started, port);
  }, 180_000);
});
