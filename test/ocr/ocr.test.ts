import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ROOT } from '../../src/config.js';
import { OCR_MODELS } from '../../src/config.js';
import { createTesseractEngine, EngineStoppedError, PSM } from '../../src/ocr/engine.js';
import { OcrPool } from '../../src/ocr/pool.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { testDatabases } from '../helpers.js';
import { rest } from '../rest/helpers.js';

// The real engine, offline: one app and one pool of two workers for the whole file, small images.

const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'ocr');
const LINE_WORDS = ['AAPL', '189.84', '+1.23'];

const dataUrl = (file: string, type = file.split('.').pop()!) =>
  `data:image/${type};base64,${fs.readFileSync(path.join(FIXTURES, file)).toString('base64')}`;
const post = (h: GraphQLHarness, body: unknown, options: { key?: string | null; type?: string } = {}) =>
  rest(h, '/ocr/v1/extract', {
    method: 'POST',
    key: options.key,
    headers: { 'content-type': options.type ?? 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

/** A PNG signature and IHDR chunk claiming these dimensions, and nothing else. */
function pngHeader(width: number, height: number): Buffer {
  const b = Buffer.alloc(33);
  b.writeUInt32BE(0x89504e47, 0);
  b.writeUInt32BE(0x0d0a1a0a, 4);
  b.writeUInt32BE(13, 8);
  b.write('IHDR', 12, 'latin1');
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  b.set([8, 0, 0, 0, 0], 24);
  return b;
}

describe('OCR: POST /ocr/v1/extract and the extractText mutation', () => {
  const [tdb] = testDatabases();
  const pool = new OcrPool({
    workers: 2,
    queueLimit: 64,
    queueTimeoutMs: 30_000,
    timeoutMs: 30_000,
    maxPixelsInFlight: 160_000_000,
  });
  let h: GraphQLHarness;
  const cwdFiles = fs.readdirSync(process.cwd());
  // the main thread must fetch nothing either (the worker threads have their own fetch: see below)
  const fetchSpy = vi.fn(() => Promise.reject(new Error('no network in the OCR tests')));
  const realFetch = globalThis.fetch;
  // Leptonica, inside a worker thread, tells stderr why an image it was given cannot be decoded
  // ("libpng error: Read Error", "Error in pixRead: …"), and Node pipes a worker thread's stderr
  // into this process's: the damaged-image test below would print those lines into the output.
  const stderrWrite = process.stderr.write;
  const leptonica = /^(libpng error|Error in pix)/;

  beforeAll(async () => {
    h = await graphqlHarness(tdb!, {}, pool);
    globalThis.fetch = fetchSpy as unknown as typeof fetch;
    process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) =>
      leptonica.test(String(chunk))
        ? true
        : stderrWrite.call(process.stderr, chunk, ...rest)) as typeof process.stderr.write;
  });
  afterAll(async () => {
    globalThis.fetch = realFetch;
    await pool.terminate();
    process.stderr.write = stderrWrite;
    await h?.close();
    await tdb!.cleanup();
  });

  it('reads each word of a clean line, with its box inside the image and a confidence in 0..1', async () => {
    const r = await post(h, { frame: dataUrl('line.png') });
    expect(r.status, r.text).toBe(200);
    expect(new Date(r.body.timestamp).toISOString()).toBe(r.body.timestamp);
    expect(r.body.results.map((w: { text: string }) => w.text)).toEqual(LINE_WORDS);
    for (const w of r.body.results) {
      expect(w.x).toBeGreaterThanOrEqual(0);
      expect(w.x).toBeLessThan(420);
      expect(w.y).toBeGreaterThanOrEqual(0);
      expect(w.y).toBeLessThan(60);
      expect(w.confidence).toBeGreaterThan(0.5);
      expect(w.confidence).toBeLessThanOrEqual(1);
    }
    const xs = r.body.results.map((w: { x: number }) => w.x);
    expect(xs).toEqual([...xs].sort((a, b) => a - b));
  });

  it.each(['jpeg', 'gif', 'bmp', 'webp'])('reads the same line from a %s frame', async (type) => {
    const r = await post(h, { frame: dataUrl(`line.${type}`) });
    expect(r.status, r.text).toBe(200);
    expect(r.body.results.map((w: { text: string }) => w.text)).toEqual(LINE_WORDS);
  });

  it('answers one {text} per line in video mode', async () => {
    const r = await post(h, { frame: dataUrl('video.png'), mode: 'video' });
    expect(r.status, r.text).toBe(200);
    expect(r.body.results).toEqual([{ text: 'NVLX 412.50 -0.82%' }, { text: 'Rates unchanged, markets rally' }]);
  });

  it('the GraphQL twin answers what REST does', async () => {
    const query =
      'mutation($frame: String!, $mode: OcrMode) { extractText(frame: $frame, mode: $mode) { timestamp results { text x y confidence } } }';
    const doc = await h.gql(query, { frame: dataUrl('line.png') });
    expect(doc.errors).toBeUndefined();
    const restAnswer = await post(h, { frame: dataUrl('line.png') });
    expect(doc.data.extractText.results).toEqual(restAnswer.body.results);
    const video = await h.gql(query, { frame: dataUrl('video.png'), mode: 'VIDEO' });
    expect(video.data.extractText.results[0]).toEqual({
      text: 'NVLX 412.50 -0.82%',
      x: null,
      y: null,
      confidence: null,
    });
  });

  it('ran offline: no fetch in this thread, and no eng.traineddata written to the working directory', () => {
    expect(fetchSpy).not.toHaveBeenCalled();
    expect(fs.readdirSync(process.cwd()).filter((f) => !cwdFiles.includes(f))).toEqual([]);
    expect(fs.existsSync(path.join(process.cwd(), 'eng.traineddata'))).toBe(false);
  });

  it.each(OCR_MODELS)(
    'a worker starts from the local %s model without fetching anything in its thread',
    async (model) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocr-fetch-'));
      const log = path.join(dir, 'fetches.log');
      process.env.OCR_TEST_FETCH_LOG = log; // the worker thread gets a copy of the environment
      try {
        const engine = await createTesseractEngine({
          model,
          workerPath: path.join(FIXTURES, 'record-fetch-worker.cjs'),
        });
        const page = await engine.recognize(fs.readFileSync(path.join(FIXTURES, 'line.png')), PSM.SINGLE_BLOCK);
        await engine.terminate();
        expect(page.words.map((w) => w.text)).toEqual(LINE_WORDS);
        expect(fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '').toBe('');
      } finally {
        delete process.env.OCR_TEST_FETCH_LOG;
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it('needs credentials and the enterprise tier', async () => {
    const frame = { frame: dataUrl('line.png') };
    expect((await post(h, frame, { key: null })).status).toBe(401);
    const pro = await post(h, frame, { key: 'demo-pro' });
    expect(pro.status).toBe(403);
    expect(pro.body.message).toBe("ocr needs the enterprise tier or higher; this caller's tier is pro");
    const doc = await h.gql(
      'mutation($f: String!) { extractText(frame: $f) { timestamp } }',
      { f: frame.frame },
      { 'x-api-key': 'demo-pro' },
    );
    expect(doc.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });

  const png = fs.readFileSync(path.join(FIXTURES, 'line.png'));
  const b64 = (b: Buffer) => b.toString('base64');
  it.each<[string, unknown, number, string | RegExp, string?]>([
    ['a body that is not JSON', '{"frame": ', 400, 'the body is not valid JSON'],
    ['a JSON array', [], 400, /^the body must be a JSON object \{"frame"/],
    [
      'no frame',
      {},
      400,
      'frame must be a string, a data URL data:image/<png|jpeg|webp|bmp|gif>;base64,<DATA>; got nothing',
    ],
    [
      'a frame that is a URL',
      { frame: 'https://example.com/chart.png' },
      400,
      'frame: must be a data URL data:image/<png|jpeg|webp|bmp|gif>;base64,<DATA> (URLs are not fetched); got "https://example.com/chart.png"',
    ],
    ['a data URL without a comma', { frame: 'data:image/png;base64' }, 400, /^frame: a data URL needs a comma/],
    [
      'data that is not base64-encoded',
      { frame: `data:image/png,${png.toString('latin1', 0, 20)}` },
      400,
      /^frame: the data must be base64-encoded/,
    ],
    [
      'data that is not valid base64',
      { frame: 'data:image/png;base64,iVBOR*w0KGgo=' },
      400,
      'frame: the data after "base64," is not valid base64',
    ],
    [
      'an unsupported image type',
      { frame: `data:image/tiff;base64,${b64(png)}` },
      415,
      'frame: the image type must be one of image/png, image/jpeg, image/webp, image/bmp, image/gif; got "image/tiff"',
    ],
    [
      'a type that is not an image',
      { frame: `data:text/plain;base64,${b64(Buffer.from('AAPL 189.84'))}` },
      415,
      /got "text\/plain"/,
    ],
    ['an empty image', { frame: 'data:image/png;base64,' }, 400, 'frame: the image is empty: no data after "base64,"'],
    [
      'bytes that are no image',
      { frame: `data:image/png;base64,${b64(Buffer.from('AAPL 189.84 +1.23'))}` },
      400,
      /^frame: the data is not a PNG, JPEG, WebP, BMP or GIF image \(first bytes: 4141504c/,
    ],
    [
      'a JPEG declared as PNG',
      { frame: `data:image/png;base64,${b64(fs.readFileSync(path.join(FIXTURES, 'line.jpeg')))}` },
      400,
      'frame: declared image/png but the data is a JPEG image',
    ],
    [
      'a PNG cut inside its header',
      { frame: `data:image/png;base64,${b64(png.subarray(0, 14))}` },
      400,
      'frame: the PNG header is truncated or invalid',
    ],
    [
      'a 0x0 image',
      { frame: `data:image/png;base64,${b64(pngHeader(0, 0))}` },
      400,
      'frame: the image has no pixels (0x0)',
    ],
    [
      'an image over 40 megapixels',
      { frame: `data:image/png;base64,${b64(pngHeader(8000, 8000))}` },
      413,
      'frame: the image is 8000x8000 = 64.0 megapixels; at most 40 megapixels',
    ],
    [
      'an unknown mode',
      { frame: dataUrl('line.png'), mode: 'fast' },
      400,
      'mode must be one of document, video; got "fast"',
    ],
  ])('answers %s with a clear 4xx, before any OCR', async (_name, body, status, message) => {
    const before = pool.stats();
    const r = await post(h, body);
    expect(r.status, r.text).toBe(status);
    if (typeof message === 'string') expect(r.body.message).toBe(message);
    else expect(r.body.message).toMatch(message);
    expect(pool.stats()).toEqual(before);
  });

  it('answers 415 for a body that is not application/json', async () => {
    const r = await post(h, { frame: dataUrl('line.png') }, { type: 'text/plain' });
    expect(r.status).toBe(415);
    expect(r.body.message).toBe('the body must be application/json; got "text/plain"');
  });

  it('answers 413 for a body over 10 MiB without reading it all', async () => {
    const r = await post(h, { frame: `data:image/png;base64,${'A'.repeat(10 * 1024 * 1024 + 4)}` });
    expect(r.status).toBe(413);
    expect(r.body.message).toBe('the body is too large: at most 10485760 bytes');
  });

  it('refuses a GraphQL frame over 10 MiB before reading it', async () => {
    const doc = await h.gql('mutation($f: String!) { extractText(frame: $f) { timestamp } }', {
      f: `data:image/png;base64,${'A'.repeat(10 * 1024 * 1024)}`,
    });
    expect(doc.errors?.[0]?.extensions?.code).toBe('PAYLOAD_TOO_LARGE');
    expect(doc.errors?.[0]?.message).toMatch(/^frame is too large: at most 10485760 bytes; got 10485782$/);
  });

  it('answers 400 for an image that passes the header checks but cannot be decoded, and keeps its workers', async () => {
    const before = pool.stats();
    const r = await post(h, { frame: `data:image/png;base64,${b64(png.subarray(0, 200))}` });
    expect(r.status, r.text).toBe(400);
    expect(r.body.message).toBe('frame: the image could not be decoded (damaged or truncated data)');
    expect(pool.stats()).toMatchObject({ started: before.started, replaced: before.replaced });
  });

  it('answers 20 concurrent requests, each with the right words, on the same two workers', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(h, { frame: dataUrl('line.png') })));
    for (const r of answers) {
      expect(r.status, r.text).toBe(200);
      expect(r.body.results.map((w: { text: string }) => w.text)).toEqual(LINE_WORDS);
    }
    expect(pool.stats()).toMatchObject({ started: 2, replaced: 0, workers: 2, queued: 0, running: 0 });
  });

  it('is healthy afterwards: /healthz and another recognition answer', async () => {
    expect((await h.app.fetch('http://test/healthz')).status).toBe(200);
    const r = await post(h, { frame: dataUrl('video.png'), mode: 'video' });
    expect(r.status).toBe(200);
    expect(r.body.results).toHaveLength(2);
  });
});

describe('OCR when busy', () => {
  const [tdb] = testDatabases();
  let release: () => void = () => {};
  const blocked = new Promise<void>((r) => (release = r));
  // one worker that holds its first job until released, and room for one waiting request
  const pool = new OcrPool({
    workers: 1,
    queueLimit: 1,
    queueTimeoutMs: 30_000,
    timeoutMs: 30_000,
    maxPixelsInFlight: 160_000_000,
    createEngine: async () => ({
      recognize: async () => {
        await blocked;
        return { words: [{ text: 'ok', x: 0, y: 0, confidence: 1 }], lines: ['ok'] };
      },
      terminate: async () => {},
    }),
  });
  let h: GraphQLHarness;
  beforeAll(async () => {
    h = await graphqlHarness(tdb!, {}, pool);
  });
  afterAll(async () => {
    await pool.terminate();
    await h?.close();
    await tdb!.cleanup();
  });

  it('answers 503 with Retry-After past the queue limit, and then serves the accepted requests', async () => {
    const frame = { frame: dataUrl('line.png') };
    const running = post(h, frame);
    const waiting = post(h, frame);
    await vi.waitFor(() => expect(pool.stats()).toMatchObject({ running: 1, queued: 1 }));
    const refused = await post(h, frame);
    expect(refused.status).toBe(503);
    expect(refused.body.code).toBe('SERVICE_UNAVAILABLE');
    expect(refused.body.message).toMatch(
      /^OCR is busy: 1 request is already waiting \(OCR_QUEUE_LIMIT\); retry in \d+ s$/,
    );
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // the GraphQL twin answers the same status and Retry-After, with the coded error
    const mutation = await h.app.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'demo-enterprise' },
      body: JSON.stringify({
        query: 'mutation($f: String!) { extractText(frame: $f) { timestamp } }',
        variables: { f: frame.frame },
      }),
    });
    expect(mutation.status).toBe(503);
    expect(Number(mutation.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await mutation.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe(
      'SERVICE_UNAVAILABLE',
    );
    release();
    expect((await running).status).toBe(200);
    expect((await waiting).status).toBe(200);
  });
});

describe('the OCR engine (a tesseract.js worker) once stopped or dead', () => {
  const png = fs.readFileSync(path.join(FIXTURES, 'line.png'));
  /** A promise's outcome once settled: a call into a stopped tesseract.js worker may never settle. */
  const track = (p: Promise<unknown>) => {
    const t: { settled: boolean; error?: unknown } = { settled: false };
    p.then(
      () => (t.settled = true),
      (error: unknown) => Object.assign(t, { settled: true, error }),
    );
    return t;
  };
  const unhandled: unknown[] = [];
  const listener = (e: unknown) => unhandled.push(e);
  beforeAll(() => process.on('unhandledRejection', listener));
  afterAll(() => process.off('unhandledRejection', listener));

  it('rejects the read running when it is stopped and every read after, and rejects nothing unhandled', async () => {
    const engine = await createTesseractEngine();
    const running = track(engine.recognize(png, PSM.SINGLE_BLOCK)); // stopped before tesseract.js posts it
    await engine.terminate();
    const after = [track(engine.recognize(png, PSM.SINGLE_BLOCK)), track(engine.recognize(png, PSM.AUTO))];
    await vi.waitFor(() => expect([running, ...after].every((t) => t.settled)).toBe(true), { timeout: 5000 });
    for (const t of [running, ...after]) expect(t.error).toBeInstanceOf(EngineStoppedError);
    await new Promise((r) => setImmediate(r));
    expect(unhandled).toEqual([]);
  });

  it.each(['throw', 'exit'])(
    'rejects a read whose worker thread dies (%s), and the process stays up',
    async (crash) => {
      process.env.OCR_TEST_CRASH = crash; // the worker thread gets a copy of the environment
      try {
        const engine = await createTesseractEngine({ workerPath: path.join(FIXTURES, 'crash-worker.cjs') });
        const read = track(engine.recognize(png, PSM.SINGLE_BLOCK));
        await vi.waitFor(() => expect(read.settled).toBe(true), { timeout: 5000 });
        expect(read.error).toBeInstanceOf(EngineStoppedError);
        expect((read.error as Error).message).toMatch(
          crash === 'exit' ? /exited \(code 3\)/ : /failed: the OCR test worker crashed/,
        );
        await expect(engine.recognize(png, PSM.SINGLE_BLOCK)).rejects.toThrow(EngineStoppedError);
        await engine.terminate();
        expect(unhandled).toEqual([]);
      } finally {
        delete process.env.OCR_TEST_CRASH;
      }
    },
  );
});
