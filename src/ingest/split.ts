/**
 * How an import's input is cut into JSON values: its format, sniffed from the first characters,
 * then NDJSON lines or the elements of a top-level JSON array as the chunks arrive. Each chunk is
 * searched once and a value spanning chunks joined once, when it ends, so the work is linear in the
 * input however long a value is; a value past `maxBytes` (IMPORT_MAX_LINE_BYTES) is rejected as
 * soon as it passes, and the rest of it is skipped without being kept.
 */
import { IMPORT_MAX_LINE_BYTES } from '../config.js';
import { grouped } from './progress.js';

export type InputFormat = 'ndjson' | 'array' | 'document';

/** Where a value is in the input (see Reject in ingest/import-stream.ts). */
export interface Where {
  line?: number;
  index?: number;
  record?: number;
}

/** Where the values go (ingest/import-stream.ts: the import's records and batches). */
export interface ValueSink {
  /** One JSON text (an NDJSON line, an array element); true when the batch is full. */
  text(t: string, where: Where): boolean;
  /** The whole input as one pretty-printed body. */
  document(t: string): Promise<void>;
  /** A piece of input that is no JSON value. */
  invalid(where: Where, reason: string): void;
  /** Writes the full batch. */
  flush(): Promise<void>;
}

/** Cuts the input's text into JSON values as it arrives, in the format its first characters show. */
export class Feeder {
  #sniffer: Sniffer | undefined;
  #splitter: LineSplitter | ArraySplitter | undefined;
  #document: string[] | undefined = [];
  #documentBytes = 0;

  constructor(
    private readonly sink: ValueSink,
    /** Follow mode is NDJSON; otherwise sniffed from the first characters. */
    public format: InputFormat | undefined,
    /** UTF-8 bytes of one JSON text: an NDJSON line, an array element, a pretty-printed body. */
    private readonly maxBytes = IMPORT_MAX_LINE_BYTES,
  ) {
    if (format === undefined) this.#sniffer = new Sniffer(maxBytes);
  }

