// The price chart: closes of Security.bars over a range (operations/web-bars.graphql), drawn on a
// canvas by uPlot, with the adjustment the two switches choose (splits, cash dividends).
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import webBars from '../operations/web-bars.graphql';
import type { PriceAdjustment, Timespan, WebBarsQuery } from '../generated/graphql/graphql';
import { errorAt, query, type Result } from './api';
import { shiftDay } from './format';
import { Panel } from './panel';

interface Range {
  label: string;
  timespan: Timespan;
  multiplier: number;
  /** Where the range starts, from the last session's day. */
  back: Parameters<typeof shiftDay>[1];
}

/** Bars small enough to show a range's shape in a few hundred points at most. */
const RANGES: Range[] = [
  { label: '1D', timespan: 'MINUTE', multiplier: 5, back: {} },
  { label: '5D', timespan: 'MINUTE', multiplier: 30, back: { days: -6 } },
  { label: '1M', timespan: 'DAY', multiplier: 1, back: { months: -1 } },
  { label: '1Y', timespan: 'DAY', multiplier: 1, back: { years: -1 } },
  { label: '5Y', timespan: 'WEEK', multiplier: 1, back: { years: -5 } },
];

function adjustmentOf(splits: boolean, dividends: boolean): PriceAdjustment {
  if (splits && dividends) return 'ALL';
  return splits ? 'SPLIT' : dividends ? 'DIVIDEND' : 'RAW';
}

export function PriceChart({ symbol, apiKey, lastSession }: { symbol: string; apiKey: string; lastSession: string }) {
  const [range, setRange] = useState(RANGES[2]!);
  const [splits, setSplits] = useState(true);
  const [dividends, setDividends] = useState(false);
  const [result, setResult] = useState<Result<WebBarsQuery> | undefined>();
  useEffect(() => {
    const aborted = new AbortController();
    setResult(undefined);
    const variables = {
      symbol,
      from: shiftDay(lastSession, range.back),
      to: lastSession,
      timespan: range.timespan,
      multiplier: range.multiplier,
      adjustment: [adjustmentOf(splits, dividends)],
    };
    query<WebBarsQuery>(webBars, variables, apiKey, aborted.signal).then(setResult, () => {});
    return () => aborted.abort();
  }, [symbol, apiKey, lastSession, range, splits, dividends]);
  const bars = result?.data?.security?.bars?.nodes;
  return (
    <Panel
      title="Price"
      className="chart"
      loading={!result}
      error={result && !bars ? errorAt(result.errors, 'security', 'bars') : undefined}
      toolbar={
        <div class="chart-controls">
          <fieldset class="ranges">
            <legend class="visually-hidden">Range</legend>
            {RANGES.map((r) => (
              <button key={r.label} type="button" aria-pressed={r === range} onClick={() => setRange(r)}>
                {r.label}
              </button>
            ))}
          </fieldset>
          <fieldset class="adjustment">
            <legend>Adjust for</legend>
            <label>
              <input type="checkbox" checked={splits} onChange={(e) => setSplits(e.currentTarget.checked)} /> splits
            </label>
            <label>
              <input type="checkbox" checked={dividends} onChange={(e) => setDividends(e.currentTarget.checked)} />{' '}
              dividends
            </label>
          </fieldset>
        </div>
      }
    >
      {bars && (bars.length ? <Plot bars={bars} /> : <p>No bars in this range.</p>)}
    </Panel>
  );
}

type Bars = NonNullable<NonNullable<WebBarsQuery['security']>['bars']>['nodes'];

function Plot({ bars }: { bars: Bars }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current!;
    const xs = bars.map((b) => Date.parse(b.start) / 1000);
    const ys = bars.map((b) => b.close);
    const plot = new uPlot(
      {
        width: Math.max(el.clientWidth, 300),
        height: 300,
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        series: [{}, { label: 'Close', stroke: '#2563eb', width: 2, fill: 'rgba(37, 99, 235, 0.08)' }],
      },
      [xs, ys],
      el,
    );
    const resize = () => plot.setSize({ width: Math.max(el.clientWidth, 300), height: 300 });
    addEventListener('resize', resize);
    return () => (removeEventListener('resize', resize), plot.destroy());
  }, [bars]);
  return <div class="plot" ref={box} role="img" aria-label={`Closing prices, ${bars.length} bars`} />;
}
