// `cli import <resource> <file|->`: records in the legacy JSON shapes, from a file or stdin, through
// a resource's Importer, in batches of one transaction each.
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { Db } from '../db/client.js';
import type { EventBus } from '../runtime/events.js';
import { publishInserted, RejectError, writeImported, type Importer } from './importer.js';
import type { WriteCounts } from '../db/upsert.js';
import { parseJsonExact } from './json.js';
import { Feeder, type InputFormat, type ValueSink } from './split.js';

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

/** Where a rejected record is: `line 12`, `array index 3`, `record [0] of the body` ... */
export function placeOf(r: Omit<Reject, 'reason'>): string {
  const at = [
    r.line !== undefined ? `line ${r.line}` : undefined,
    r.index !== undefined ? `array index ${r.index}` : undefined,
    r.record !== undefined ? `record [${r.record}] of the body` : undefined,
  ].filter(Boolean);
  return at.length ? at.join(', ') : 'the body';
}

export function describeReject(r: Reject): string {
  return `${placeOf(r)}: ${r.reason}`;
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
  /**
   * Inserted rows of a publishing importer are published here: in their batch's transaction
   * (trades, quotes), or after it commits (news, press releases; see importer.ts).
   */
  events?: EventBus;
  onReject?: (reject: Reject) => void;
  /** Called after each chunk of input and each batch. */
  onProgress?: (progress: ImportProgress) => void;
  /** Something went wrong that does not stop the import (an event that could not be published). */
  onWarning?: (message: string) => void;
  /** Stops reading, as at the end of the input: what was read is still written (Ctrl-C in follow mode). */
  signal?: AbortSignal;
  /** UTF-8 bytes of one JSON text (a line, an array element, a pretty-printed body): past it, a reject (IMPORT_MAX_LINE_BYTES, default 16 MiB). */
  maxLineBytes?: number;
}

/** A path, `-` for stdin, or a stream (with its size, when known). */
export type ImportInput = string | { stream: Readable; size?: number };

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
    throw new ImportInputError(
      `cannot read ${input}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`,
    );
  }
  if (!st.isFile()) throw new ImportInputError(`cannot read ${input}: not a file`);
  // 64 KiB reads keep each parsing step short, so a PostgreSQL COPY in flight is fed without waiting
  return { stream: fs.createReadStream(input, { highWaterMark: 1 << 16 }), size: st.size };
}

const TIMEOUT = Symbol('timeout');
const STOP = Symbol('stop');

type Where = Omit<Reject, 'reason'>;

/**
 * Reads records from `input` through `importer` and writes them in batches of one transaction.
 * NDJSON is streamed line by line and a JSON array element by element, so the input's size is
 * not held in memory (one pretty-printed body is, up to `maxLineBytes` as a line). A rejected record is reported and skipped;
 * equal keys within a batch keep the last record. Resolves with the counts when the input ends.
 */
export async function importStream<Row>(
  db: Db,
  importer: Importer<Row>,
  input: ImportInput,
  options: ImportOptions = {},
): Promise<ImportResult> {
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  if (!Number.isInteger(batchSize) || batchSize < 1)
    throw new RangeError(`batchSize must be a positive integer; got ${batchSize}`);
  const { stream, size } = openInput(input);
  const run = new ImportRun(db, importer, options, batchSize, size);
  const feeder = new Feeder(run, options.follow ? 'ndjson' : undefined, options.maxLineBytes);
  try {
    await readInput(stream, run, feeder, options);
    await run.flush();
    await run.settle();
  } catch (e) {
    if (e instanceof ImportAborted) {
      await run.settle(); // the batches before the reject are complete: they commit
      e.committed = { ...run.counts };
    }
    throw e;
  } finally {
    // not ended through its iterator's return(): that waits for a pending read, which on an open stdin never ends
    stream.destroy();
  }
  run.progress();
  return {
    counts: run.counts,
    format: feeder.format ?? 'ndjson',
    rejects: run.rejects,
    ms: performance.now() - run.started,
  };
}

/**
 * Feeds the input's chunks to `feeder` until it ends or `options.signal` aborts. In follow mode a
 * batch that has waited `flushMs` since its first record is written without waiting for more input.
 */
async function readInput<Row>(
  stream: Readable,
  run: ImportRun<Row>,
  feeder: Feeder,
  options: ImportOptions,
): Promise<void> {
  const flushMs = options.flushMs ?? DEFAULT_FLUSH_MS;
  const decoder = new StringDecoder('utf8');
  const source = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  const signal = options.signal;
  const stopped = signal
    ? new Promise<typeof STOP>((resolve) =>
        signal.aborted ? resolve(STOP) : signal.addEventListener('abort', () => resolve(STOP), { once: true }),
      )
    : undefined;
  let next = source.next();
  for (;;) {
    const pending = stopped ? Promise.race([next, stopped]) : next;
    let r: IteratorResult<Buffer | string> | typeof STOP;
    if (options.follow && run.batched > 0) {
      const wait = run.batchOpenedAt + flushMs - Date.now();
      const got = wait <= 0 ? TIMEOUT : await raceTimeout(pending, wait);
      if (got === TIMEOUT) {
        await run.flush();
        continue;
      }
      r = got;
    } else r = await pending;
    if (r === STOP || r.done) break;
    next = source.next();
    next.catch(() => {});
    const chunk = r.value;
    run.bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    await feeder.feed(typeof chunk === 'string' ? chunk : decoder.write(chunk), false);
    run.progress();
  }
  await feeder.feed(decoder.end(), true);
}

