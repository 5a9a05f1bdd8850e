// The oracle of the indicator tests: the technicalindicators package over the bars the aggregates
// route answers (test/rest/indicator.test.ts, test/graphql/indicator.test.ts).
import { AverageGain, AverageLoss, EMA, MACD, SMA } from 'technicalindicators';
import { expect } from 'vitest';

export const TOLERANCE = 1e-9;

export interface AggBar {
  t: number;
  o: number;
  h: number;
  l: number;
  c: number;
}
export interface Value {
  timestamp: number;
  value: number;
  signal?: number;
  histogram?: number;
}
export type Kind = 'sma' | 'ema' | 'macd' | 'rsi';
export type Series = 'open' | 'high' | 'low' | 'close';
type Point = { value: number; signal?: number; histogram?: number } | undefined;

const pad = <T>(defined: T[], length: number): (T | undefined)[] => [
  ...new Array<undefined>(length - defined.length).fill(undefined),
  ...defined,
];

/** The package's indicator over `prices`, one entry per price. */
export function library(kind: Kind, prices: number[], params: Record<string, number>): Point[] {
  const n = prices.length;
  const lift = (xs: (number | undefined)[]): Point[] => xs.map((v) => (v === undefined ? undefined : { value: v }));
  switch (kind) {
    case 'sma':
      return lift(pad(SMA.calculate({ period: params.window!, values: prices }), n));
    case 'ema':
      return lift(pad(EMA.calculate({ period: params.window!, values: prices }), n));
    case 'rsi': {
      const gains = pad(AverageGain.calculate({ period: params.window!, values: prices }), n);
      const losses = pad(AverageLoss.calculate({ period: params.window!, values: prices }), n);
      return lift(
        gains.map((g, i) => {
          const l = losses[i];
          if (g === undefined || l === undefined) return undefined;
          return l === 0 ? 100 : (100 * g) / (g + l);
        }),
      );
    }
    case 'macd': {
      const bars = MACD.calculate({
        values: prices,
        fastPeriod: params.short_window!,
        slowPeriod: params.long_window!,
        signalPeriod: params.signal_window!,
        SimpleMAOscillator: false,
        SimpleMASignal: false,
      });
      return pad(
        bars.map((b) =>
          b.MACD === undefined || b.histogram === undefined
            ? undefined
            : { value: b.MACD, signal: b.signal ?? b.MACD - b.histogram, histogram: b.histogram },
        ),
        n,
      );
    }
  }
}

export const priceOf = (series: Series) => (b: AggBar) => ({ open: b.o, high: b.h, low: b.l, close: b.c })[series];

export const near = (a: number, b: number, tolerance = TOLERANCE) =>
  Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(b));

/** Each value equals the package's over `bars` (ascending) at its bar, to `tolerance` per field. */
export function expectValuesMatch(
  values: Value[],
  bars: AggBar[],
  kind: Kind,
  params: Record<string, number>,
  series: Series,
  tolerance: (field: 'value' | 'signal' | 'histogram') => (a: number, b: number) => boolean = () => near,
) {
  const expected = library(kind, bars.map(priceOf(series)), params);
  const index = new Map(bars.map((b, i) => [b.t, i]));
  for (const v of values) {
    const i = index.get(v.timestamp);
    expect(i, `a bar starts at ${v.timestamp}`).toBeDefined();
    const want = expected[i!];
    expect(want, `${kind} is defined at ${new Date(v.timestamp).toISOString()}`).toBeDefined();
    for (const field of kind === 'macd' ? (['value', 'signal', 'histogram'] as const) : (['value'] as const)) {
      const ok = tolerance(field)(v[field]!, want![field]!);
      expect(ok, `${kind} ${field} at ${new Date(v.timestamp).toISOString()}: ${v[field]} vs ${want![field]}`).toBe(
        true,
      );
    }
  }
}
