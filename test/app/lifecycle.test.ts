import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ROOT } from '../../src/config.js';
import { databaseUrlOf, freePort, testDatabases } from '../helpers.js';

/**
 * Graceful shutdown of the real server (`node --import tsx src/server.ts`): SIGTERM while a slow
 * request runs. The slow request is a natural one, a client uploading its body slowly: the request
 * cannot finish before its last byte arrives, however fast the machine, so no test-only path is
 * needed and the timing holds on a machine of any speed.
 */

interface Started {
  child: ChildProcess;
  port: number;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

async function startServer(env: Record<string, string>): Promise<Started> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: '',
      DATABASE_URL: '',
      REDIS_URL: '',
      LOG_LEVEL: 'info',
      PORT: String(port),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  const t0 = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${out}`);
    if (Date.now() - t0 > 120_000) throw new Error(`no 200 from /healthz within 120 s:\n${out}`);
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { child, port, output: () => out, exited };
    await new Promise((r) => setTimeout(r, 50)); // a refused connection costs nothing: look often
  }
}

/** Resolves true when a TCP connection to the port is refused. */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED'));
  });
}

/**
 * A GraphQL request whose body arrives a few bytes every 100 ms for `ms`. `arrived` resolves once
 * the server has read its headers: it sends `Expect: 100-continue`, which Node's server answers as
 * it takes the request in. `status` is its status once answered, or the error if the connection
 * is cut under it.
 */
function slowUpload(port: number, ms: number): { arrived: Promise<void>; status: Promise<number | Error> } {
  let arrived!: () => void;
  const status = new Promise<number | Error>((resolve) => {
    const req = http.request({
      host: '127.0.0.1',
      port,
      path: '/graphql',
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'demo-enterprise', expect: '100-continue' },
    });
    req.on('continue', () => arrived());
    let timer: NodeJS.Timeout | undefined;
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', (e) => {
      clearInterval(timer);
      resolve(e);
    });
    req.write('{"query": "{ __typename }"');
    const until = Date.now() + ms;
    timer = setInterval(() => {
      if (Date.now() < until) return void req.write('  ');
      clearInterval(timer);
      req.end('}');
    }, 100);
  });
  return {
    arrived: new Promise((resolve, reject) => {
      arrived = resolve;
      void status.then((s) => reject(new Error(`no 100 Continue: the request ended first with ${String(s)}`)));
    }),
    status,
  };
}

describe('graceful shutdown of the real server', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdg-lifecycle-'));
  const tdb = testDatabases()[0]!;
  const children: ChildProcess[] = [];
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
    await tdb.cleanup();
  });

  it('SIGTERM during a slow request: /readyz turns 503 at once, the request still gets its 200, new connections are then refused, exit 0', async () => {
    const drainDelayMs = 600;
    const timeoutMs = 90_000;
    const server = await startServer({
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrlOf(await tdb.createSeeded()),
      SHUTDOWN_TIMEOUT_MS: String(timeoutMs),
      SHUTDOWN_DRAIN_DELAY_MS: String(drainDelayMs),
    });
    children.push(server.child);
    expect((await fetch(`http://127.0.0.1:${server.port}/readyz`)).status).toBe(200);

    const slow = slowUpload(server.port, 4_000);
    const slowDone = slow.status.then(() => Date.now());
    await slow.arrived; // the request is in: its body is arriving
    const signalledAt = Date.now();
    server.child.kill('SIGTERM');

    // draining: still accepting (SHUTDOWN_DRAIN_DELAY_MS), but not ready
    const ready = await vi.waitFor(
      async () => {
        const r = await fetch(`http://127.0.0.1:${server.port}/readyz`);
        expect(r.status).toBe(503);
        return r;
      },
      { timeout: 5_000, interval: 20 },
    );
    expect(await ready.json()).toMatchObject({ status: 'draining' });
    expect((await fetch(`http://127.0.0.1:${server.port}/healthz`)).status).toBe(200);

    // after the delay the listener is closed, while the slow request is still being worked on
    await vi.waitFor(async () => expect(await refused(server.port)).toBe(true), { timeout: 10_000, interval: 50 });
    expect(Date.now() - signalledAt).toBeGreaterThanOrEqual(drainDelayMs);
    let finishedEarly = false;
    await Promise.race([slowDone.then(() => (finishedEarly = true)), new Promise((r) => setImmediate(r))]);
    expect(finishedEarly, 'the slow request finished before the listener closed').toBe(false);

    expect(await slow.status).toBe(200);

    const exit = await server.exited;
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.at - signalledAt).toBeLessThan(timeoutMs);
    expect(exit.at).toBeGreaterThanOrEqual(await slowDone);
    expect(server.output()).toContain('SIGTERM: stopping');
    expect(server.output()).toMatch(/stopped in \d+ ms"/);
  }, 240_000);

  it('a request still running at SHUTDOWN_TIMEOUT_MS has its connection cut, and the exit code says so', async () => {
    const server = await startServer({
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrlOf(await tdb.createSeeded()),
      SHUTDOWN_TIMEOUT_MS: '1000',
    });
    children.push(server.child);
    const slow = slowUpload(server.port, 30_000);
    await slow.arrived;
    const signalledAt = Date.now();
    server.child.kill('SIGTERM');

    expect(await slow.status).toBeInstanceOf(Error); // the connection was closed under it
    const exit = await server.exited;
    expect(exit).toMatchObject({ code: 1, signal: null });
    expect(exit.at - signalledAt).toBeLessThan(10_000);
    expect(server.output()).toContain('requests still in flight after SHUTDOWN_TIMEOUT_MS (1000 ms)');
  }, 180_000);
});
