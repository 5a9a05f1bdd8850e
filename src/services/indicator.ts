// Technical indicators over a symbol's bars: SMA, EMA, MACD and RSI (domain/indicators.ts) over the
// bars barPage builds (services/bar.ts), for REST's /v1/indicators routes and GraphQL alike
// (docs/rest.md#parameters-per-route).
// A value never depends on where the read started: the indicator is fed `warmUp(...).stable` bars
// before the first value (or the whole history), so a recursive indicator's seed weighs at most
// SEED_WEIGHT in any value however the list was paged; a bar without enough history has no value.
// The work is bounded before it runs: windows of at most MAX_WINDOW bars, at most VALUES.max values,
// and a plan of base bars (the warm-up, the values and a few bars of slack, each counted at the most
// base bars one bar may hold) of at most INDICATOR_BASE_BARS, read in pages of BASE_BARS.max at most.
import type { Db } from '../db/client.js';
import { dateOfDay } from '../domain/bar-time.js';
import { ema, macd, rsi, sma, warmUp, type WarmUp } from '../domain/indicators.js';
import { AppError } from '../errors.js';
import {
  BASE_BARS,
  barPage,
  HISTORY,
  MAX_MULTIPLIER,
  type Bar,
  type BarQuery,
  type Factor,
  type Session,
  type Sort,
} from './bar.js';
import { basesPerBar, type Timespan } from './bar-bucket.js';
import { actionsOf, factorsOf, segmentsOf, type Adjustment, type Segment } from './adjustment.js';

export const SERIES_TYPES = ['open', 'high', 'low', 'close'] as const;
export type SeriesType = (typeof SERIES_TYPES)[number];

/** The longest window of any indicator line, in bars. */
export const MAX_WINDOW = 1_000;
/** Values one answer holds (Massive's `limit`: default 10, at most 5,000). */
export const VALUES = { default: 10, max: 5_000 } as const;
/** Base bars one answer's plan may read, in pages of BASE_BARS.max at most. */
export const INDICATOR_BASE_BARS = 5 * BASE_BARS.max;
/**
 * Bars a plan counts beyond the warm-up and the values: the bar after the last value (is there a
 * next page?), and at each end of a read the bucket it cuts, which is read and left out.
 */
const SLACK_BARS = 5;

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** The instants a read may span (services/bar.ts), for the routes' bounds. */
export { HISTORY };

export type IndicatorSpec =
  | { kind: 'sma' | 'ema' | 'rsi'; window: number }
  | { kind: 'macd'; shortWindow: number; longWindow: number; signalWindow: number };

export interface IndicatorQuery {
  symbol: string;
  indicator: IndicatorSpec;
  timespan: Timespan;
  multiplier: number;
  session: Session;
  /** The price of a bar the indicator is computed over. */
  seriesType: SeriesType;
  /** Epoch ms, both inclusive: the values of the bars that start within them; absent, the whole history. */
  from?: number;
  to?: number;
  /** By the bars' start: `asc` the oldest values of the range first, `desc` the newest first. */
  order: Sort;
  /** Values at most. */
  limit: number;
  /** The corporate actions prices are adjusted for (services/adjustment.ts); none: raw prices. */
  adjustments?: ReadonlySet<Adjustment>;
  /** The exchange day whose quoted prices the values are in (today: services/bar.ts `today`). */
  asOf: number;
}

/** A query with the security's stretches of history and the factors of its adjustments resolved. */
type ResolvedQuery = IndicatorQuery & SeriesSource;

/** Where a series' bars come from: the security's stretches and factors, the bar, and the grid's origin (BarQuery.anchor). */
export interface SeriesSource {
  symbol: string;
  segments: readonly Segment[];
  factors: readonly Factor[];
  timespan: Timespan;
  multiplier: number;
  session: Session;
  anchor: number;
}

/** The names of the arguments a message names, as the caller spells them (REST: `short_window`). */
export type IndicatorArgument = 'window' | 'shortWindow' | 'longWindow' | 'signalWindow' | 'limit' | 'multiplier';

export interface IndicatorValue {
  /** The start of the value's bar, epoch ms. */
  t: number;
  value: number;
  /** MACD's signal line and histogram; absent for the other indicators. */
  signal?: number;
  histogram?: number;
}