function raceTimeout<T>(p: Promise<T>, ms: number): Promise<T | typeof TIMEOUT> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<typeof TIMEOUT>((resolve) => (timer = setTimeout(resolve, ms, TIMEOUT))),
  ]).finally(() => clearTimeout(timer));
}

/**
 * One import's records on their way to the database: parsed, rejected or batched (equal keys keep
 * the last), and written batch by batch. One batch is written while the next one is parsed
 * (PostgreSQL works on one core, the parsing on another); batches still commit one after the
 * other, in input order.
 */
class ImportRun<Row> implements ValueSink {
  readonly counts: ImportCounts = { read: 0, inserted: 0, updated: 0, unchanged: 0, rejected: 0, duplicates: 0 };
  /** The first MAX_KEPT_REJECTS. */
  readonly rejects: Reject[] = [];
  readonly started = performance.now();
  bytes = 0;
  /** When the batch being filled got its first record (Date.now()). */
  batchOpenedAt = 0;
  #batch = new Map<string, Row>();
  #inflight: Promise<void> | undefined;
  readonly #defaults: [string, unknown][] | undefined;

  constructor(
    private readonly db: Db,
    private readonly importer: Importer<Row>,
    private readonly options: ImportOptions,
    private readonly batchSize: number,
    private readonly totalBytes: number | undefined,
  ) {
    this.#defaults =
      options.defaults && Object.keys(options.defaults).length ? Object.entries(options.defaults) : undefined;
  }

  /** Records in the batch being filled. */
  get batched(): number {
    return this.#batch.size;
  }

  progress(): void {
    const { counts } = this;
    this.options.onProgress?.({
      rows: counts.read,
      bytes: this.bytes,
      totalBytes: this.totalBytes,
      elapsedMs: performance.now() - this.started,
      counts: { ...counts },
    });
  }

  reject(where: Where, reason: string): void {
    const r = { ...where, reason };
    this.counts.rejected++;
    if (this.options.strict) throw new ImportAborted(r, { ...this.counts });
    if (this.rejects.length < MAX_KEPT_REJECTS) this.rejects.push(r);
    this.options.onReject?.(r);
  }

  /** One record; true when the batch is full. */
  record(rec: unknown, where: Where): boolean {
    this.counts.read++;
    if (this.#defaults && rec !== null && typeof rec === 'object' && !Array.isArray(rec)) {
      const o = rec as Record<string, unknown>;
      for (const [k, v] of this.#defaults) if (o[k] === undefined) o[k] = v;
    }
    let row: Row;
    try {
      row = this.importer.parse(rec);
    } catch (e) {
      this.reject(where, e instanceof RejectError ? e.reason : `invalid record: ${(e as Error).message}`);
      return false;
    }
    const key = this.importer.key(row);
    const size = this.#batch.size;
    if (size === 0) this.batchOpenedAt = Date.now();
    this.#batch.set(key, row); // of equal keys the last one wins
    if (this.#batch.size === size) this.counts.duplicates++;
    return this.#batch.size >= this.batchSize;
  }

  /** The records of a whole REST body, or null for a record; a body the importer refuses is a reject. */
  recordsOf(v: unknown, where: Where): unknown[] | null | false {
    try {
      return this.importer.recordsOf(v);
    } catch (e) {
      if (!(e instanceof RejectError)) throw e;
      this.invalid(where, e.reason);
      return false;
    }
  }

  /** One JSON text of the input: a record, or a whole REST body of records (a batch takes a body whole). */
  text(t: string, where: Where): boolean {
    let v: unknown;
    try {
      v = parseJsonExact(t);
    } catch (e) {
      this.invalid(where, `invalid JSON: ${(e as Error).message}`);
      return false;
    }
    const records = this.recordsOf(v, where);
    if (records === false) return false;
    if (records === null) return this.record(v, where);
    let full = false;
    for (let i = 0; i < records.length; i++) full = this.record(records[i], { ...where, record: i }) || full;
    return full;
  }

  /** One pretty-printed body, the whole input: it has no line per record. */
  async document(t: string): Promise<void> {
    let v: unknown;
    try {
      v = parseJsonExact(t);
    } catch (e) {
      this.invalid({ line: 1 }, `invalid JSON: ${(e as Error).message}`);
      return;
    }
    const records = this.recordsOf(v, {});
    if (records === false) return;
    if (records === null) this.record(v, {});
    else for (let i = 0; i < records.length; i++) if (this.record(records[i], { record: i })) await this.flush();
  }

  /** A piece of input that is no JSON value: read, and rejected. */
  invalid(where: Where, reason: string): void {
    this.counts.read++;
    this.reject(where, reason);
  }

  /** Starts writing the batch being filled, once the one before it is written. */
  async flush(): Promise<void> {
    if (this.#batch.size === 0) return;
    const rows = [...this.#batch.values()];
    this.#batch = new Map();
    await this.settle();
    this.#inflight = this.#write(rows);
    this.#inflight.catch(() => {}); // its error surfaces at the next settle
  }

  /** Waits for the batch being written; throws what writing it threw. */
  async settle(): Promise<void> {
    const p = this.#inflight;
    this.#inflight = undefined;
    await p;
  }

  async #write(rows: Row[]): Promise<void> {
    const written = await writeImported(this.db, this.importer, rows, this.options.events);
    this.counts.inserted += written.inserted;
    this.counts.updated += written.updated;
    this.counts.unchanged += written.unchanged;
    if (this.options.events) {
      try {
        await publishInserted(this.db, this.importer, written, this.options.events);
      } catch (e) {
        this.options.onWarning?.(`stored ${written.inserted} rows but could not publish them: ${(e as Error).message}`);
      }
    }
    this.progress();
  }
}
