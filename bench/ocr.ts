// OCR: our pool (tesseract.js, WASM) against the native `tesseract` CLI on the images with ground
// truth in IMAGES_DIR (a set kept beside the repository, not in it), interleaved in one run. Per image: latency (median of the
// repetitions) and character error rate. Appends a dated section to bench/RESULTS.md.
//
//   npm run bench -- ocr [--reps 3] [--dry-run (print, do not record)]
//
// Ours: one warm worker per model, document mode (PSM 3, then 6 if PSM 3 finds no word) and video
// mode (PSM 6). Native (Debian tesseract-ocr, OMP_THREAD_LIMIT=1): one process per image, as a
// service wrapping the CLI would run it, with the same page segmentation policy. Both models on
// both sides: fast (tessdata_fast, the CLI's default and ours) and best (4.0.0_best_int).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { ROOT, type OcrModel } from '../src/config.js';
import { MODELS } from '../src/ocr/engine.js';
import { readText, type OcrMode } from '../src/ocr/extract.js';
import { MAX_PIXELS } from '../src/ocr/image.js';
import { OcrPool } from '../src/ocr/pool.js';
import { machineLine, record, utcNow } from './harness.js';

const IMAGES_DIR = path.resolve(ROOT, '../shared/testdata/ocr');
const reps = Number(process.argv[process.argv.indexOf('--reps') + 1]) || 3;

const fold = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Levenshtein distance over code points / reference length. */
export function cer(hypothesis: string, reference: string): number {
  const a = [...fold(hypothesis)];
  const b = [...fold(reference)];
  if (b.length === 0) return a.length === 0 ? 0 : 1;
  let prev = Uint32Array.from({ length: b.length + 1 }, (_, j) => j);
  let cur = new Uint32Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    [prev, cur] = [cur, prev];
  }
  return prev[b.length]! / b.length;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const mean = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / xs.length;

function native(image: string, psm: number, tessdataDir?: string): string {
  const args = [
    image,
    'stdout',
    '-l',
    'eng',
    '--psm',
    String(psm),
    ...(tessdataDir ? ['--tessdata-dir', tessdataDir] : []),
  ];
  const r = spawnSync('tesseract', args, { encoding: 'utf8', env: { ...process.env, OMP_THREAD_LIMIT: '1' } });
  if (r.error) throw r.error;
  return r.stdout;
}

/** The same policy as ours: document = PSM 3, then 6 if nothing was found; video = PSM 6. */
function nativePolicy(image: string, mode: OcrMode, tessdataDir?: string): string {
  if (mode === 'video') return native(image, 6, tessdataDir);
  const text = native(image, 3, tessdataDir);
  return fold(text) ? text : native(image, 6, tessdataDir);
}

async function timed<T>(fn: () => Promise<T> | T): Promise<[T, number]> {
  const t0 = performance.now();
  const v = await fn();
  return [v, performance.now() - t0];
}

const nativeVersion = spawnSync('tesseract', ['--version'], { encoding: 'utf8' }).stdout?.split('\n')[0]?.trim();
if (!nativeVersion) throw new Error('the native tesseract CLI is not installed (apt-get install tesseract-ocr)');

// the best model for the native CLI too, so that each model is compared engine against engine
const bestDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tessdata-best-int-'));
const best = MODELS.best;
fs.writeFileSync(
  path.join(bestDir, 'eng.traineddata'),
  zlib.gunzipSync(fs.readFileSync(path.join(best.langPath, best.file))),
);

const images = fs
  .readdirSync(IMAGES_DIR)
  .filter((f) => fs.existsSync(path.join(IMAGES_DIR, `${f}.gt.txt`)))
  .sort();
const pools: Record<OcrModel, OcrPool> = {
  fast: new OcrPool({
    workers: 1,
    queueLimit: 1,
    queueTimeoutMs: 600_000,
    timeoutMs: 600_000,
    maxPixelsInFlight: MAX_PIXELS,
    model: 'fast',
  }),
  best: new OcrPool({
    workers: 1,
    queueLimit: 1,
    queueTimeoutMs: 600_000,
    timeoutMs: 600_000,
    maxPixelsInFlight: MAX_PIXELS,
    model: 'best',
  }),
};
const ours = async (model: OcrModel, file: string, mode: OcrMode) => {
  const results = await readText(pools[model], fs.readFileSync(path.join(IMAGES_DIR, file)), 0, mode);
  return results.map((r) => r.text).join(mode === 'video' ? '\n' : ' ');
};

type Engine = 'oursFast' | 'nativeFast' | 'oursBest' | 'nativeBest';
const ENGINES: Engine[] = ['oursFast', 'nativeFast', 'oursBest', 'nativeBest'];
const MODES: OcrMode[] = ['document', 'video'];
const rows = new Map<string, Record<`${Engine}:${OcrMode}`, { ms: number[]; cer: number }>>();

// start and warm the workers: requests meet warm ones
await ours('fast', images[0]!, 'document');
await ours('best', images[0]!, 'document');
console.log(`${images.length} images, ${reps} repetitions; ${nativeVersion}`);
for (let rep = 0; rep < reps; rep++) {
  for (const file of images) {
    const truth = fs.readFileSync(path.join(IMAGES_DIR, `${file}.gt.txt`), 'utf8');
    const row = rows.get(file) ?? ({} as NonNullable<ReturnType<typeof rows.get>>);
    rows.set(file, row);
    for (const mode of MODES) {
      for (const engine of ENGINES) {
        const image = path.join(IMAGES_DIR, file);
        const [text, ms] = await timed(() => {
          switch (engine) {
            case 'oursFast':
              return ours('fast', file, mode);
            case 'oursBest':
              return ours('best', file, mode);
            case 'nativeFast':
              return nativePolicy(image, mode);
            case 'nativeBest':
              return nativePolicy(image, mode, bestDir);
          }
        });
        const cell = (row[`${engine}:${mode}`] ??= { ms: [], cer: cer(text, truth) });
        cell.ms.push(ms);
      }
    }
    process.stdout.write('.');
  }
}
await Promise.all(Object.values(pools).map((p) => p.terminate()));
fs.rmSync(bestDir, { recursive: true, force: true });
console.log();

