import { type CodedColumn, codeOf, type FacetCount, numberFacet, textFacet } from './facets.js';
import { SECURITY_SEARCH_FIELDS, type SecurityField } from './fields.js';
import { compileFilter } from './filter.js';
import { compareText, compareValues, inChunks, noPause, type Pause, sortedBy, topOf, type Value } from './order.js';
import { type TermIndex, type TextMatch, textMatch, textScores } from './rank.js';
import { TEXT_MATCH, type Filter, type SortTerm } from './syntax.js';
import {
  countTerm,
  nameTerms,
  symbolTerm,
  TEXT_FIELDS,
  type TextField,
  type Vocabulary,
  vocabularySteps,
} from './text.js';

/**
 * The search engine of the security master: free text with typos over symbols and names, Typesense's
 * filters and sort, facets over the whole match set and identifier prefixes, over the master and the
 * latest metrics alike, in memory. It is the only implementation of those rules: the database stores
 * the rows, the engine answers the search (docs/architecture.md#search). Its order of values is its
 * own (search/order.ts), so no database collation can change an answer.
 *
 * It is kept current by rows: `upsert` takes securities written since the version it holds and
 * `setMetrics` the metrics (services/security-index.ts reads them by "rev"), so one changed security
 * costs a few postings, not a rebuild.
 */

export const MASTER_FIELDS: readonly SecurityField[] = [...SECURITY_SEARCH_FIELDS.values()].filter((f) => !f.metrics);
export const METRIC_FIELDS: readonly SecurityField[] = [...SECURITY_SEARCH_FIELDS.values()].filter((f) => f.metrics);
const CODED_FIELDS = MASTER_FIELDS.filter((f) => f.facet && f.kind !== 'number');

/** A security as the engine reads it: its id and the columns of the search fields and prefix columns. */
export type MasterRow = { id: string; symbol: string; name: string } & Record<string, unknown>;
/** A symbol's metrics, by their columns (METRIC_FIELDS). */
export type MetricsRow = { symbol: string } & Record<string, unknown>;

export interface EngineQuery {
  /** A prefix column's value must start with one of `prefixes` (exactly, case and all); none: nothing matches. */
  prefix?: { column: string; prefixes: readonly string[] } | undefined;
  text?: TextMatch | undefined;
  filter?: Filter | undefined;
  /** At most three terms; `_text_match` is the text's rank. Default: the rank, else the prefix column, else symbol; then id. */
  sort?: readonly SortTerm[] | undefined;
}

export interface EngineHits {
  /** The matches in order, up to the number asked for. */
  ids: string[];
  found: number;
  /** `pause`: once per match counted (facets.ts). */
  facetsOf(fields: readonly string[], pause?: Pause): Promise<FacetCount[]>;
}

function valueOf(kind: SecurityField['kind'], v: unknown): Value {
  if (v === null || v === undefined) return null;
  if (kind === 'number') return Number(v);
  if (kind === 'boolean') return v === true || v === 't' || v === 'true';
  return String(v);
}

const NONE: ReadonlySet<string> = new Set();

/** A security's text terms, as postings keys `${field}:${term}`, and its name's word count. */
function termsOf(row: MasterRow): { keys: string[]; nameWords: number } {
  const symbol = symbolTerm(row.symbol);
  const names = nameTerms(row.name);
  const keys = [
    ...(symbol ? [`${TEXT_FIELDS.symbol}:${symbol}`] : []),
    ...names.map((t) => `${TEXT_FIELDS.name}:${t}`),
  ];
  return { keys: [...new Set(keys)], nameWords: Math.min(names.length, 0xffff) };
}

/** The positions of `matches` that pass `test`, in order: `filter`, pausing between chunks. */
async function kept(matches: readonly number[], test: (i: number) => boolean, pause: Pause): Promise<number[]> {
  const out: number[] = [];
  await inChunks(
    matches.length,
    (from, to) => {
      for (let at = from; at < to; at++) if (test(matches[at]!)) out.push(matches[at]!);
    },
    pause,
  );
  return out;
}

