// Our own attack suite, the process guard (src/runtime/process-guard.ts): an error nothing caught neither
// ends the process mid-request nor goes unseen. The faults are injected (test/fixtures/), as no
// input of ours is known to cause one any more: each finding that did is fixed at its cause.
import { execFile, spawn } from 'node:child_process';
import http from 'node:http';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../src/config.js';
import { databaseUrlOf, freePort, testDatabases } from '../helpers.js';

const run = promisify(execFile);

describe('the process guard', () => {
  const tdb = testDatabases()[0]!;
  afterAll(() => tdb.cleanup());
  // Two writers share stdout: the logger writes its lines once per turn of the event loop (or at
  // exit; observability/log.ts), the fixture its counts line at once. Which comes first depends on
  // the turn the check runs in, so the lines are matched by what they say, not by their order.
  it('logs an unhandled rejection with the request id of its request, counts it, and the process goes on, however late its event loop runs', async () => {
    const runs = await Promise.all(
      [[], ['--late']].map((late) =>
        run(process.execPath, ['--import', 'tsx', 'test/fixtures/guarded-scope.ts', ...late], {
          cwd: ROOT,
          env: { ...process.env, NODE_ENV: 'test' },
        }),
      ),
    );
    for (const { stdout } of runs) {
      const lines = stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, any>);
      expect(lines).toHaveLength(2);
      const logged = lines.find((l) => l.kind === 'unhandled_rejection');
      expect(logged).toMatchObject({ level: 'error', requestId: 'req-guard-1', kind: 'unhandled_rejection' });
      expect(logged!.msg).toContain('lost in a request');
      expect(lines.filter((l) => 'counts' in l)).toEqual([
        { counts: { unhandled_rejection: 1, uncaught_exception: 0 }, alive: true },
      ]);
    }
  });

  it('keeps the server up after an unhandled rejection; after an uncaught exception it turns not-ready, finishes the request in flight and exits 1', async () => {
    const port = await freePort();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--import', './test/fixtures/inject-faults.mjs', 'src/server.ts'],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          NODE_ENV: '',
          DATABASE_URL: databaseUrlOf(await tdb.createSeeded()),
          REDIS_URL: '',
          LOG_LEVEL: 'info',
          PORT: String(port),
          SHUTDOWN_TIMEOUT_MS: '20000',
          SHUTDOWN_DRAIN_DELAY_MS: '1500',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const base = `http://127.0.0.1:${port}`;
    try {
      await expect
        .poll(
          () =>
            fetch(`${base}/healthz`).then(
              (r) => r.status,
              () => 0,
            ),
          { timeout: 120_000, interval: 100 },
        )
        .toBe(200);

      child.kill('SIGUSR2');
      await expect.poll(() => out, { timeout: 10_000 }).toContain('injected rejection');
      expect((await fetch(`${base}/readyz`)).status).toBe(200);
      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(metrics).toMatch(/mdg_process_errors_total\{kind="unhandled_rejection"\} 1/);

      // a request in flight: its body arrives slowly, so it is still running when the fault comes
      let sent!: () => void;
      const headersSent = new Promise<void>((resolve) => (sent = resolve));
      const slow = new Promise<number>((resolve, reject) => {
        const req = http.request({
          host: '127.0.0.1',
          port,
          path: '/graphql',
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': 'demo-pro' },
        });
        req.on('response', (res) => (res.resume(), res.on('end', () => resolve(res.statusCode ?? 0))));
        req.on('error', reject);
        req.write('{"query": "{ __typename }"', () => sent());
        let n = 0;
        const timer = setInterval(() => {
          if (++n < 20) return void req.write(' ');
          clearInterval(timer);
          req.end('}');
        }, 100);
      });
      await headersSent;
      expect((await fetch(`${base}/readyz`)).status).toBe(200); // a round trip after the slow request's first bytes
      child.kill('SIGHUP');
      await expect.poll(() => out, { timeout: 10_000 }).toContain('injected exception');
      expect(out).toMatch(/"level":"fatal".*uncaught exception: Error: injected exception; not ready any more/);
      // not ready while it drains (load balancers stop sending), then it stops listening
      expect((await fetch(`${base}/readyz`)).status).toBe(503);
      expect(await slow).toBe(200);
      expect(await exited).toBe(1);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