export interface IndicatorPage {
  values: IndicatorValue[];
  /** The bars the values were computed from, in `order`: the warm-up and the values' own bars. */
  bars: Bar[];
  /**
   * Epoch ms, inclusive, where those bars are and no other: read back as aggregates, this span gives
   * `bars` (from the oldest bar's start to just before the next bar, or as far as the read went).
   */
  span: { from: number; to: number };
  /** When the range holds more values: the next ones start after (`asc`) or before (`desc`) this bar's start. */
  next?: { after: number } | { before: number };
}

export interface IndicatorPlan {
  warmUp: WarmUp;
  /** The most base bars the answer reads; an answer that meets buckets without a price may read up to twice as many. */
  baseBars: number;
}

const bad = (argument: string, rule: string, value: unknown) =>
  new AppError('BAD_REQUEST', `argument "${argument}" must be ${rule}; got ${JSON.stringify(value)}`);

function checkInteger(name: string, value: number, min: number, max: number): void {
  if (!Number.isSafeInteger(value) || value < min || value > max)
    throw bad(name, `an integer from ${min} to ${max}`, value);
}

/**
 * The query checked (windows, limit, multiplier) and its work counted before anything is read: a
 * plan past INDICATOR_BASE_BARS is a BAD_REQUEST saying the largest limit that fits, or that the
 * window is too long for the bar when none does.
 */
export function indicatorPlan(
  q: IndicatorQuery,
  argumentName: (key: IndicatorArgument) => string = (k) => k,
): IndicatorPlan {
  const spec = q.indicator;
  let windowName: string;
  let windowValue: number;
  let warm: WarmUp;
  if (spec.kind === 'macd') {
    for (const key of ['shortWindow', 'longWindow', 'signalWindow'] as const)
      checkInteger(argumentName(key), spec[key], 1, MAX_WINDOW);
    if (spec.shortWindow >= spec.longWindow)
      throw bad(
        argumentName('shortWindow'),
        `less than ${argumentName('longWindow')} (${spec.longWindow})`,
        spec.shortWindow,
      );
    warm = warmUp('macd', spec);
    [windowName, windowValue] = [argumentName('longWindow'), spec.longWindow];
  } else {
    checkInteger(argumentName('window'), spec.window, 1, MAX_WINDOW);
    warm = warmUp(spec.kind, { window: spec.window });
    [windowName, windowValue] = [argumentName('window'), spec.window];
  }
  checkInteger(argumentName('limit'), q.limit, 1, VALUES.max);
  checkInteger(argumentName('multiplier'), q.multiplier, 1, MAX_MULTIPLIER);
  const largest = basesPerBar(q.timespan, q.multiplier);
  const baseBars = (warm.stable + q.limit + SLACK_BARS) * largest;
  if (baseBars > INDICATOR_BASE_BARS) {
    const fits = Math.floor(INDICATOR_BASE_BARS / largest) - warm.stable - SLACK_BARS;
    const bars = `${q.multiplier} ${q.timespan} bars`;
    if (fits >= 1)
      throw bad(
        argumentName('limit'),
        `at most ${fits} for this indicator on ${bars}: with its warm-up of ${warm.stable} bars, each of up to ${largest} base bars, more would read over ${INDICATOR_BASE_BARS} base bars`,
        q.limit,
      );
    throw bad(
      windowName,
      `shorter for ${bars}: its warm-up of ${warm.stable} bars, each of up to ${largest} base bars, would read over ${INDICATOR_BASE_BARS} base bars`,
      windowValue,
    );
  }
  return { warmUp: warm, baseBars };
}

/** The indicator's outputs over bars in ascending time, one per bar, `undefined` where not yet defined. */
export function compute(
  spec: IndicatorSpec,
  bars: readonly Bar[],
  seriesType: SeriesType,
): (IndicatorValue | undefined)[] {
  const key = ({ open: 'o', high: 'h', low: 'l', close: 'c' } as const)[seriesType];
  // barPage answers no bar without prices
  const prices = bars.map((b) => b[key]!);
  if (spec.kind === 'macd')
    return macd(prices, spec.shortWindow, spec.longWindow, spec.signalWindow).map((p, i) =>
      p === undefined ? undefined : { t: bars[i]!.t, ...p },
    );
  const line = { sma, ema, rsi }[spec.kind](prices, spec.window);
  return line.map((value, i) => (value === undefined ? undefined : { t: bars[i]!.t, value }));
}

