/**
 * Technical indicators over one price series (closes, opens...), in ascending time order: the
 * formulas behind the REST routes `/v1/indicators/{sma|ema|macd|rsi}/{stockTicker}`. No I/O; the
 * caller fetches the bars, picks the series, and maps outputs back to bars by index.
 *
 * Every function returns an array as long as its input, `undefined` where the indicator is not yet
 * defined (too few values before that bar), so output `i` belongs to input bar `i`.
 *
 * | indicator | definition | first defined index |
 * |---|---|---|
 * | `sma(w)` | mean of the last w values | w − 1 |
 * | `ema(w)` | seed = SMA of the first w values; then e += α·(v − e), α = 2/(w+1) | w − 1 |
 * | `macd(s, l, g)` | value = EMA(s) − EMA(l); signal = EMA(g) of the value line, seeded with the SMA of its first g values; histogram = value − signal | l + g − 2 |
 * | `rsi(w)` | Wilder: first average gain/loss = mean of the first w changes, then avg = (avg·(w−1) + x)/w; RSI = 100·G/(G+L), and 100 when L = 0 (a constant series included) | w |
 *
 * EMA, MACD and RSI are recursive: a value depends, with a weight that decays geometrically, on
 * where the series started (the seed). `warmUp` says how many earlier values to feed so the first
 * requested bar is defined, and how many so the seed's weight in it is at most `SEED_WEIGHT`.
 * test/domain/indicators.test.ts checks every formula against the technicalindicators package and
 * measures the warm-up rule against a long history.
 */

/** One indicator value per input bar; `undefined` before the indicator is defined. */
export type IndicatorSeries = (number | undefined)[];

/** A MACD bar, as the route's `values[]` carries it (without the timestamp). */
export interface MacdPoint {
  value: number;
  signal: number;
  histogram: number;
}

export type IndicatorKind = 'sma' | 'ema' | 'macd' | 'rsi';

export interface WindowParams {
  window: number;
}

export interface MacdParams {
  shortWindow: number;
  longWindow: number;
  signalWindow: number;
}

export interface IndicatorParams {
  sma: WindowParams;
  ema: WindowParams;
  rsi: WindowParams;
  macd: MacdParams;
}

export interface WarmUp {
  /** Values needed before the first requested bar so that its output is defined. */
  defined: number;
  /** Values to fetch before it so that the seed weighs at most SEED_WEIGHT in it (≥ `defined`). */
  stable: number;
}

/**
 * The largest weight the seed (the arbitrary start of the series) may keep in a value that
 * `warmUp(...).stable` calls stable: an EMA is then within SEED_WEIGHT × (max − min of the prices
 * fed) of its infinite-history value (test/domain/indicators.test.ts, "stable").
 */
export const SEED_WEIGHT = 1e-9;

function checkWindow(name: string, window: number): void {
  if (!Number.isSafeInteger(window) || window < 1) {
    throw new RangeError(`${name} must be an integer ≥ 1, received ${window}`);
  }
}

function checkMacdWindows(shortWindow: number, longWindow: number, signalWindow: number): void {
  checkWindow('short window', shortWindow);
  checkWindow('long window', longWindow);
  checkWindow('signal window', signalWindow);
  if (shortWindow >= longWindow) {
    throw new RangeError(
      `short window must be less than long window, received short ${shortWindow} and long ${longWindow}`,
    );
  }
}

// A NaN or Infinity would silently poison every later value of a recursive indicator.
function checkValues(values: readonly number[]): void {
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!Number.isFinite(v)) throw new RangeError(`values[${i}] must be a finite number, received ${v}`);
  }
}

// Intermediate lines live in Float64Arrays, where doubles are stored unboxed.
function undefinedSeries(length: number): IndicatorSeries {
  return new Array<number | undefined>(length).fill(undefined);
}

export function sma(values: readonly number[], window: number): IndicatorSeries {
  checkWindow('window', window);
  checkValues(values);
  const out = undefinedSeries(values.length);
  let sum = 0;
  for (let i = 0; i < values.length; i++) {
    // A running sum keeps the rounding of every earlier value (a $1,000,000 era spoils a later
    // $0.01 one); summing the window afresh every `window` bars bounds it, for twice the additions.
    if (i >= window - 1 && (i - window + 1) % window === 0) {
      sum = 0;
      for (let j = i - window + 1; j <= i; j++) sum += values[j]!;
    } else {
      sum += values[i]!;
      if (i >= window) sum -= values[i - window]!;
    }
    if (i >= window - 1) out[i] = sum / window;
  }
  return out;
}

/**
 * EMA of `src[from..]` written into `dst` from its seed index on; returns that index (≥ src.length
 * when the EMA is never defined). The shared core of `ema` and MACD's three lines.
 */
