// The movers panel: the largest securities by their last daily change. Fed today from their last
// two daily closes (operations/web-movers.graphql); when Query.movers exists, only moversOf changes.
import { useEffect, useState } from 'preact/hooks';
import webMovers from '../operations/web-movers.graphql';
import type { WebMoversQuery } from '../generated/graphql/graphql';
import { errorAt, query, type Result } from './api';
import { changePercent, exchangeDay, price, shiftDay } from './format';
import { Panel } from './panel';

interface Mover {
  symbol: string;
  name: string;
  close: number;
  before: number;
}

const changeOf = (m: Mover) => (m.close - m.before) / m.before;

/** Each security with two closes, by the size of its change, largest first. */
function moversOf(data: WebMoversQuery | null): Mover[] {
  return (data?.securities?.nodes ?? [])
    .flatMap((s) => {
      const [before, last] = (s.daily?.nodes ?? []).slice(-2);
      return before && last ? [{ symbol: s.symbol, name: s.name, close: last.close, before: before.close }] : [];
    })
    .sort((a, b) => Math.abs(changeOf(b)) - Math.abs(changeOf(a)));
}

export function MoversPanel({ apiKey, onOpen }: { apiKey: string; onOpen: (symbol: string) => void }) {
  const [result, setResult] = useState<Result<WebMoversQuery> | undefined>();
  useEffect(() => {
    const aborted = new AbortController();
    const today = exchangeDay(Date.now());
    query<WebMoversQuery>(webMovers, { from: shiftDay(today, { days: -30 }), to: today }, apiKey, aborted.signal).then(
      setResult,
      () => {},
    );
    return () => aborted.abort();
  }, [apiKey]);
  const movers = moversOf(result?.data ?? null);
  return (
    <Panel
      title="Movers"
      className="movers"
      loading={!result}
      error={result && !result.data ? errorAt(result.errors, 'securities') : undefined}
    >
      <ul>
        {movers.map((m) => (
          <li key={m.symbol}>
            <button type="button" onClick={() => onOpen(m.symbol)} title={m.name}>
              <b>{m.symbol}</b> <span class="num">{price(m.close)}</span>{' '}
              <span class={`change ${m.close < m.before ? 'down' : 'up'}`}>{changePercent(m.close, m.before)}</span>
            </button>
          </li>
        ))}
      </ul>
    </Panel>
  );
}