/** The base bars read so far, against a cap: twice the plan, for buckets without a price that read more. */
export interface Work {
  spent: number;
  cap: number;
  largest: number;
}

/**
 * One direction of bars over [from, to], read page by page as they are taken: each page sized for
 * the bars still wanted (at most BASE_BARS.max base bars), so a read stops about where its taker does.
 */
class BarStream {
  #bars: Bar[] = [];
  #at = 0;
  #done = false;
  #from: number;
  #to: number;

  constructor(
    private readonly db: Db,
    private readonly q: SeriesSource,
    private readonly sort: Sort,
    from: number,
    to: number,
    private readonly work: Work,
  ) {
    this.#from = from;
    this.#to = to;
    this.#done = from > to;
  }

  /** The next bar, or undefined past the last; a page read for `wanted` more bars when none is left. */
  async take(wanted: number): Promise<Bar | undefined> {
    while (this.#at === this.#bars.length && !this.#done) await this.#read(wanted);
    return this.#bars[this.#at++];
  }

  async #read(wanted: number): Promise<void> {
    const w = this.work;
    const limit = Math.min(BASE_BARS.max, Math.max(1, wanted) * w.largest);
    if (w.spent + limit > w.cap)
      throw new AppError(
        'BAD_REQUEST',
        `the bars of ${this.q.symbol} hold so many buckets without a price that this indicator would read over ${w.cap} base bars; ask for fewer values or a narrower range`,
      );
    const page = await barPage(this.db, {
      // every read of the series on one grid of buckets, wherever it starts, and the first bucket
      // of a read whole: a value never depends on where the read started
      anchor: this.q.anchor,
      whole: true,
      segments: this.q.segments,
      multiplier: this.q.multiplier,
      timespan: this.q.timespan,
      session: this.q.session,
      factors: this.q.factors,
      from: this.#from,
      to: this.#to,
      sort: this.sort,
      limit,
    } satisfies BarQuery);
    // a cut page read limit + 1 rows; a whole one, the rows it counted
    w.spent += page.next ? limit : page.queryCount;
    this.#bars = page.bars;
    this.#at = 0;
    if (!page.next) this.#done = true;
    else if ('from' in page.next) this.#from = page.next.from;
    else this.#to = page.next.to;
  }
}

/**
 * The indicator's values for the bars of `q` that start within [from, to], in `q.order`, at most
 * `q.limit`, each computed over the history before it (see the top of this file), and the bars
 * that made them. Checks `q` first (indicatorPlan), naming arguments by `argumentName`.
 */
export async function indicatorSeries(
  db: Db,
  query: IndicatorQuery,
  argumentName: (key: IndicatorArgument) => string = (k) => k,
): Promise<IndicatorPage> {
  const plan = indicatorPlan(query, argumentName);
  // the security that has the symbol today, across the symbols it traded under
  const segments = await segmentsOf(db, query.symbol, dateOfDay(query.asOf));
  const factors = factorsOf(await actionsOf(db, segments, query.adjustments ?? new Set()), query.asOf);
  const q: ResolvedQuery = { ...query, segments, factors, anchor: HISTORY.from };
  const from = Math.max(HISTORY.from, q.from ?? HISTORY.from);
  const to = Math.min(HISTORY.to, q.to ?? HISTORY.to);
  if (from > to) return { values: [], bars: [], span: { from, to: from } };
  const largest = basesPerBar(q.timespan, q.multiplier);
  const work: Work = { spent: 0, cap: 2 * plan.baseBars, largest };
  // past `to` by a bucket at most (and the hour a change of clocks adds), so that the bucket
  // holding `to` is read whole
  const unit = q.timespan === 'minute' || q.timespan === 'hour' ? MINUTE_MS : DAY_MS;
  const range: Range = { from, to, readTo: Math.min(HISTORY.to, to + largest * unit + HOUR_MS) };
  return q.order === 'asc'
    ? oldestFirst(db, q, range, plan.warmUp, work)
    : newestFirst(db, q, range, plan.warmUp, work);
}

interface Range {
  from: number;
  to: number;
  /** Where reads end: past `to` by a bucket. */
  readTo: number;
}