function emaInto(src: ArrayLike<number>, from: number, window: number, dst: Float64Array): number {
  const seedAt = from + window - 1;
  if (seedAt >= src.length) return seedAt;
  let e = 0;
  for (let j = from; j <= seedAt; j++) e += src[j]!;
  e /= window;
  dst[seedAt] = e;
  const alpha = 2 / (window + 1);
  for (let i = seedAt + 1; i < src.length; i++) {
    e += alpha * (src[i]! - e);
    dst[i] = e;
  }
  return seedAt;
}

export function ema(values: readonly number[], window: number): IndicatorSeries {
  checkWindow('window', window);
  checkValues(values);
  const line = new Float64Array(values.length);
  const first = emaInto(values, 0, window, line);
  const out = undefinedSeries(values.length);
  for (let i = first; i < values.length; i++) out[i] = line[i];
  return out;
}

/**
 * MACD with EMA lines (the conventional 12/26/9 is `macd(values, 12, 26, 9)`). A bar's entry is
 * `undefined` until all three of value, signal and histogram are defined, so every entry carries
 * the route's full shape.
 */
export function macd(
  values: readonly number[],
  shortWindow: number,
  longWindow: number,
  signalWindow: number,
): (MacdPoint | undefined)[] {
  checkMacdWindows(shortWindow, longWindow, signalWindow);
  checkValues(values);
  const n = values.length;
  const fast = new Float64Array(n);
  const line = new Float64Array(n);
  const signal = new Float64Array(n);
  emaInto(values, 0, shortWindow, fast);
  const start = emaInto(values, 0, longWindow, line);
  for (let i = start; i < n; i++) line[i] = fast[i]! - line[i]!;
  const first = emaInto(line, start, signalWindow, signal);
  const out: (MacdPoint | undefined)[] = [];
  for (let i = 0; i < n; i++) {
    if (i < first) {
      out.push(undefined);
    } else {
      const value = line[i]!;
      const s = signal[i]!;
      out.push({ value, signal: s, histogram: value - s });
    }
  }
  return out;
}

function rsiOf(avgGain: number, avgLoss: number): number {
  return avgLoss === 0 ? 100 : (100 * avgGain) / (avgGain + avgLoss);
}

export function rsi(values: readonly number[], window: number): IndicatorSeries {
  checkWindow('window', window);
  checkValues(values);
  const out = undefinedSeries(values.length);
  if (window >= values.length) return out;
  let gain = 0;
  let loss = 0;
  for (let i = 1; i <= window; i++) {
    const change = values[i]! - values[i - 1]!;
    if (change > 0) gain += change;
    else loss -= change;
  }
  gain /= window;
  loss /= window;
  out[window] = rsiOf(gain, loss);
  for (let i = window + 1; i < values.length; i++) {
    const change = values[i]! - values[i - 1]!;
    gain = (gain * (window - 1) + Math.max(change, 0)) / window;
    loss = (loss * (window - 1) + Math.max(-change, 0)) / window;
    out[i] = rsiOf(gain, loss);
  }
  return out;
}

/** Steps after which a seed smoothed with factor (1 − alpha) per step weighs at most SEED_WEIGHT. */
function decaySteps(alpha: number): number {
  if (alpha >= 1) return 0;
  return Math.ceil(Math.log(SEED_WEIGHT) / Math.log(1 - alpha));
}

/**
 * How many input values to feed before the first requested bar. `defined` is exact; `stable` adds,
 * after the first defined bar, the steps for the slowest recursion of the indicator (α = 2/(w+1)
 * for an EMA line, 1/w for Wilder's averages) to shrink the seed's weight below SEED_WEIGHT. An SMA
 * has no seed: both are w − 1.
 */
export function warmUp<K extends IndicatorKind>(kind: K, params: IndicatorParams[K]): WarmUp {
  if (kind === 'macd') {
    const { shortWindow, longWindow, signalWindow } = params as MacdParams;
    checkMacdWindows(shortWindow, longWindow, signalWindow);
    const defined = longWindow + signalWindow - 2;
    return { defined, stable: defined + decaySteps(2 / (Math.max(longWindow, signalWindow) + 1)) };
  }
  const { window } = params as WindowParams;
  checkWindow('window', window);
  switch (kind) {
    case 'sma':
      return { defined: window - 1, stable: window - 1 };
    case 'ema':
      return { defined: window - 1, stable: window - 1 + decaySteps(2 / (window + 1)) };
    case 'rsi':
      return { defined: window, stable: window + decaySteps(1 / window) };
    default:
      throw new RangeError(`indicator must be one of sma, ema, macd, rsi, received ${kind}`);
  }
}