const splitKey = (key: string): [number, string] => {
  const at = key.indexOf(':');
  return [Number(key.slice(0, at)), key.slice(at + 1)];
};

export class SearchEngine implements TermIndex {
  readonly ids: string[] = [];
  readonly postings = new Map<string, number[]>();
  readonly terms: string[][] = [];
  readonly nameWords: number[] = [];
  private readonly at = new Map<string, number>();
  private readonly values = new Map<string, Value[]>(
    [...SECURITY_SEARCH_FIELDS.keys()].map((name) => [name, [] as Value[]]),
  );
  private readonly prefixes: Map<string, (string | null)[]>;
  private readonly metricsBySymbol = new Map<string, Value[]>();
  private readonly holders = new Map<string, number[]>();
  private readonly codes = new Map<string, CodedColumn>(
    CODED_FIELDS.map((f) => [f.name, { codes: [], labels: [], known: new Map() }]),
  );
  private vocabulary: Vocabulary = { sorted: [], byLength: new Map() };
  /** Every position by symbol then id (the wildcard's order), sorted again by the build and each upsert. */
  private bySymbol: number[] = [];

  private constructor(
    readonly prefixColumns: readonly string[],
    /** The SecurityMasterVersion whose "Security" rows the engine holds. */
    public version: bigint,
    /** The SecurityMasterVersion.metricsVersion whose "SecurityMetrics" rows it holds. */
    public metricsVersion: bigint,
    /** The SecurityMasterVersion epoch it was read in: a delete moves it, and the engine is read again whole. */
    readonly epoch: bigint,
  ) {
    this.prefixes = new Map(prefixColumns.map((c) => [c, []]));
  }

  /**
   * An engine over `rows` and `metrics`, read at `version` of `epoch`; the work is cut in slices at
   * `pause`, so a whole master does not hold the event loop (the benchmark: bench/search-build.ts).
   */
  static async build(
    prefixColumns: readonly string[],
    rows: readonly MasterRow[],
    metrics: readonly MetricsRow[],
    { version, metricsVersion, epoch }: { version: bigint; metricsVersion: bigint; epoch: bigint },
    pause: Pause = noPause,
  ): Promise<SearchEngine> {
    const engine = new SearchEngine(prefixColumns, version, metricsVersion, epoch);
    await inChunks(
      metrics.length,
      (from, to) => {
        for (const m of metrics.slice(from, to))
          engine.metricsBySymbol.set(
            m.symbol,
            METRIC_FIELDS.map((f) => valueOf(f.kind, m[f.column])),
          );
      },
      pause,
    );
    // a security is tens of µs of work: a pause each
    for (const row of rows) {
      engine.place(engine.ids.length, row);
      const turn = pause();
      if (turn) await turn;
    }
    const counts = new Map<string, number>();
    await inChunks(
      engine.terms.length,
      (from, to) => {
        for (let i = from; i < to; i++) for (const key of engine.terms[i]!) counts.set(key, (counts.get(key) ?? 0) + 1);
      },
      pause,
    );
    const steps = vocabularySteps(
      (function* () {
        for (const [key, docs] of counts) {
          const [field, term] = splitKey(key);
          yield { term, field, docs };
        }
      })(),
    );
    let step = steps.next();
    while (!step.done) {
      const turn = pause();
      if (turn) await turn;
      step = steps.next();
    }
    engine.vocabulary = step.value;
    engine.bySymbol = await engine.sortedBySymbol(pause);
    return engine;
  }

  get size(): number {
    return this.ids.length;
  }