/**
 * The oldest values first: the values' bars (and the bar after them, which says whether a next page
 * holds a value) read forward from `from`, then the warm-up read back from the first of them.
 */
async function oldestFirst(db: Db, q: ResolvedQuery, r: Range, warm: WarmUp, work: Work): Promise<IndicatorPage> {
  // from the start of the bucket holding `from` (BarStream reads it whole): that bucket, if it
  // starts before `from`, is read again with the warm-up
  const stream = new BarStream(db, q, 'asc', r.from, r.readTo, work);
  const inRange: Bar[] = [];
  let beyond: Bar | undefined;
  const take = async (count: number) => {
    const goal = inRange.length + count;
    while (inRange.length < goal && !beyond) {
      const bar = await stream.take(goal - inRange.length + 2);
      if (!bar) break;
      if (bar.t > r.to) beyond = bar;
      else if (bar.t >= r.from) inRange.push(bar);
    }
  };
  await take(q.limit + 1);
  if (inRange.length === 0) return { values: [], bars: [], span: { from: r.from, to: r.to } };
  const before = await warmUpBars(db, q, inRange[0]!.t, warm.stable, work);
  // at the start of history the first bars have no value: as many more as lack one
  if (before.length < warm.defined) await take(warm.defined - before.length);
  const bars = [...before, ...inRange];
  const outputs = compute(q.indicator, bars, q.seriesType);
  const defined = outputs.slice(before.length).filter((v) => v !== undefined);
  const values = defined.slice(0, q.limit);
  const last = values.at(-1);
  // the bars used: up to the last value's (all that were read when none has a value)
  const used = last ? bars.slice(0, bars.findIndex((b) => b.t === last.t) + 1) : bars;
  const following = bars[used.length] ?? beyond;
  return {
    values,
    bars: used,
    span: { from: used[0]!.t, to: following ? following.t - 1 : r.readTo },
    ...(defined.length > q.limit && last ? { next: { after: last.t } } : {}),
  };
}

/**
 * The newest values first: one read back from past `to` holds the values' bars, then their
 * warm-up, whose newest bar is the one before the oldest value (does another page hold a value?).
 */
async function newestFirst(db: Db, q: ResolvedQuery, r: Range, warm: WarmUp, work: Work): Promise<IndicatorPage> {
  const stream = new BarStream(db, q, 'desc', HISTORY.from, r.readTo, work);
  const inRange: Bar[] = [];
  const before: Bar[] = [];
  let beyond: Bar | undefined;
  while (before.length <= warm.stable) {
    const bar = await stream.take(q.limit - inRange.length + warm.stable + 1 - before.length + 2);
    if (!bar) break;
    if (bar.t > r.to) beyond = bar;
    else if (bar.t >= r.from && inRange.length < q.limit && before.length === 0) inRange.push(bar);
    else if (inRange.length === 0) break;
    else before.push(bar);
  }
  if (inRange.length === 0) return { values: [], bars: [], span: { from: r.from, to: r.to } };
  // in time order from here: the warm-up, then the values' bars
  const bars = [...inRange, ...before].reverse();
  const warmCount = before.length;
  const outputs = compute(q.indicator, bars, q.seriesType);
  const values = outputs
    .slice(warmCount)
    .filter((v) => v !== undefined)
    .reverse();
  // the bar before the oldest value: in the range and with a value of its own, a next page starts there
  const previous = bars[warmCount - 1];
  const more =
    values.length > 0 && previous !== undefined && previous.t >= r.from && outputs[warmCount - 1] !== undefined;
  return {
    values,
    bars: [...bars].reverse(),
    span: { from: bars[0]!.t, to: beyond ? beyond.t - 1 : r.readTo },
    ...(more ? { next: { before: values.at(-1)!.t } } : {}),
  };
}

/** Up to `count` bars before `before` (epoch ms, a bar's start), oldest first. */
export async function warmUpBars(db: Db, q: SeriesSource, before: number, count: number, work: Work): Promise<Bar[]> {
  const stream = new BarStream(db, q, 'desc', HISTORY.from, before - 1, work);
  const bars: Bar[] = [];
  while (bars.length < count) {
    const bar = await stream.take(count - bars.length + 1);
    if (!bar) break;
    bars.push(bar);
  }
  return bars.reverse();
}
