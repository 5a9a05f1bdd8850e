// The movers panel: the symbols up and down the most since the previous day's close, as the
// gateway ranks them (Query.movers, operations/web-movers.graphql). The pro tier's, as snapshots are.
import { useEffect, useState } from 'preact/hooks';
import webMovers from '../operations/web-movers.graphql';
import type { WebMoversQuery } from '../generated/graphql/graphql';
import { errorAt, query, type Result } from './api';
import { price, signed } from './format';
import { Panel } from './panel';

interface Mover {
  symbol: string;
  /** The last trade's price, or the day's close without one. */
  price: number | undefined;
  percent: number;
}

type Snapshot = NonNullable<WebMoversQuery['gainers']>[number];

/** One side of the movers, in the gateway's order; a snapshot without a change is not a mover. */
function moversOf(list: Snapshot[] | null | undefined): Mover[] {
  return (list ?? []).flatMap((s) =>
    s.todaysChangePerc == null
      ? []
      : [{ symbol: s.symbol, price: s.lastTrade?.price ?? s.day?.close, percent: s.todaysChangePerc }],
  );
}

function MoverList({ title, movers, onOpen }: { title: string; movers: Mover[]; onOpen: (s: string) => void }) {
  return (
    <>
      <h3>{title}</h3>
      {movers.length ? (
        <ul data-testid={title.toLowerCase()}>
          {movers.map((m) => (
            <li key={m.symbol}>
              <button type="button" onClick={() => onOpen(m.symbol)}>
                <b>{m.symbol}</b> {m.price !== undefined && <span class="num">{price(m.price)}</span>}{' '}
                <span class={`change ${m.percent < 0 ? 'down' : 'up'}`}>{signed(m.percent.toFixed(2))}%</span>
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p class="hint">None today.</p>
      )}
    </>
  );
}

export function MoversPanel({ apiKey, onOpen }: { apiKey: string; onOpen: (symbol: string) => void }) {
  const [result, setResult] = useState<Result<WebMoversQuery> | undefined>();
  useEffect(() => {
    const aborted = new AbortController();
    query<WebMoversQuery>(webMovers, {}, apiKey, aborted.signal).then(setResult, () => {});
    return () => aborted.abort();
  }, [apiKey]);
  const data = result?.data;
  return (
    <Panel
      title="Movers"
      className="movers"
      loading={!result}
      error={result && !data?.gainers ? errorAt(result.errors, 'gainers') : undefined}
    >
      <MoverList title="Gainers" movers={moversOf(data?.gainers)} onOpen={onOpen} />
      <MoverList title="Losers" movers={moversOf(data?.losers)} onOpen={onOpen} />
    </Panel>
  );
}