/** The native CLI ignores EXIF orientation; its CER there says nothing about recognition. */
const EXIF_ROTATED = new Set(['real_tjs_simple-90.jpg']);
const pct = (x: number) => `${(x * 100).toFixed(2)}%`;
const ms = (x: number) => x.toFixed(0);
const lines: string[] = [];
lines.push(`## OCR: tesseract.js pool vs native tesseract CLI, ${utcNow()} UTC`);
lines.push('');
lines.push(
  `${await machineLine([])} ${nativeVersion} (OMP_THREAD_LIMIT=1). ${images.length} images from ../shared/testdata/ocr, ${reps} interleaved repetitions; latency is the median per image.`,
);
lines.push(
  "Ours: one warm tesseract.js 7 worker per model through OcrPool. Native: one `tesseract` process per image, as a service wrapping the CLI would run it. Two models on both sides: fast (tessdata_fast, the CLI's default and our default, OCR_MODEL=fast) and best (4.0.0_best_int, OCR_MODEL=best). Same page segmentation policy. CER: edit distance / reference length, white space folded.",
);
for (const mode of MODES) {
  lines.push('');
  lines.push(`### ${mode} mode (${mode === 'document' ? 'PSM 3, then PSM 6 if PSM 3 finds nothing' : 'PSM 6'})`);
  lines.push('');
  lines.push(
    '| image | ours fast ms | native fast ms | ratio | ours best ms | native best ms | ratio | ours fast CER | native fast CER | ours best CER | native best CER |',
  );
  lines.push('|---|---|---|---|---|---|---|---|---|---|---|');
  const agg = Object.fromEntries(ENGINES.map((e) => [e, { ms: [] as number[], cer: [] as number[] }])) as Record<
    Engine,
    { ms: number[]; cer: number[] }
  >;
  const upright = Object.fromEntries(ENGINES.map((e) => [e, [] as number[]])) as Record<Engine, number[]>;
  const ratios: number[] = [];
  for (const [file, row] of rows) {
    if (!EXIF_ROTATED.has(file)) for (const e of ENGINES) upright[e].push(row[`${e}:${mode}`].cer);
    const m = Object.fromEntries(ENGINES.map((e) => [e, median(row[`${e}:${mode}`].ms)])) as Record<Engine, number>;
    for (const e of ENGINES) {
      agg[e].ms.push(m[e]);
      agg[e].cer.push(row[`${e}:${mode}`].cer);
    }
    ratios.push(m.oursFast / m.nativeFast);
    const c = (e: Engine) => pct(row[`${e}:${mode}`].cer);
    lines.push(
      `| ${file} | ${ms(m.oursFast)} | ${ms(m.nativeFast)} | ${(m.oursFast / m.nativeFast).toFixed(2)} | ${ms(m.oursBest)} | ${ms(m.nativeBest)} | ${(m.oursBest / m.nativeBest).toFixed(2)} | ${c('oursFast')} | ${c('nativeFast')} | ${c('oursBest')} | ${c('nativeBest')} |`,
    );
  }
  const sum = (e: Engine) => agg[e].ms.reduce((x, y) => x + y, 0);
  const ratio = (a: Engine, b: Engine) => (sum(a) / sum(b)).toFixed(2);
  const meanCer = (e: Engine) => `**${pct(mean(agg[e].cer))}**`;
  lines.push(
    `| **mean** | **${ms(mean(agg.oursFast.ms))}** | **${ms(mean(agg.nativeFast.ms))}** | **${ratio('oursFast', 'nativeFast')}** (total); median ${median(ratios).toFixed(2)} | **${ms(mean(agg.oursBest.ms))}** | **${ms(mean(agg.nativeBest.ms))}** | **${ratio('oursBest', 'nativeBest')}** | ${meanCer('oursFast')} | ${meanCer('nativeFast')} | ${meanCer('oursBest')} | ${meanCer('nativeBest')} |`,
  );
  lines.push(
    `| without ${[...EXIF_ROTATED].join(', ')} (native ignores EXIF) | | | | | | | ${pct(mean(upright.oursFast))} | ${pct(mean(upright.nativeFast))} | ${pct(mean(upright.oursBest))} | ${pct(mean(upright.nativeBest))} |`,
  );
  const cerOk = mean(upright.oursFast) <= mean(upright.nativeFast) + 0.01;
  const latencyOk = sum('oursFast') / sum('nativeFast') <= 1.5;
  lines.push('');
  lines.push(
    `Target (our default against the CLI as installed: mean CER ≤ native + 1 point; latency ≤ 1.5× native): CER ${cerOk ? 'met' : 'NOT met'} (${pct(mean(upright.oursFast))} vs ${pct(mean(upright.nativeFast))} without the EXIF image); latency ${latencyOk ? 'met' : 'NOT met'} (${ratio('oursFast', 'nativeFast')}× in total). With the best model on both sides: ${ratio('oursBest', 'nativeBest')}×, CER ${pct(mean(upright.oursBest))} vs ${pct(mean(upright.nativeBest))}.`,
  );
}
record(lines.join('\n'), process.argv.includes('--dry-run'));
