/**
 * How an import's input is cut into JSON values: its format, sniffed from the first characters,
 * then NDJSON lines or the elements of a top-level JSON array as the chunks arrive.
 */
export type InputFormat = 'ndjson' | 'array' | 'document';

/**
 * The format shows in the first characters (`text`, a byte-order mark already removed): `[` a JSON
 * array (streamed element by element), a first line of just `{` one pretty-printed body, anything
 * else NDJSON. Undefined while the characters so far cannot tell (`end`: there are no more).
 */
function sniffFormat(text: string, end: boolean): InputFormat | undefined {
  const t = text.trimStart();
  if (t === '' && !end) return undefined;
  if (t.startsWith('[')) return 'array';
  if (!t.startsWith('{')) return 'ndjson';
  const nl = t.indexOf('\n');
  if (nl < 0 && !end) return undefined; // wait for the first line
  return (nl < 0 ? t : t.slice(0, nl)).trim() === '{' ? 'document' : 'ndjson';
}

/** Where a value is in the input (see Reject in ingest/import.ts). */
export interface Where {
  line?: number;
  index?: number;
  record?: number;
}

/** Where the values go (ingest/import.ts: the import's records and batches). */
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
  #head = '';
  #lines: LineSplitter | undefined;
  #array: ArraySplitter | undefined;
  readonly #documentParts: string[] = [];

  constructor(
    private readonly sink: ValueSink,
    /** Follow mode is NDJSON; otherwise sniffed from the first characters. */
    public format: InputFormat | undefined,
  ) {}

  async feed(chunk: string, end: boolean): Promise<void> {
    if (this.format === undefined) {
      this.#head += chunk;
      const text = this.#head.replace(/^\uFEFF/, '');
      this.format = sniffFormat(text, end);
      if (this.format === undefined) return;
      chunk = text;
      this.#head = '';
    }
    if (this.format === 'document') {
      // held until the input ends: a pretty-printed body has no line per record
      this.#documentParts.push(chunk);
      if (end) await this.sink.document(this.#documentParts.join(''));
      return;
    }
    if (this.format === 'array') {
      this.#array ??= new ArraySplitter();
      for (const el of this.#array.push(chunk, end)) {
        if (el.error) this.sink.invalid({ line: el.line }, el.error);
        else if (this.sink.text(el.text, { line: el.line, index: el.index })) await this.sink.flush();
      }
      return;
    }
    this.#lines ??= new LineSplitter();
    for (const [line, lineNo] of this.#lines.push(chunk, end)) {
      if (this.sink.text(line, { line: lineNo })) await this.sink.flush();
    }
  }
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
        else
          out.push({
            text: '',
            line: this.line,
            index: this.index,
            error: `expected a JSON array, got ${JSON.stringify(buf.slice(i, i + 20))}`,
          }),
            (i = this.skipLine(buf, i));
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
      out.push({
        text: rest,
        line: this.startLine || this.line,
        index: this.index,
        error: `the input ended inside the JSON array${rest ? ` (element ${JSON.stringify(rest.slice(0, 40))})` : ''}`,
      });
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
