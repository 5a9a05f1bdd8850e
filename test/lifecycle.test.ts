import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../src/config.js';
import { freePort } from './helpers.js';

/**
 * Graceful shutdown of the real server (`node --import tsx src/server.ts`): SIGTERM while a slow
 * request runs. The slow request is a natural one: OCR of a large, noisy image (seconds of work for
 * a tesseract worker that also has to start), so no test-only path is needed.
 */


function crc32(bytes: Buffer): number {
  let crc = ~0;
  for (const b of bytes) {
    let c = (crc ^ b) & 0xff;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    crc = (crc >>> 8) ^ c;
  }
  return ~crc >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A grayscale PNG of black and white noise: costly for OCR (every speck is a candidate glyph), small on the wire. */
function noisePng(width: number, height: number): Buffer {
  const raw = Buffer.alloc((width + 1) * height);
  let x = 1;
  for (let y = 0; y < height; y++) {
    for (let i = 1; i <= width; i++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      raw[y * (width + 1) + i] = (x >>> 16) & 1 ? 0 : 255;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth; colour type 0 (grayscale), no interlace
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), pngChunk('IHDR', header), pngChunk('IDAT', zlib.deflateSync(raw)), pngChunk('IEND', Buffer.alloc(0))]);
}

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
    env: { ...process.env, NODE_ENV: '', DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'info', OCR_WORKERS: '1', OCR_TIMEOUT_MS: '120000', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, at: Date.now() })));
  const t0 = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${out}`);
    if (Date.now() - t0 > 120_000) throw new Error(`no 200 from /healthz within 120 s:\n${out}`);
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false);
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function ocrRequest(port: number, image: Buffer): Promise<Response> {
  return fetch(`http://127.0.0.1:${port}/ocr/v1/extract`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'demo-enterprise' },
    body: JSON.stringify({ frame: `data:image/png;base64,${image.toString('base64')}` }),
  });
}

describe('graceful shutdown of the real server', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdg-lifecycle-'));
  const children: ChildProcess[] = [];
  const image = noisePng(560, 560); // ~2 s to start the worker and ~6 s to read it, on one core: a wide margin
  afterAll(() => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('SIGTERM during a slow request: /readyz turns 503 at once, the request still gets its 200, new connections are then refused, exit 0', async () => {
    const drainDelayMs = 600;
    const timeoutMs = 90_000;
    const server = await startServer({ DATA_DIR: dataDir, SHUTDOWN_TIMEOUT_MS: String(timeoutMs), SHUTDOWN_DRAIN_DELAY_MS: String(drainDelayMs) });
    children.push(server.child);
    expect((await fetch(`http://127.0.0.1:${server.port}/readyz`)).status).toBe(200);

    const slow = ocrRequest(server.port, image);
    const slowDone = slow.then(() => Date.now(), () => Date.now());
    await sleep(500); // the request is in: its worker is starting, or already reading
    const signalledAt = Date.now();
    server.child.kill('SIGTERM');
    await sleep(200);

    // draining: still accepting (SHUTDOWN_DRAIN_DELAY_MS), but not ready
    const ready = await fetch(`http://127.0.0.1:${server.port}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'draining' });
    expect((await fetch(`http://127.0.0.1:${server.port}/healthz`)).status).toBe(200);

    // after the delay the listener is closed, while the slow request is still being worked on
    await sleep(drainDelayMs + 300);
    expect(await refused(server.port)).toBe(true);
    let finishedEarly = false;
    await Promise.race([slowDone.then(() => (finishedEarly = true)), sleep(0)]);
    expect(finishedEarly, 'the OCR request finished before the listener closed: the image is too small to test with').toBe(false);

    const res = await slow;
    expect(res.status).toBe(200);
    const body = (await res.json()) as { results: unknown[] };
    expect(Array.isArray(body.results)).toBe(true);

    const exit = await server.exited;
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.at - signalledAt).toBeLessThan(timeoutMs);
    expect(exit.at).toBeGreaterThanOrEqual(await slowDone);
    expect(server.output()).toContain('SIGTERM: stopping');
    expect(server.output()).toMatch(/stopped in \d+ ms"/);
  }, 240_000);

  it('a request still running at SHUTDOWN_TIMEOUT_MS has its connection cut, and the exit code says so', async () => {
    const server = await startServer({ DATA_DIR: dataDir, SHUTDOWN_TIMEOUT_MS: '1000' });
    children.push(server.child);
    const slow = ocrRequest(server.port, image).then((r) => r.status, (e: Error) => e);
    await sleep(500);
    const signalledAt = Date.now();
    server.child.kill('SIGTERM');

    expect(await slow).toBeInstanceOf(Error); // the connection was closed under it
    const exit = await server.exited;
    expect(exit).toMatchObject({ code: 1, signal: null });
    expect(exit.at - signalledAt).toBeLessThan(10_000);
    expect(server.output()).toContain('requests still in flight after SHUTDOWN_TIMEOUT_MS (1000 ms)');
  }, 180_000);
});
