// The indicators of src/domain/indicators.ts against an independent implementation, the
// technicalindicators package, on seeded random walks and edge cases; then the warm-up rule
// against a long history. Values agree to 1e-9: absolute below 1, relative above
// (|a − b| ≤ 1e-9 · max(1, |b|)).
//
// Where the package's conventions differ from ours, the test aligns them here, explicitly:
// - it returns only the defined outputs (the first one belongs to the first defined bar): its
//   arrays are padded at the front with `undefined` to the input's length;
// - its RSI is rounded to 2 decimals: the exact RSI comes from its unrounded Wilder averages
//   (AverageGain, AverageLoss) through RSI = 100·G/(G+L), 100 when L = 0, and its rounded RSI
//   is checked to within 0.005;
// - its MACD defaults to SMA lines (SimpleMAOscillator/SimpleMASignal), so both are set to false;
//   it emits a bar from the MACD line's first value with `signal` and `histogram` undefined until
//   the signal is defined, where ours is `undefined` until all three are; and it drops a signal of
//   exactly 0 (a truthiness test), which is then MACD − histogram.
import { AverageGain, AverageLoss, EMA, MACD, RSI, SMA } from 'technicalindicators';
import { describe, expect, it } from 'vitest';
import {
  ema,
  type IndicatorSeries,
  type MacdPoint,
  macd,
  rsi,
  SEED_WEIGHT,
  sma,
  warmUp,
} from '../../src/domain/indicators.js';

const TOLERANCE = 1e-9;

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A geometric random walk with 2% daily volatility: positive prices, as the package assumes. */
function randomWalk(length: number, seed: number, start = 100): number[] {
  const random = mulberry32(seed);
  const out: number[] = [];
  let price = start;
  for (let i = 0; i < length; i++) {
    out.push(price);
    const gaussian = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    price *= Math.exp(0.02 * gaussian);
  }
  return out;
}

function padFront<T>(defined: T[], length: number): (T | undefined)[] {
  expect(defined.length).toBeLessThanOrEqual(length);
  return [...new Array<undefined>(length - defined.length).fill(undefined), ...defined];
}

function close(a: number, b: number, tolerance = TOLERANCE): boolean {
  return Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(b));
}

/** The first index where two series differ (definedness or value), for a readable failure. */
function firstMismatch(actual: IndicatorSeries, expected: IndicatorSeries, tolerance = TOLERANCE) {
  expect(actual).toHaveLength(expected.length);
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i];
    const b = expected[i];
    if (a === undefined || b === undefined ? a !== b : !close(a, b, tolerance)) return { i, actual: a, expected: b };
  }
  return undefined;
}

const librarySma = (values: number[], window: number) =>
  padFront(SMA.calculate({ period: window, values }), values.length);

const libraryEma = (values: number[], window: number) =>
  padFront(EMA.calculate({ period: window, values }), values.length);

function libraryRsi(values: number[], window: number): { exact: IndicatorSeries; rounded: IndicatorSeries } {
  const gains = padFront(AverageGain.calculate({ period: window, values }), values.length);
  const losses = padFront(AverageLoss.calculate({ period: window, values }), values.length);
  const exact = gains.map((g, i) => {
    const l = losses[i];
    if (g === undefined || l === undefined) return undefined;
    return l === 0 ? 100 : (100 * g) / (g + l);
  });
  return { exact, rounded: padFront(RSI.calculate({ period: window, values }), values.length) };
}

function libraryMacd(values: number[], short: number, long: number, signal: number): (MacdPoint | undefined)[] {
  const bars = MACD.calculate({
    values,
    fastPeriod: short,
    slowPeriod: long,
    signalPeriod: signal,
    SimpleMAOscillator: false,
    SimpleMASignal: false,
  });
  const complete = bars.map((bar) =>
    bar.MACD === undefined || bar.histogram === undefined
      ? undefined
      : { value: bar.MACD, signal: bar.signal ?? bar.MACD - bar.histogram, histogram: bar.histogram },
  );
  return padFront(complete, values.length);
}