  /**
   * Writes `rows` (new or changed securities) into the engine, now at `version`; searches may run
   * at each `pause`, and find every row before it written whole.
   */
  async upsert(rows: readonly MasterRow[], version: bigint, pause: Pause = noPause): Promise<void> {
    // Copy-on-write, as a search paused in the middle of a postings list or of the symbol order reads
    // it to its end; but only what changed is copied. A master's common words ("inc") and the symbol
    // order are lists as long as the master: copying them for every write (a re-import of one company
    // changes a word or none) cost a 50,000-security master tens of ms of CPU a write, and sorting the
    // order again more (bench/RESULTS.md, rebuild storm)
    let order: number[] | undefined;
    const reorder = (): number[] => (order ??= this.bySymbol.slice());
    const symbols = this.values.get('symbol')!;
    for (const row of rows) {
      const turn = pause();
      if (turn) await turn;
      const i = this.at.get(row.id);
      if (i === undefined) {
        this.place(this.ids.length, row);
        for (const key of this.terms[this.ids.length - 1]!) this.countKey(key, 1);
        insertInOrder(reorder(), this.ids.length - 1, this.symbolOrder);
        continue;
      }
      const before = new Set(this.terms[i]!);
      const after = new Set(termsOf(row).keys);
      for (const key of before) {
        if (!after.has(key))
          this.postings.set(
            key,
            this.postings.get(key)!.filter((p) => p !== i),
          );
        this.countKey(key, -1);
      }
      const symbolBefore = symbols[i];
      const holders = this.holders.get(symbolBefore as string)!;
      holders.splice(holders.indexOf(i), 1);
      this.place(i, row, before);
      for (const key of this.terms[i]!) this.countKey(key, 1);
      if (symbols[i] !== symbolBefore) {
        const o = reorder();
        o.splice(o.indexOf(i), 1);
        insertInOrder(o, i, this.symbolOrder);
      }
    }
    if (order) this.bySymbol = order;
    this.version = version;
  }

  /** Writes the metrics of `rows`' symbols into the engine, now at metrics version `version`. */
  async setMetrics(rows: readonly MetricsRow[], version: bigint, pause: Pause = noPause): Promise<void> {
    for (const m of rows) {
      const turn = pause();
      if (turn) await turn;
      const values = METRIC_FIELDS.map((f) => valueOf(f.kind, m[f.column]));
      this.metricsBySymbol.set(m.symbol, values);
      for (const i of this.holders.get(m.symbol) ?? []) this.placeMetrics(i, values);
    }
    this.metricsVersion = version;
  }

  /** The text match of `q` over `fields` in the engine's vocabulary; undefined for a query without words. */
  match(q: string, fields: readonly TextField[]): TextMatch | undefined {
    return textMatch(this.vocabulary, q, fields);
  }

  /**
   * The first `wanted` matches of `query` in its order, how many there are, and their facets on
   * demand. `pause` is called for each security scanned, scored or compared (search/order.ts): a
   * search over the whole master then holds the event loop for a slice at a time, and stops at a
   * request's deadline.
   */
  async search(query: EngineQuery, wanted: number, pause: Pause = noPause): Promise<EngineHits> {
    const scores = query.text ? await textScores(this, query.text, pause) : undefined;
    const keys = query.sort?.length ? query.sort : undefined;
    const prefix = query.prefix && { column: this.prefixes.get(query.prefix.column)!, of: query.prefix.prefixes };
    // without text, sort or prefix the order is the symbol's: the matches come in it
    const inOrder = !scores && !keys && !prefix;
    // the symbol order is the engine's own array: only read below (filters make new arrays, topOf runs only when not in order)
    let matches: number[] = scores ? [...scores.keys()] : inOrder ? this.bySymbol : this.ids.map((_, i) => i);
    if (prefix)
      matches = await kept(
        matches,
        (i) => {
          const value = prefix.column[i];
          return value != null && prefix.of.some((p) => value.startsWith(p));
        },
        pause,
      );
    if (query.filter)
      matches = await kept(
        matches,
        compileFilter(query.filter, (field) => this.values.get(field)!),
        pause,
      );
    const page = inOrder
      ? matches.slice(0, Math.max(wanted, 0))
      : await topOf(matches, wanted, this.comparator(query, scores), pause);
    return {
      ids: page.map((i) => this.ids[i]!),
      found: matches.length,
      facetsOf: (fields, facetPause = noPause) => this.facetsOf(matches, fields, facetPause),
    };
  }

