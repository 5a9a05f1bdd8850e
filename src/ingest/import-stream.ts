// `cli import <resource> <file|->`: records in the spec's JSON shapes, from a file or stdin, through
// a resource's Importer, in batches of one transaction each.
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { Db } from '../db/client.js';
import type { EventBus } from '../runtime/events.js';
import { publishInserted, RejectError, type Importer } from './importer.js';
import type { WriteCounts } from '../db/upsert.js';
import { parseJsonExact } from './json.js';

export interface ImportCounts extends WriteCounts {
  /** records read (a whole REST body counts its records) */
  read: number;
  rejected: number;
  /** records whose key came again later in the same batch: the later one was written */
  duplicates: number;
}

/**
 * Where a rejected record is. `line` is the 1-based input line where its JSON value starts (an
 * NDJSON line, or where an element of a JSON array starts); `index` its 0-based position in a
 * top-level JSON array; `record` its 0-based position inside a whole REST body (`results[record]`).
 * A pretty-printed single body has no line per record: only `record`.
 */
export interface Reject {
  line?: number;
  index?: number;
  record?: number;
  reason: string;
}

export function describeReject(r: Reject): string {
  const at = [
    r.line !== undefined ? `line ${r.line}` : undefined,
    r.index !== undefined ? `array index ${r.index}` : undefined,
    r.record !== undefined ? `record [${r.record}] of the body` : undefined,
  ].filter(Boolean);
  return `${at.length ? at.join(', ') : 'the body'}: ${r.reason}`;
}

export interface ImportProgress {
  /** records read so far */
  rows: number;
  bytes: number;
  /** the input's size when known (a file, or stdin redirected from a file) */
  totalBytes: number | undefined;
  elapsedMs: number;
  counts: ImportCounts;
}

export interface ImportOptions {
  /** Distinct records per transaction (default 20,000: fewer commits, each rewriting fewer shared index pages). */
  batchSize?: number;
  /** Abort at the first reject, before anything of its batch is written (earlier batches stay). */
  strict?: boolean;
  /** NDJSON that keeps coming (`tail -f ... | cli import trades -`): write a batch when it is full or `flushMs` after its first record. */
  follow?: boolean;
  flushMs?: number;
  /** Fields a record lacks get these values (the CLI's `--symbol`). */
  defaults?: Record<string, unknown>;
  /** Inserted rows of a publishing importer are published here after their batch commits. */
  events?: EventBus;
  onReject?: (reject: Reject) => void;
  /** Called after each chunk of input and each batch. */
  onProgress?: (progress: ImportProgress) => void;
  /** Something went wrong that does not stop the import (an event that could not be published). */
  onWarning?: (message: string) => void;
  /** Stops reading, as at the end of the input: what was read is still written (Ctrl-C in follow mode). */
  signal?: AbortSignal;
}

/** A path, `-` for stdin, or a stream (with its size, when known). */
export type ImportInput = string | { stream: Readable; size?: number };

export type InputFormat = 'ndjson' | 'array' | 'document';

export interface ImportResult {
  counts: ImportCounts;
  format: InputFormat;
  /** the first MAX_KEPT_REJECTS rejects (all of them went to onReject) */
  rejects: Reject[];
  ms: number;
}

export const DEFAULT_BATCH_SIZE = 20_000;
export const DEFAULT_FLUSH_MS = 200;
const MAX_KEPT_REJECTS = 1_000;

/** `--strict` met a reject: nothing of its batch was written; `committed` counts the batches before it. */
export class ImportAborted extends Error {
  override name = 'ImportAborted';
  constructor(
    readonly reject: Reject,
    public committed: ImportCounts,
  ) {
    super(`aborted at ${describeReject(reject)}`);
  }
}

/** The input cannot be read at all (no such file ...). */
export class ImportInputError extends Error {
  override name = 'ImportInputError';
}

