// OCR: our pool (tesseract.js, WASM) against the native `tesseract` CLI on the images with ground
// truth in ../shared/testdata/ocr, interleaved in one run. Per image: latency (median of the
// repetitions) and character error rate. Appends a dated section to bench/RESULTS.md.
//
//   npm run bench -- ocr [--reps 3]
//
// Ours: one warm worker, document mode (PSM 3, then 6 if PSM 3 finds no word) and video mode
// (PSM 6). Native (Debian tesseract-ocr, OMP_THREAD_LIMIT=1): one process per image, as a service
// wrapping the CLI would run it, with the same page segmentation policy; once with Debian's model
// (tessdata_fast, the CLI's default) and once with ours (4.0.0_best_int, unpacked to a temp dir).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { ROOT } from '../src/config.js';
import { LANG_PATH } from '../src/ocr/engine.js';
import { readText, type OcrMode } from '../src/ocr/extract.js';
import { OcrPool } from '../src/ocr/pool.js';

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
  const args = [image, 'stdout', '-l', 'eng', '--psm', String(psm), ...(tessdataDir ? ['--tessdata-dir', tessdataDir] : [])];
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

const cpu = (fs.readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/)?.[1] ?? 'unknown').trim();
const commit = (() => {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain'], { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${head} + uncommitted changes` : head;
  } catch {
    return 'unknown';
  }
})();
const nativeVersion = spawnSync('tesseract', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0]?.trim();
if (!nativeVersion) throw new Error('the native tesseract CLI is not installed (apt-get install tesseract-ocr)');

// our model for the native CLI too, so that one comparison is engine against engine
const bestDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tessdata-best-int-'));
fs.writeFileSync(path.join(bestDir, 'eng.traineddata'), zlib.gunzipSync(fs.readFileSync(path.join(LANG_PATH, 'eng.traineddata.gz'))));

const images = fs.readdirSync(IMAGES_DIR).filter((f) => fs.existsSync(path.join(IMAGES_DIR, `${f}.gt.txt`))).sort();
const pool = new OcrPool({ workers: 1, queueLimit: 1, timeoutMs: 600_000 });
const ours = async (file: string, mode: OcrMode) => {
  const results = await readText(pool, fs.readFileSync(path.join(IMAGES_DIR, file)), 0, mode);
  return results.map((r) => r.text).join(mode === 'video' ? '\n' : ' ');
};

type Engine = 'ours' | 'nativeFast' | 'nativeBest';
const ENGINES: Engine[] = ['ours', 'nativeFast', 'nativeBest'];
const MODES: OcrMode[] = ['document', 'video'];
const rows = new Map<string, Record<`${Engine}:${OcrMode}`, { ms: number[]; cer: number }>>();

await ours(images[0]!, 'document'); // start and warm the worker: requests meet a warm one
console.log(`${images.length} images, ${reps} repetitions; ${nativeVersion}; ${cpu}`);
for (let rep = 0; rep < reps; rep++) {
  for (const file of images) {
    const truth = fs.readFileSync(path.join(IMAGES_DIR, `${file}.gt.txt`), 'utf8');
    const row = rows.get(file) ?? ({} as NonNullable<ReturnType<typeof rows.get>>);
    rows.set(file, row);
    for (const mode of MODES) {
      for (const engine of ENGINES) {
        const image = path.join(IMAGES_DIR, file);
        const [text, ms] = await timed(() =>
          engine === 'ours' ? ours(file, mode) : nativePolicy(image, mode, engine === 'nativeBest' ? bestDir : undefined),
        );
        const cell = (row[`${engine}:${mode}`] ??= { ms: [], cer: cer(text, truth) });
        cell.ms.push(ms);
      }
    }
    process.stdout.write('.');
  }
}
await pool.terminate();
fs.rmSync(bestDir, { recursive: true, force: true });
console.log();