  private comparator(query: EngineQuery, scores: Map<number, number> | undefined): (a: number, b: number) => number {
    const byId = (a: number, b: number) => compareText(this.ids[a]!, this.ids[b]!);
    if (query.sort?.length) {
      const keys = query.sort.map(({ field, order }) => ({
        text: field === TEXT_MATCH,
        column: this.values.get(field),
        desc: order === 'desc',
      }));
      return (a, b) => {
        for (const { text, column, desc } of keys) {
          const c = text
            ? (desc ? 1 : -1) * (scores!.get(a)! - scores!.get(b)!)
            : compareValues(column![a]!, column![b]!, desc);
          if (c !== 0) return c;
        }
        return byId(a, b);
      };
    }
    if (scores) {
      const cap = this.values.get('financials.market_cap')!;
      return (a, b) => scores.get(a)! - scores.get(b)! || compareValues(cap[a]!, cap[b]!, true) || byId(a, b);
    }
    const column = query.prefix ? this.prefixes.get(query.prefix.column)! : this.values.get('symbol')!;
    return (a, b) => compareValues(column[a] ?? null, column[b] ?? null, false) || byId(a, b);
  }

  /** The wildcard's order: by symbol, then id. */
  private readonly symbolOrder = (a: number, b: number): number =>
    compareValues(this.values.get('symbol')![a]!, this.values.get('symbol')![b]!, false) ||
    compareText(this.ids[a]!, this.ids[b]!);

  private sortedBySymbol(pause: Pause): Promise<number[]> {
    return sortedBy(
      this.ids.map((_, i) => i),
      this.symbolOrder,
      pause,
    );
  }

  private async facetsOf(matches: readonly number[], fields: readonly string[], pause: Pause): Promise<FacetCount[]> {
    const out: FacetCount[] = [];
    for (const field of fields)
      out.push(
        SECURITY_SEARCH_FIELDS.get(field)!.kind === 'number'
          ? await numberFacet(field, this.values.get(field)!, matches, pause)
          : await textFacet(field, this.codes.get(field)!, matches, pause),
      );
    return out;
  }

  /**
   * Puts `row` at position `i` (a new one: the next), its terms in the postings but those in
   * `posted` (its terms before, still listing `i`); the vocabulary is the caller's.
   */
  private place(i: number, row: MasterRow, posted: ReadonlySet<string> = NONE): void {
    this.ids[i] = row.id;
    this.at.set(row.id, i);
    for (const f of MASTER_FIELDS) {
      const v = valueOf(f.kind, row[f.column]);
      this.values.get(f.name)![i] = v;
      const coded = this.codes.get(f.name);
      if (coded) coded.codes[i] = codeOf(coded, v);
    }
    for (const [column, values] of this.prefixes) values[i] = row[column] == null ? null : String(row[column]);
    const holders = this.holders.get(row.symbol) ?? this.holders.set(row.symbol, []).get(row.symbol)!;
    holders.push(i);
    this.placeMetrics(i, this.metricsBySymbol.get(row.symbol));
    const { keys, nameWords } = termsOf(row);
    this.terms[i] = keys;
    this.nameWords[i] = nameWords;
    for (const key of keys) {
      if (!posted.has(key)) (this.postings.get(key) ?? this.postings.set(key, []).get(key)!).push(i);
    }
  }

  private placeMetrics(i: number, values: readonly Value[] | undefined): void {
    METRIC_FIELDS.forEach((f, k) => {
      this.values.get(f.name)![i] = values?.[k] ?? null;
    });
  }

  private countKey(key: string, delta: number): void {
    const [field, term] = splitKey(key);
    countTerm(this.vocabulary, term, field, delta);
  }
}

/** Puts position `i` into `order` (sorted by `compare`) after every position not above it. */
function insertInOrder(order: number[], i: number, compare: (a: number, b: number) => number): void {
  let lo = 0;
  let hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compare(order[mid]!, i) <= 0) lo = mid + 1;
    else hi = mid;
  }
  order.splice(lo, 0, i);
}