function expectMacdMatches(values: number[], short: number, long: number, signal: number): void {
  const actual = macd(values, short, long, signal);
  const expected = libraryMacd(values, short, long, signal);
  const field = (points: (MacdPoint | undefined)[], key: keyof MacdPoint) => points.map((p) => p?.[key]);
  for (const key of ['value', 'signal', 'histogram'] as const) {
    expect(firstMismatch(field(actual, key), field(expected, key)), `${key} ${short}/${long}/${signal}`).toBe(
      undefined,
    );
  }
}

const LENGTHS = [1, 2, 3, 4, 5, 9, 10, 14, 15, 25, 26, 33, 34, 35, 50, 51, 99, 100, 252, 500];
const WINDOWS = Array.from({ length: 50 }, (_, i) => i + 1);

describe('against technicalindicators on random walks (lengths 1..500, windows 1..50)', () => {
  it('sma', () => {
    for (const length of LENGTHS) {
      const values = randomWalk(length, length);
      for (const w of WINDOWS) {
        expect(firstMismatch(sma(values, w), librarySma(values, w)), `length ${length} window ${w}`).toBe(undefined);
      }
    }
  });

  it('ema', () => {
    for (const length of LENGTHS) {
      const values = randomWalk(length, 1000 + length);
      for (const w of WINDOWS) {
        expect(firstMismatch(ema(values, w), libraryEma(values, w)), `length ${length} window ${w}`).toBe(undefined);
      }
    }
  });

  it('rsi: exact from the Wilder averages, and within the rounding of the rounded RSI', () => {
    for (const length of LENGTHS) {
      const values = randomWalk(length, 2000 + length);
      for (const w of WINDOWS) {
        const { exact, rounded } = libraryRsi(values, w);
        const actual = rsi(values, w);
        expect(firstMismatch(actual, exact), `length ${length} window ${w}`).toBe(undefined);
        const off = actual.findIndex((a, i) => a !== undefined && Math.abs(a - rounded[i]!) > 0.005 + TOLERANCE);
        expect(off, `rounded, length ${length} window ${w}`).toBe(-1);
      }
    }
  });

  it('macd: 12/26/9, 1/2/1 and random windows', () => {
    const random = mulberry32(42);
    const pick = (max: number) => 1 + Math.floor(random() * max);
    for (const length of LENGTHS) {
      const values = randomWalk(length, 3000 + length);
      expectMacdMatches(values, 12, 26, 9);
      expectMacdMatches(values, 1, 2, 1);
      for (let k = 0; k < 20; k++) {
        const long = 1 + pick(49);
        expectMacdMatches(values, pick(long - 1), long, pick(50));
      }
    }
  });

  it('other price scales: a penny stock and a four-digit one', () => {
    for (const start of [0.05, 4000]) {
      const values = randomWalk(300, 7, start);
      expect(firstMismatch(sma(values, 20), librarySma(values, 20))).toBe(undefined);
      expect(firstMismatch(ema(values, 20), libraryEma(values, 20))).toBe(undefined);
      expect(firstMismatch(rsi(values, 14), libraryRsi(values, 14).exact)).toBe(undefined);
      expectMacdMatches(values, 12, 26, 9);
    }
  });
});

