// Technical indicators as fields of a page of bars (BarConnection, schema/bar.ts): SMA, EMA, MACD and
// RSI over the page's bars, each value computed from the bars before it too (the warm-up, read on the
// page's grid), as GET /stocks/v1/indicators/... computes them (services/indicator.ts).
import { builder } from '../builder.js';
import type { WorkExtension } from '../graphql/cost.js';
import { warmUp } from '../domain/indicators.js';
import { indicatorOfPage } from '../services/indicator-page.js';
import { MAX_WINDOW, type IndicatorSpec, type IndicatorValue, type SeriesType } from '../services/indicator.js';
import type { Context } from '../context.js';
import { BarConnection } from './bar.js';

const SeriesTypeEnum = builder.enumType('IndicatorSeriesType', {
  description: 'Which price of each bar an indicator is computed over.',
  values: {
    OPEN: { value: 'open' },
    HIGH: { value: 'high' },
    LOW: { value: 'low' },
    CLOSE: { value: 'close' },
  } as const,
});

const IndicatorValueRef = builder.objectRef<IndicatorValue>('IndicatorValue').implement({
  description: "An indicator's value at one bar.",
  fields: (t) => ({
    start: t.field({ type: 'DateTime', description: 'Start of the bar.', resolve: (v) => new Date(v.t) }),
    value: t.exposeFloat('value', { description: "The indicator's value at the bar." }),
  }),
});

const MacdValueRef = builder.objectRef<IndicatorValue>('MacdValue').implement({
  description: 'MACD at one bar: the MACD line, its signal line and their difference.',
  fields: (t) => ({
    start: t.field({ type: 'DateTime', description: 'Start of the bar.', resolve: (v) => new Date(v.t) }),
    value: t.exposeFloat('value', { description: 'The short EMA less the long EMA.' }),
    signal: t.float({ description: 'The EMA of the MACD line.', resolve: (v) => v.signal! }),
    histogram: t.float({ description: 'The MACD line less the signal line.', resolve: (v) => v.histogram! }),
  }),
});

/**
 * The warm-up a field may read before the page, charged once (graphql/cost.ts WorkExtension.once):
 * the longest stable warm-up of any indicator at the longest window, in bars.
 */
const WARM_UP_UNITS = Math.max(
  ...(['sma', 'ema', 'rsi'] as const).map((kind) => warmUp(kind, { window: MAX_WINDOW }).stable),
  warmUp('macd', { shortWindow: MAX_WINDOW - 1, longWindow: MAX_WINDOW, signalWindow: MAX_WINDOW }).stable,
);

/** A list of values, one per node of the page at most, after a warm-up read charged once. */
const VALUES_EXTENSIONS = {
  listSize: { perNode: true },
  work: { units: WARM_UP_UNITS, once: true } satisfies WorkExtension,
};

type Page = { nodes: Parameters<typeof indicatorOfPage>[2]; source?: Parameters<typeof indicatorOfPage>[1] };

/** The page's values (its nodes are oldest first, however it was paged). */
async function pageValues(page: Page, spec: IndicatorSpec, seriesType: string, ctx: Context) {
  if (!page.source || page.nodes.length === 0) return [];
  return indicatorOfPage(ctx.db, page.source, page.nodes, spec, seriesType as SeriesType);
}

builder.objectFields(BarConnection, (t) => {
  const seriesType = t.arg({
    type: SeriesTypeEnum,
    defaultValue: 'close',
    required: true,
    description: 'Which price of each bar; default CLOSE.',
  });
  const windowed = (kind: 'sma' | 'ema' | 'rsi', description: string) =>
    t.field({
      type: [IndicatorValueRef],
      authScopes: { entitled: 'indicators' },
      description: `${description} One value for each bar of the page with \`window\` bars of history (the bars before the page count too), in the page's order.`,
      extensions: VALUES_EXTENSIONS,
      args: {
        window: t.arg.int({ required: true, description: `Bars in the window, 1 to ${MAX_WINDOW}.` }),
        seriesType,
      },
      resolve: (page, args, ctx) => pageValues(page, { kind, window: args.window }, args.seriesType, ctx),
    });
  return {
    sma: windowed('sma', 'Simple moving average.'),
    ema: windowed('ema', 'Exponential moving average (α = 2 / (window + 1)).'),
    rsi: windowed('rsi', "Relative strength index (Wilder's smoothing)."),
    macd: t.field({
      type: [MacdValueRef],
      authScopes: { entitled: 'indicators' },
      description:
        "Moving average convergence/divergence, in the page's order: one value for each bar with enough history (the bars before the page count too).",
      extensions: VALUES_EXTENSIONS,
      args: {
        shortWindow: t.arg.int({
          required: true,
          defaultValue: 12,
          description: 'The short EMA, in bars; default 12.',
        }),
        longWindow: t.arg.int({ required: true, defaultValue: 26, description: 'The long EMA, in bars; default 26.' }),
        signalWindow: t.arg.int({
          required: true,
          defaultValue: 9,
          description: 'The signal line, an EMA of the MACD line, in bars; default 9.',
        }),
        seriesType,
      },
      resolve: (page, args, ctx) =>
        pageValues(
          page,
          {
            kind: 'macd',
            shortWindow: args.shortWindow,
            longWindow: args.longWindow,
            signalWindow: args.signalWindow,
          },
          args.seriesType,
          ctx,
        ),
    }),
  };
});