/** The native CLI ignores EXIF orientation; its CER there says nothing about recognition. */
const EXIF_ROTATED = new Set(['real_tjs_simple-90.jpg']);
const pct = (x: number) => `${(x * 100).toFixed(2)}%`;
const ms = (x: number) => x.toFixed(0);
const lines: string[] = [];
const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
lines.push(`## OCR: tesseract.js pool vs native tesseract CLI, ${date} UTC`);
lines.push('');
lines.push(`Commit ${commit}; ${cpu}, ${os.cpus().length} logical CPUs; Node ${process.version}; ${nativeVersion} (OMP_THREAD_LIMIT=1). ${images.length} images from ../shared/testdata/ocr, ${reps} interleaved repetitions; latency is the median per image.`);
lines.push('Ours: one warm tesseract.js 7 worker through OcrPool (best_int model). Native: one `tesseract` process per image, with Debian\'s default model (fast) and with ours (best_int); same page segmentation policy. CER: edit distance / reference length, white space folded.');
for (const mode of MODES) {
  lines.push('');
  lines.push(`### ${mode} mode (${mode === 'document' ? 'PSM 3, then PSM 6 if PSM 3 finds nothing' : 'PSM 6'})`);
  lines.push('');
  lines.push('| image | ours ms | native fast ms | native best_int ms | ours / native fast | ours CER | native fast CER | native best_int CER |');
  lines.push('|---|---|---|---|---|---|---|---|');
  const agg: Record<Engine, { ms: number[]; cer: number[] }> = { ours: { ms: [], cer: [] }, nativeFast: { ms: [], cer: [] }, nativeBest: { ms: [], cer: [] } };
  const ratios: number[] = [];
  const upright: Record<Engine, number[]> = { ours: [], nativeFast: [], nativeBest: [] };
  for (const [file, row] of rows) {
    if (!EXIF_ROTATED.has(file)) for (const e of ENGINES) upright[e].push(row[`${e}:${mode}`].cer);
    const m = Object.fromEntries(ENGINES.map((e) => [e, median(row[`${e}:${mode}`].ms)])) as Record<Engine, number>;
    for (const e of ENGINES) {
      agg[e].ms.push(m[e]);
      agg[e].cer.push(row[`${e}:${mode}`].cer);
    }
    ratios.push(m.ours / m.nativeFast);
    lines.push(`| ${file} | ${ms(m.ours)} | ${ms(m.nativeFast)} | ${ms(m.nativeBest)} | ${(m.ours / m.nativeFast).toFixed(2)} | ${pct(row[`ours:${mode}`].cer)} | ${pct(row[`nativeFast:${mode}`].cer)} | ${pct(row[`nativeBest:${mode}`].cer)} |`);
  }
  const sum = (e: Engine) => agg[e].ms.reduce((x, y) => x + y, 0);
  lines.push(`| **mean** | **${ms(mean(agg.ours.ms))}** | **${ms(mean(agg.nativeFast.ms))}** | **${ms(mean(agg.nativeBest.ms))}** | **${(sum('ours') / sum('nativeFast')).toFixed(2)}** (total); median ${median(ratios).toFixed(2)} | **${pct(mean(agg.ours.cer))}** | **${pct(mean(agg.nativeFast.cer))}** | **${pct(mean(agg.nativeBest.cer))}** |`);
  lines.push(`| without ${[...EXIF_ROTATED].join(', ')} (native ignores EXIF) | | | | | ${pct(mean(upright.ours))} | ${pct(mean(upright.nativeFast))} | ${pct(mean(upright.nativeBest))} |`);
  const cerOk = mean(upright.ours) <= mean(upright.nativeFast) + 0.01;
  const latencyOk = sum('ours') / sum('nativeFast') <= 1.5;
  lines.push('');
  lines.push(`Target (mean CER ≤ native + 1 point; latency ≤ 1.5× native, against the CLI as installed): CER ${cerOk ? 'met' : 'NOT met'} (${pct(mean(upright.ours))} vs ${pct(mean(upright.nativeFast))} without the EXIF image); latency ${latencyOk ? 'met' : 'NOT met'} (${(sum('ours') / sum('nativeFast')).toFixed(2)}× in total, ${(sum('ours') / sum('nativeBest')).toFixed(2)}× against native with our model).`);
}
const section = lines.join('\n') + '\n';
console.log(section);
const results = path.join(ROOT, 'bench', 'RESULTS.md');
if (!fs.existsSync(results)) fs.writeFileSync(results, '# Benchmark results\n\nEach section is appended by a bench script (`npm run bench -- <name>`), with its machine and commit.\n');
fs.appendFileSync(results, `\n${section}`);
console.log(`appended to ${path.relative(ROOT, results)}`);