describe('edge cases', () => {
  const values = randomWalk(30, 99);

  it('window = length: one SMA and one EMA value, on the last bar; RSI needs one more value', () => {
    expect(firstMismatch(sma(values, 30), librarySma(values, 30))).toBe(undefined);
    expect(firstMismatch(ema(values, 30), libraryEma(values, 30))).toBe(undefined);
    expect(sma(values, 30).filter((v) => v !== undefined)).toHaveLength(1);
    expect(rsi(values, 30)).toEqual(new Array(30).fill(undefined));
    expect(firstMismatch(rsi(values, 30), libraryRsi(values, 30).exact)).toBe(undefined);
    expect(firstMismatch(rsi(values, 29), libraryRsi(values, 29).exact)).toBe(undefined);
  });

  it('window > length: every output undefined, as the package returns nothing', () => {
    for (const series of [sma(values, 31), ema(values, 31), rsi(values, 31), macd(values, 5, 31, 3)]) {
      expect(series).toEqual(new Array(30).fill(undefined));
    }
    expect(macd(values, 12, 26, 9)).toEqual(new Array(30).fill(undefined));
    expect(libraryMacd(values, 12, 26, 9)).toEqual(new Array(30).fill(undefined));
  });

  it('an empty series gives an empty array', () => {
    expect([sma([], 3), ema([], 3), rsi([], 3), macd([], 1, 2, 1)]).toEqual([[], [], [], []]);
  });

  it('a constant series: averages equal the price, MACD is 0, RSI is 100 (no loss), as the package says', () => {
    const flat = new Array<number>(60).fill(100);
    expect(firstMismatch(sma(flat, 10), librarySma(flat, 10))).toBe(undefined);
    expect(firstMismatch(ema(flat, 10), libraryEma(flat, 10))).toBe(undefined);
    expect(firstMismatch(rsi(flat, 14), libraryRsi(flat, 14).exact)).toBe(undefined);
    expect(firstMismatch(rsi(flat, 14), libraryRsi(flat, 14).rounded)).toBe(undefined);
    expect(rsi(flat, 14)[14]).toBe(100);
    expectMacdMatches(flat, 12, 26, 9);
    expect(macd(flat, 12, 26, 9)[59]).toEqual({ value: 0, signal: 0, histogram: 0 });
  });

  it('a monotonic series: RSI 100 rising and 0 falling; MACD positive rising', () => {
    const rising = Array.from({ length: 80 }, (_, i) => 10 + i * 0.5);
    const falling = [...rising].reverse();
    for (const series of [rising, falling]) {
      expect(firstMismatch(rsi(series, 14), libraryRsi(series, 14).rounded)).toBe(undefined);
      expect(firstMismatch(sma(series, 7), librarySma(series, 7))).toBe(undefined);
      expect(firstMismatch(ema(series, 7), libraryEma(series, 7))).toBe(undefined);
      expectMacdMatches(series, 12, 26, 9);
    }
    expect(rsi(rising, 14).slice(14)).toEqual(new Array(66).fill(100));
    expect(rsi(falling, 14).slice(14)).toEqual(new Array(66).fill(0));
    expect(macd(rising, 12, 26, 9)[79]!.value).toBeGreaterThan(0);
  });

  // A plain running sum carries the rounding of a $1,000,000 era into a later $0.01 one, by far
  // more than 1e-12; the SMA must not.
  it('a long series keeps the SMA exact after a collapse in scale: brute-force means', () => {
    const long = [...randomWalk(50_000, 5, 1_000_000), ...randomWalk(50_000, 6, 0.01)];
    const out = sma(long, 50);
    for (const i of [49, 12_345, 50_049, 50_100, 75_000, 99_999]) {
      let sum = 0;
      for (let j = i - 49; j <= i; j++) sum += long[j]!;
      expect(close(out[i]!, sum / 50, 1e-12), `index ${i}`).toBe(true);
    }
  });
});

describe('validation', () => {
  it('windows must be integers ≥ 1', () => {
    for (const w of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      for (const f of [sma, ema, rsi]) expect(() => f([1, 2, 3], w)).toThrow(RangeError);
      expect(() => macd([1, 2, 3], 1, 2, w)).toThrow(RangeError);
      expect(() => warmUp('ema', { window: w })).toThrow(RangeError);
    }
    expect(() => sma([1], 0)).toThrow('window must be an integer ≥ 1, received 0');
  });

  it('MACD short window must be less than long window', () => {
    expect(() => macd([1, 2, 3], 26, 26, 9)).toThrow(
      'short window must be less than long window, received short 26 and long 26',
    );
    expect(() => macd([1, 2, 3], 26, 12, 9)).toThrow(RangeError);
    expect(() => warmUp('macd', { shortWindow: 26, longWindow: 12, signalWindow: 9 })).toThrow(RangeError);
  });

  it('values must be finite', () => {
    expect(() => rsi([1, Number.NaN, 3], 1)).toThrow('values[1] must be a finite number, received NaN');
    expect(() => ema([1, 2, Number.POSITIVE_INFINITY], 1)).toThrow(RangeError);
  });
});

