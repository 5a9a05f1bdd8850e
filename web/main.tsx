// The page at /app: an API key, a search box, and the company page of the symbol chosen (in the
// URL as ?symbol=, so a reload or a link opens it again). docs/frontend.md#the-page-at-app.
import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { storedKey, storeKey } from './api';
import { CompanyPage } from './company';
import { KeyField } from './key-field';
import { MoversPanel } from './movers';
import { SearchBox } from './search';

const symbolOfUrl = () => new URLSearchParams(location.search).get('symbol')?.toUpperCase() ?? '';

function App() {
  const [key, setKey] = useState(storedKey);
  const [symbol, setSymbol] = useState(symbolOfUrl);
  useEffect(() => {
    const back = () => setSymbol(symbolOfUrl());
    addEventListener('popstate', back);
    return () => removeEventListener('popstate', back);
  }, []);
  const open = (next: string) => {
    history.pushState(null, '', `?symbol=${encodeURIComponent(next)}`);
    setSymbol(next);
  };
  const changeKey = (next: string) => {
    storeKey(next);
    setKey(next);
  };
  return (
    <>
      <header class="top">
        <a class="brand" href="/app">
          Market data
        </a>
        <SearchBox apiKey={key} onOpen={open} />
        <KeyField apiKey={key} onChange={changeKey} />
      </header>
      <main class="layout">
        <div class="content">
          {symbol ? (
            <CompanyPage key={`${symbol}|${key}`} symbol={symbol} apiKey={key} />
          ) : (
            <p class="hint">Search a company by name or symbol (typos are fine), then press Enter.</p>
          )}
        </div>
        <aside class="side">
          <MoversPanel apiKey={key} onOpen={open} />
        </aside>
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
