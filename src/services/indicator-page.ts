// Technical indicators over a page of bars already read (GraphQL's BarConnection.sma, .ema, .macd,
// .rsi): the page's bars, and the warm-up bars before them read on the page's own grid of
// buckets, so that each value is the one services/indicator.ts gives for that bar.
import type { Db } from '../db/client.js';
import type { Bar } from './bar.js';
import { basesPerBar } from './bar-bucket.js';
import {
  compute,
  indicatorPlan,
  warmUpBars,
  type IndicatorArgument,
  type IndicatorSpec,
  type IndicatorValue,
  type SeriesSource,
  type SeriesType,
  VALUES,
} from './indicator.js';

/**
 * The indicator's values for `bars` (a page, oldest first, read from `source`), one for each bar
 * with enough history before it, oldest first. Checks the windows as indicatorSeries does; the
 * warm-up read is bounded by the same plan.
 */
export async function indicatorOfPage(
  db: Db,
  source: SeriesSource,
  bars: readonly Bar[],
  spec: IndicatorSpec,
  seriesType: SeriesType,
  argumentName: (key: IndicatorArgument) => string = (k) => k,
): Promise<IndicatorValue[]> {
  const plan = indicatorPlan(
    {
      ...source,
      indicator: spec,
      seriesType,
      order: 'asc',
      limit: Math.min(VALUES.max, Math.max(1, bars.length)),
      asOf: 0,
    },
    argumentName,
  );
  if (bars.length === 0) return [];
  const work = { spent: 0, cap: 2 * plan.baseBars, largest: basesPerBar(source.timespan, source.multiplier) };
  const before = await warmUpBars(db, source, bars[0]!.t, plan.warmUp.stable, work);
  const outputs = compute(spec, [...before, ...bars], seriesType);
  return outputs.slice(before.length).filter((v) => v !== undefined);
}