describe('warmUp', () => {
  const outputAt = (kind: 'sma' | 'ema' | 'rsi' | 'macd', values: number[], window: number) =>
    kind === 'macd' ? macd(values, 12, window, 9).at(-1) : { sma, ema, rsi }[kind](values, window).at(-1);

  it('defined: with that many earlier values the bar is defined, with one fewer it is not', () => {
    expect(warmUp('sma', { window: 50 }).defined).toBe(49);
    expect(warmUp('ema', { window: 50 }).defined).toBe(49);
    expect(warmUp('rsi', { window: 14 }).defined).toBe(14);
    // The first complete 12/26/9 MACD bar is the 34th value.
    expect(warmUp('macd', { shortWindow: 12, longWindow: 26, signalWindow: 9 }).defined).toBe(33);
    for (const kind of ['sma', 'ema', 'rsi', 'macd'] as const) {
      for (const window of [13, 20, 50]) {
        const { defined } =
          kind === 'macd'
            ? warmUp('macd', { shortWindow: 12, longWindow: window, signalWindow: 9 })
            : warmUp(kind, { window });
        const values = randomWalk(defined + 1, window);
        expect(outputAt(kind, values, window), `${kind} ${window}`).not.toBe(undefined);
        expect(outputAt(kind, values.slice(1), window), `${kind} ${window}`).toBe(undefined);
      }
    }
  });

  it('an SMA has no seed: stable = defined', () => {
    expect(warmUp('sma', { window: 200 })).toEqual({ defined: 199, stable: 199 });
  });

  // The reference is the same bar computed from 4,000 bars earlier: the seed's weight there is
  // below 1e-50, far under SEED_WEIGHT.
  it('stable: the first requested bar is within the seed weight of its long-history value', () => {
    for (let seed = 1; seed <= 5; seed++) {
      for (const window of [2, 14, 50, 200]) {
        const { stable } = warmUp('ema', { window });
        const values = randomWalk(4_000 + stable + 1, seed);
        const t = values.length - 1;
        const range = Math.max(...values) - Math.min(...values);
        const truncated = ema(values.slice(t - stable), window).at(-1)!;
        expect(Math.abs(truncated - ema(values, window)[t]!), `ema ${window}`).toBeLessThanOrEqual(SEED_WEIGHT * range);

        const r = warmUp('rsi', { window }).stable;
        expect(Math.abs(rsi(values.slice(t - r), window).at(-1)! - rsi(values, window)[t]!)).toBeLessThan(1e-6);
      }
      const { stable } = warmUp('macd', { shortWindow: 12, longWindow: 26, signalWindow: 9 });
      const values = randomWalk(4_000 + stable + 1, seed);
      const t = values.length - 1;
      const range = Math.max(...values) - Math.min(...values);
      const truncated = macd(values.slice(t - stable), 12, 26, 9).at(-1)!;
      const full = macd(values, 12, 26, 9)[t]!;
      expect(Math.abs(truncated.value - full.value)).toBeLessThanOrEqual(2 * SEED_WEIGHT * range);
      expect(Math.abs(truncated.signal - full.signal)).toBeLessThanOrEqual(25 * SEED_WEIGHT * range);
    }
  });

  it('stable matters: feeding only `defined` values leaves a visible seed error', () => {
    const values = randomWalk(2_000, 11);
    const t = values.length - 1;
    const { defined } = warmUp('rsi', { window: 14 });
    expect(Math.abs(rsi(values.slice(t - defined), 14).at(-1)! - rsi(values, 14)[t]!)).toBeGreaterThan(1e-3);
  });
});