  /** Characters the splitter searched, measured or copied so far (test/ingest/split.test.ts holds it linear). */
  get work(): number {
    return (this.#sniffer?.work ?? 0) + (this.#splitter?.work ?? 0);
  }

  async feed(chunk: string, end: boolean): Promise<void> {
    if (this.format === undefined) {
      const text = this.#sniffer!.push(chunk, end);
      if (text === undefined) return;
      this.format = this.#sniffer!.format;
      chunk = text;
    }
    if (this.format === 'document') return this.#feedDocument(chunk, end);
    this.#splitter ??=
      this.format === 'array'
        ? new ArraySplitter(this.maxBytes, this.#sniffer?.newlines ?? 0)
        : new LineSplitter(this.maxBytes, this.#sniffer?.newlines ?? 0);
    for (const v of this.#splitter.push(chunk, end)) {
      const where = v.index === undefined ? { line: v.line } : { line: v.line, index: v.index };
      if (v.error !== undefined) this.sink.invalid(where, v.error);
      else if (this.sink.text(v.text, where)) await this.sink.flush();
    }
  }

  /** Held until the input ends: a pretty-printed body has no line per record. */
  async #feedDocument(chunk: string, end: boolean): Promise<void> {
    if (this.#document) {
      this.#documentBytes += Buffer.byteLength(chunk);
      if (this.#documentBytes <= this.maxBytes) this.#document.push(chunk);
      else {
        this.#document = undefined;
        this.sink.invalid({ line: 1 }, tooLong('a pretty-printed body', this.maxBytes));
      }
    }
    if (end && this.#document) await this.sink.document(this.#document.join(''));
  }
}

/** One JSON text cut from the input, or why a piece of it is none. */
interface Value {
  text: string;
  line: number;
  index?: number;
  error?: string;
}

const tooLong = (what: string, max: number) =>
  `longer than ${grouped(max)} bytes, the most ${what} may hold (IMPORT_MAX_LINE_BYTES): skipped to its end`;

const isSpace = (c: number) => c === 32 || c === 9 || c === 13;

/**
 * The format, from the first characters (a byte-order mark dropped): `[` a JSON array (streamed
 * element by element), a first line of just `{` one pretty-printed body, anything else NDJSON.
 * Blank lines before the first character are dropped and counted, so line numbers stay the input's.
 */
class Sniffer {
  format: InputFormat | undefined;
  /** Newlines dropped before the first character. */
  newlines = 0;
  work = 0;
  #started = false;
  /** From a first `{` on, while only spaces have followed it on its line. */
  #brace: string[] | undefined;
  #braceLength = 0;

  constructor(private readonly maxBytes: number) {}

  /** The text to cut from here on (what was held and this chunk), once the format shows; undefined while it does not. */
  push(chunk: string, end: boolean): string | undefined {
    if (!this.#started && chunk !== '') {
      this.#started = true;
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
    }
    let i = 0;
    if (this.#brace === undefined) {
      for (; i < chunk.length; i++) {
        const c = chunk.charCodeAt(i);
        if (c === 10) this.newlines++;
        else if (!isSpace(c)) break;
      }
      this.work += i;
      if (i === chunk.length) return end ? this.#decided('ndjson', []) : undefined;
      const c = chunk.charCodeAt(i);
      chunk = chunk.slice(i);
      if (c === 91) return this.#decided('array', [chunk]);
      if (c !== 123) return this.#decided('ndjson', [chunk]);
      this.#brace = [];
      i = 1;
    }
    for (; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (c === 10) return this.#decided('document', [...this.#brace, chunk]);
      if (!isSpace(c)) return this.#decided('ndjson', [...this.#brace, chunk]);
    }
    this.work += chunk.length;
    this.#brace.push(chunk);
    this.#braceLength += chunk.length;
    if (end) return this.#decided('document', this.#brace);
    // a line of `{` and spaces past any value's size: what it is, the splitter rejects as too long
    if (this.#braceLength > this.maxBytes) return this.#decided('ndjson', this.#brace);
    return undefined;
  }

  #decided(format: InputFormat, parts: string[]): string {
    this.format = format;
    this.#brace = undefined;
    return parts.length === 1 ? parts[0]! : parts.join('');
  }
}

/**
 * A value's text as it arrives in pieces: kept until it ends, then joined once; past `max` UTF-8
 * bytes dropped, and its rest skipped (`skipping`) until it ends.
 */
class Pending {
  #parts: string[] = [];
  #bytes = 0;
  skipping = false;
  work = 0;

  constructor(private readonly max: number) {}

  get empty(): boolean {
    return this.#parts.length === 0;
  }

  /** Adds a piece (`last`: the value ends with it); true when the value passes the limit with it, and is skipped from here on. */
  add(piece: string, last: boolean): boolean {
    if (this.skipping || piece === '') return false;
    // counted exactly only when it could pass the limit (a UTF-16 unit is at most 3 UTF-8 bytes) or stays pending
    let bytes = piece.length;
    if (!last || this.#bytes + piece.length * 3 > this.max) {
      bytes = Buffer.byteLength(piece);
      this.work += piece.length;
    }
    if (this.#bytes + bytes > this.max) {
      this.skipping = true;
      this.#parts = [];
      this.#bytes = 0;
      return true;
    }
    this.#parts.push(piece);
    this.#bytes += bytes;
    return false;
  }

  /** The value's text, once, and a fresh start; undefined when it was skipped. */
  take(): string | undefined {
    const parts = this.#parts;
    const skipped = this.skipping;
    this.#parts = [];
    this.#bytes = 0;
    this.skipping = false;
    if (skipped) return undefined;
    if (parts.length === 1) return parts[0]!;
    const text = parts.join('');
    this.work += text.length;
    return text;
  }
}

/** Lines of text as they arrive in chunks, with their 1-based numbers; blank lines are skipped. */
class LineSplitter {
  #line: Pending;
  #lineNo: number;
  #searched = 0;

  constructor(
    private readonly max: number,
    linesBefore: number,
  ) {
    this.#line = new Pending(max);
    this.#lineNo = linesBefore;
  }

  get work(): number {
    return this.#searched + this.#line.work;
  }

  push(chunk: string, end: boolean): Value[] {
    const out: Value[] = [];
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf('\n', start);
      const stop = nl < 0 ? chunk.length : nl;
      this.#searched += stop - start;
      const piece = start === 0 && stop === chunk.length ? chunk : chunk.slice(start, stop);
      if (this.#line.add(piece, nl >= 0))
        out.push({ text: '', line: this.#lineNo + 1, error: tooLong('a line', this.max) });
      if (nl < 0) break;
      this.#end(out);
      start = nl + 1;
    }
    if (end && (!this.#line.empty || this.#line.skipping)) this.#end(out);
    return out;
  }

  #end(out: Value[]): void {
    this.#lineNo++;
    const line = this.#line.take();
    if (line !== undefined && !isBlank(line)) out.push({ text: line, line: this.#lineNo });
  }
}

function isBlank(line: string): boolean {
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 13) return false;
  }
  return true;
}

/**
 * The elements of a top-level JSON array as they arrive in chunks, without holding the whole
 * array: a scan that tracks strings and nesting cuts the text at the commas of depth 1. Each
 * element is parsed on its own, so a bad one is a reject of its own index. Several arrays in a row
 * (`[...]\n[...]`) continue the index.
 */
class ArraySplitter {
  #depth = 0;
  #inString = false;
  #escaped = false;
  /** After junk outside any array: skipping to the next line. */
  #junk = false;
  #line: number;
  #index = 0;
  /** The element being read: whether one has begun, where, and its text so far. */
  #open = false;
  #startLine = 0;
  #element: Pending;
  #scanned = 0;

  constructor(
    private readonly max: number,
    linesBefore: number,
  ) {
    this.#element = new Pending(max);
    this.#line = 1 + linesBefore;
  }

  get work(): number {
    return this.#scanned + this.#element.work;
  }

  push(chunk: string, end: boolean): Value[] {
    const out: Value[] = [];
    /** Where the open element's text starts in this chunk. */
    let from = 0;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (c === 10) this.#line++;
      if (this.#junk) {
        if (c === 10) this.#junk = false;
        continue;
      }
      if (this.#inString) {
        if (this.#escaped) this.#escaped = false;
        else if (c === 92) this.#escaped = true;
        else if (c === 34) this.#inString = false;
        continue;
      }
      if (c === 10 || isSpace(c)) continue;
      if (this.#depth === 0) {
        if (c === 91) this.#depth = 1;
        else {
          const got = JSON.stringify(chunk.slice(i, i + 20));
          out.push({ text: '', line: this.#line, error: `expected a JSON array, got ${got}` });
          this.#junk = true;
        }
        continue;
      }
      if (this.#depth === 1 && (c === 44 || c === 93)) {
        if (this.#open) this.#close(chunk.slice(from, i), out);
        if (c === 93) this.#depth = 0;
        continue;
      }
      if (!this.#open && this.#depth === 1) {
        this.#open = true;
        this.#startLine = this.#line;
        from = i;
      }
      if (c === 34) this.#inString = true;
      else if (c === 123 || c === 91) this.#depth++;
      else if (c === 125 || c === 93) this.#depth--;
    }
    this.#scanned += chunk.length;
    if (this.#open && this.#element.add(chunk.slice(from), false)) this.#tooLong(out);
    if (end && this.#depth > 0 && !this.#element.skipping) {
      const rest = (this.#element.take() ?? '').trim();
      out.push({
        text: '',
        line: this.#open ? this.#startLine : this.#line,
        error: `the input ended inside the JSON array${rest ? ` (element ${JSON.stringify(rest.slice(0, 40))})` : ''}`,
      });
    }
    return out;
  }

  #close(piece: string, out: Value[]): void {
    if (this.#element.add(piece, true)) this.#tooLong(out);
    const text = this.#element.take();
    if (text !== undefined) out.push({ text, line: this.#startLine, index: this.#index });
    this.#index++;
    this.#open = false;
  }

  #tooLong(out: Value[]): void {
    out.push({ text: '', line: this.#startLine, index: this.#index, error: tooLong('an array element', this.max) });
  }
}