function openInput(input: ImportInput): { stream: Readable; size: number | undefined } {
  if (typeof input !== 'string') return { stream: input.stream, size: input.size };
  if (input === '-') {
    let size: number | undefined;
    try {
      const st = fs.fstatSync(0);
      if (st.isFile()) size = st.size;
    } catch {
      /* no size: no ETA */
    }
    return { stream: process.stdin, size };
  }
  let st: fs.Stats;
  try {
    st = fs.statSync(input);
  } catch (e) {
    throw new ImportInputError(`cannot read ${input}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
  if (!st.isFile()) throw new ImportInputError(`cannot read ${input}: not a file`);
  // 64 KiB reads keep each parsing step short, so a PostgreSQL COPY in flight is fed without waiting
  return { stream: fs.createReadStream(input, { highWaterMark: 1 << 16 }), size: st.size };
}

const TIMEOUT = Symbol('timeout');
const STOP = Symbol('stop');

/**
 * Reads records from `input` through `importer` and writes them in batches of one transaction.
 * NDJSON is streamed line by line and a JSON array element by element, so the input's size is
 * not held in memory (one pretty-printed body is). A rejected record is reported and skipped;
 * equal keys within a batch keep the last record. Resolves with the counts when the input ends.
 */
export async function importStream<Row>(db: Db, importer: Importer<Row>, input: ImportInput, options: ImportOptions = {}): Promise<ImportResult> {
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`batchSize must be a positive integer; got ${batchSize}`);
  const flushMs = options.flushMs ?? DEFAULT_FLUSH_MS;
  const defaults = options.defaults && Object.keys(options.defaults).length ? Object.entries(options.defaults) : undefined;

  const { stream, size } = openInput(input);
  const started = performance.now();
  const counts: ImportCounts = { read: 0, inserted: 0, updated: 0, unchanged: 0, rejected: 0, duplicates: 0 };
  const rejects: Reject[] = [];
  let bytes = 0;
  let batch = new Map<string, Row>();
  let batchOpenedAt = 0;

  const progress = () =>
    options.onProgress?.({ rows: counts.read, bytes, totalBytes: size, elapsedMs: performance.now() - started, counts: { ...counts } });

  const reject = (where: Omit<Reject, 'reason'>, reason: string) => {
    const r = { ...where, reason };
    counts.rejected++;
    if (options.strict) throw new ImportAborted(r, { ...counts });
    if (rejects.length < MAX_KEPT_REJECTS) rejects.push(r);
    options.onReject?.(r);
  };

  /** One record; true when the batch is full. */
  const record = (rec: unknown, where: Omit<Reject, 'reason'>): boolean => {
    counts.read++;
    if (defaults && rec !== null && typeof rec === 'object' && !Array.isArray(rec)) {
      const o = rec as Record<string, unknown>;
      for (const [k, v] of defaults) if (o[k] === undefined) o[k] = v;
    }
    let row: Row;
    try {
      row = importer.parse(rec);
    } catch (e) {
      reject(where, e instanceof RejectError ? e.reason : `invalid record: ${(e as Error).message}`);
      return false;
    }
    const key = importer.key(row);
    const size = batch.size;
    if (size === 0) batchOpenedAt = Date.now();
    batch.set(key, row); // of equal keys the last one wins
    if (batch.size === size) counts.duplicates++;
    return batch.size >= batchSize;
  };

  /** The records of a whole REST body, or null for a record; a body the importer refuses is a reject. */
  const recordsOf = (v: unknown, where: Omit<Reject, 'reason'>): unknown[] | null | false => {
    try {
      return importer.recordsOf(v);
    } catch (e) {
      if (!(e instanceof RejectError)) throw e;
      counts.read++;
      reject(where, e.reason);
      return false;
    }
  };

  /** One JSON value of the input: a record, or a whole REST body of records (a batch takes a body whole). */
  const value = (v: unknown, where: Omit<Reject, 'reason'>): boolean => {
    const records = recordsOf(v, where);
    if (records === false) return false;
    if (records === null) return record(v, where);
    let full = false;
    for (let i = 0; i < records.length; i++) full = record(records[i], { ...where, record: i }) || full;
    return full;
  };

  const text = (t: string, where: Omit<Reject, 'reason'>): boolean => {
    let v: unknown;
    try {
      v = parseJsonExact(t);
    } catch (e) {
      counts.read++;
      reject(where, `invalid JSON: ${(e as Error).message}`);
      return false;
    }
    return value(v, where);
  };

  const write = async (rows: Row[]) => {
    const written = await importer.write(db, rows);
    counts.inserted += written.inserted;
    counts.updated += written.updated;
    counts.unchanged += written.unchanged;
    if (options.events) {
      try {
        await publishInserted(db, importer, written, options.events);
      } catch (e) {
        options.onWarning?.(`stored ${written.inserted} rows but could not publish them: ${(e as Error).message}`);
      }
    }
    progress();
  };

  // One batch is written while the next one is parsed (PostgreSQL works on one core, the parsing
  // on another); batches still commit one after the other, in input order.
  let inflight: Promise<void> | undefined;
  const settle = async () => {
    const p = inflight;
    inflight = undefined;
    await p;
  };
  const flush = async () => {
    if (batch.size === 0) return;
    const rows = [...batch.values()];
    batch = new Map();
    await settle();
    inflight = write(rows);
    inflight.catch(() => {}); // its error surfaces at the next settle
  };

  // The format shows in the first characters: `[` a JSON array (streamed element by element), a
  // first line of just `{` one pretty-printed body, anything else NDJSON. Follow mode is NDJSON.
  let format: InputFormat | undefined = options.follow ? 'ndjson' : undefined;
  let head = '';
  let lines: LineSplitter | undefined;
  let array: ArraySplitter | undefined;
  const documentParts: string[] = [];

  const feed = async (chunk: string, end: boolean) => {
    if (format === undefined) {
      head += chunk;
      const t = head.replace(/^\uFEFF/, '').trimStart();
      if (t === '' && !end) return;
      if (t.startsWith('[')) format = 'array';
      else if (t.startsWith('{')) {
        const nl = t.indexOf('\n');
        if (nl < 0 && !end) return; // wait for the first line
        format = (nl < 0 ? t : t.slice(0, nl)).trim() === '{' ? 'document' : 'ndjson';
      } else format = 'ndjson';
      chunk = head.replace(/^\uFEFF/, '');
      head = '';
    }
    if (format === 'document') {
      documentParts.push(chunk);
      if (end) {
        let v: unknown;
        try {
          v = parseJsonExact(documentParts.join(''));
        } catch (e) {
          counts.read++;
          reject({ line: 1 }, `invalid JSON: ${(e as Error).message}`);
          return;
        }
        const records = recordsOf(v, {});
        if (records === false) return;
        if (records === null) record(v, {});
        else for (let i = 0; i < records.length; i++) if (record(records[i], { record: i })) await flush();
      }
      return;
    }
    if (format === 'array') {
      array ??= new ArraySplitter();
      for (const el of array.push(chunk, end)) {
        if (el.error) {
          counts.read++;
          reject({ line: el.line }, el.error);
        } else if (text(el.text, { line: el.line, index: el.index })) await flush();
      }
      return;
    }
    lines ??= new LineSplitter();
    for (const [line, lineNo] of lines.push(chunk, end)) {
      if (text(line, { line: lineNo })) await flush();
    }
  };

  const decoder = new StringDecoder('utf8');
  const source = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  const signal = options.signal;
  const stopped = signal ? new Promise<typeof STOP>((resolve) => (signal.aborted ? resolve(STOP) : signal.addEventListener('abort', () => resolve(STOP), { once: true }))) : undefined;
  try {
    let next = source.next();
    for (;;) {
      const pending = stopped ? Promise.race([next, stopped]) : next;
      let r: IteratorResult<Buffer | string> | typeof STOP;
      if (options.follow && batch.size > 0) {
        const wait = batchOpenedAt + flushMs - Date.now();
        const got = wait <= 0 ? TIMEOUT : await raceTimeout(pending, wait);
        if (got === TIMEOUT) {
          await flush();
          continue;
        }
        r = got;
      } else r = await pending;
      if (r === STOP || r.done) break;
      next = source.next();
      next.catch(() => {});
      const chunk = r.value;
      bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
      await feed(typeof chunk === 'string' ? chunk : decoder.write(chunk), false);
      progress();
    }
    await feed(decoder.end(), true);
    await flush();
    await settle();
  } catch (e) {
    if (e instanceof ImportAborted) {
      await settle(); // the batches before the reject are complete: they commit
      e.committed = { ...counts };
    }
    throw e;
  } finally {
    // not source.return(): it waits for a pending read, which on an open stdin never ends
    stream.destroy();
  }
  progress();
  return { counts, format: format ?? 'ndjson', rejects, ms: performance.now() - started };
}

function raceTimeout<T>(p: Promise<T>, ms: number): Promise<T | typeof TIMEOUT> {
  let timer: NodeJS.Timeout;
  return Promise.race([p, new Promise<typeof TIMEOUT>((resolve) => (timer = setTimeout(resolve, ms, TIMEOUT)))]).finally(() => clearTimeout(timer));
}

/** Lines of text as they arrive in chunks, with their 1-based numbers; blank lines are skipped. */
class LineSplitter {
  private carry = '';
  private lineNo = 0;

  *push(chunk: string, end: boolean): Generator<[string, number]> {
    const text = this.carry + chunk;
    let start = 0;
    for (;;) {
      const nl = text.indexOf('\n', start);
      if (nl < 0) break;
      this.lineNo++;
      const line = text.slice(start, nl);
      start = nl + 1;
      if (!isBlank(line)) yield [line, this.lineNo];
    }
    this.carry = text.slice(start);
    if (end && this.carry !== '') {
      this.lineNo++;
      const line = this.carry;
      this.carry = '';
      if (!isBlank(line)) yield [line, this.lineNo];
    }
  }
}

function isBlank(line: string): boolean {
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 13) return false;
  }
  return true;
}

interface ArrayElement {
  text: string;
  line: number;
  index: number;
  error?: string;
}

/**
 * The elements of a top-level JSON array as they arrive in chunks, without holding the whole
 * array: a scan that tracks strings and nesting cuts the text at the commas of depth 1. Each
 * element is parsed on its own, so a bad one is a reject of its own index. Several arrays in a row
 * (`[...]\n[...]`) continue the index.
 */
class ArraySplitter {
  private buf = '';
  private pos = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private start = -1;
  private startLine = 0;
  private line = 1;
  private index = 0;

  push(chunk: string, end: boolean): ArrayElement[] {
    this.buf += chunk;
    const out: ArrayElement[] = [];
    const buf = this.buf;
    let i = this.pos;
    for (; i < buf.length; i++) {
      const c = buf.charCodeAt(i);
      if (c === 10) this.line++;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 92) this.escaped = true;
        else if (c === 34) this.inString = false;
        continue;
      }
      if (c === 32 || c === 10 || c === 13 || c === 9) continue;
      if (this.depth === 0) {
        if (c === 91) this.depth = 1;
        else out.push({ text: '', line: this.line, index: this.index, error: `expected a JSON array, got ${JSON.stringify(buf.slice(i, i + 20))}` }), (i = this.skipLine(buf, i));
        continue;
      }
      if (this.depth === 1 && (c === 44 || c === 93)) {
        if (this.start >= 0) {
          out.push({ text: buf.slice(this.start, i), line: this.startLine, index: this.index++ });
          this.start = -1;
        }
        if (c === 93) this.depth = 0;
        continue;
      }
      if (this.start < 0 && this.depth === 1) {
        this.start = i;
        this.startLine = this.line;
      }
      if (c === 34) this.inString = true;
      else if (c === 123 || c === 91) this.depth++;
      else if (c === 125 || c === 93) this.depth--;
    }
    // keep only the unfinished element
    const keepFrom = this.start >= 0 ? this.start : i;
    this.buf = buf.slice(keepFrom);
    this.pos = i - keepFrom;
    if (this.start >= 0) this.start = 0;
    if (end && this.depth > 0) {
      const rest = this.buf.trim();
      out.push({ text: rest, line: this.startLine || this.line, index: this.index, error: 'the input ended inside the JSON array' + (rest ? ` (element ${JSON.stringify(rest.slice(0, 40))})` : '') });
    }
    return out;
  }

  /** After junk outside any array, go on at the next line. */
  private skipLine(buf: string, i: number): number {
    const nl = buf.indexOf('\n', i);
    if (nl < 0) return buf.length - 1;
    return nl - 1;
  }
}
