// The OCR burst of issue 16: `frames` concurrent 40-megapixel frames from one enterprise key, in
// document mode and then in video mode. Every frame must be answered 200 or 503 with Retry-After,
// the process must stay up and the pool must keep completing frames.
import zlib from 'node:zlib';
import type { Server } from '../harness.js';
import { tally, watch, type AttackReport } from './common.js';

/** Each request's own limit: a client gives up after this and counts `error` (the server's own are 20 s + 30 s). */
const CLIENT_TIMEOUT_MS = 120_000;
const WIDTH = 8000;

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * A grayscale PNG of width x height pixels: vertical black and white stripes 8 pixels wide, broken
 * by a white band every 64 rows. Rows repeat, so 40 MP deflates to ~80 KB; the engine finds no word
 * in it, so document mode runs both of its passes (~1.4 s and ~1.1 s on one idle core at 40 MP).
 */
export function stripedPng(width: number, height: number): Buffer {
  const row = Buffer.alloc(1 + width); // filter byte 0, then the pixels
  for (let x = 0; x < width; x++) row[1 + x] = (x >> 3) & 1 ? 0 : 255;
  const blank = Buffer.alloc(1 + width, 255);
  blank[0] = 0;
  const raw = Buffer.alloc((1 + width) * height);
  for (let y = 0; y < height; y++) (y % 64 < 8 ? blank : row).copy(raw, y * (1 + width));
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 0, 0, 0, 0], 8); // 8-bit grayscale, deflate, no filter method, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

interface Answer {
  status: number | 'error';
  retryAfter: number | null;
  /** The limit a 503 names, e.g. OCR_MAX_PIXELS_IN_FLIGHT. */
  limit: string | null;
}

async function post(server: Server, key: string, body: string): Promise<Answer> {
  try {
    const r = await fetch(`${server.base}/ocr/v1/extract`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body,
      signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
    });
    const text = await r.text();
    const retryAfter = r.headers.get('retry-after');
    return {
      status: r.status,
      retryAfter: retryAfter === null ? null : Number(retryAfter),
      limit: /\((OCR_[A-Z_]+)/.exec(text)?.[1] ?? null,
    };
  } catch {
    return { status: 'error', retryAfter: null, limit: null };
  }
}

/**
 * `frames` (default 34) concurrent POST /ocr/v1/extract of one striped PNG of `megapixels`
 * (default 40, the input limit) with `key`, in document mode and then in video mode: one report each.
 */
export async function ocrBurst(
  server: Server,
  key: string,
  options: { frames?: number; megapixels?: number } = {},
): Promise<AttackReport[]> {
  const frames = options.frames ?? 34;
  const megapixels = options.megapixels ?? 40;
  const height = Math.max(1, Math.floor((megapixels * 1e6) / WIDTH));
  const png = stripedPng(WIDTH, height);
  const frame = `data:image/png;base64,${png.toString('base64')}`;
  const reports: AttackReport[] = [];
  for (const mode of ['document', 'video'] as const) {
    const body = JSON.stringify({ frame, mode });
    const w = watch(server);
    const t0 = performance.now();
    const answers = await Promise.all(Array.from({ length: frames }, () => post(server, key, body)));
    const seconds = (performance.now() - t0) / 1000;
    const seen = await w.stop();
    const answered: Record<string, number> = {};
    for (const a of answers) tally(answered, a.status);
    const refused = answers.filter((a) => a.status === 503);
    const waits = refused.map((a) => a.retryAfter).filter((s): s is number => s !== null && Number.isFinite(s));
    const limits: Record<string, number> = {};
    for (const a of refused) limits[a.limit ?? 'none'] = (limits[a.limit ?? 'none'] ?? 0) + 1;
    reports.push({
      scenario: `ocr-burst-${mode}`,
      sent: `${frames} concurrent ${((WIDTH * height) / 1e6).toFixed(0)} MP striped PNG frames (${WIDTH}x${height}, ${(png.length / 1024).toFixed(0)} KB), ${mode} mode, enterprise key`,
      answered,
      ...seen,
      notes: [
        `frames completed (200): ${answers.filter((a) => a.status === 200).length} of ${frames}, all answered in ${seconds.toFixed(1)} s`,
        ...(refused.length > 0
          ? [
              `503: ${refused.length - waits.length} of ${refused.length} without Retry-After${waits.length ? `; Retry-After ${Math.min(...waits)}-${Math.max(...waits)} s` : ''}`,
              `503 by the limit named: ${Object.entries(limits)
                .map(([k, n]) => `${k} ${n}`)
                .join(', ')}`,
            ]
          : []),
      ],
    });
  }
  return reports;
}
