// The search box: the graph's typo-tolerant search (`securities(query:)`) as one types; Enter
// opens the highlighted match (the first by default), arrows move, each match is also a button.
import { useEffect, useState } from 'preact/hooks';
import webSearch from '../operations/web-search.graphql';
import type { WebSearchQuery } from '../generated/graphql/graphql';
import { query } from './api';

type Match = NonNullable<WebSearchQuery['securities']>['nodes'][number];

/** Room for any name; the graph refuses a query past 200 characters (src/search/text.ts). */
const MAX_QUERY = 100;

export function SearchBox({ apiKey, onOpen }: { apiKey: string; onOpen: (symbol: string) => void }) {
  const [text, setText] = useState('');
  const [matches, setMatches] = useState<Match[]>([]);
  const [active, setActive] = useState(0);
  const [message, setMessage] = useState('');
  useEffect(() => {
    const words = text.trim().slice(0, MAX_QUERY);
    if (!words) return setMatches([]);
    const aborted = new AbortController();
    // a request per pause in typing, not per key
    const timer = setTimeout(() => {
      query<WebSearchQuery>(webSearch, { query: words }, apiKey, aborted.signal).then(
        ({ data, errors }) => {
          setMatches(data?.securities?.nodes ?? []);
          setActive(0);
          setMessage(errors[0]?.message ?? (data?.securities?.nodes.length ? '' : 'No match.'));
        },
        () => {},
      );
    }, 150);
    return () => (clearTimeout(timer), aborted.abort());
  }, [text, apiKey]);
  const open = (m: Match | undefined) => {
    if (!m) return;
    onOpen(m.symbol);
    setText('');
    setMatches([]);
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown') setActive((i) => Math.min(i + 1, matches.length - 1));
    else if (e.key === 'ArrowUp') setActive((i) => Math.max(i - 1, 0));
    else if (e.key === 'Escape') setMatches([]);
    else return;
    e.preventDefault();
  };
  return (
    <form
      class="search"
      onSubmit={(e) => {
        e.preventDefault();
        open(matches[active]);
      }}
    >
      <label for="search">Search</label>
      <input
        id="search"
        type="search"
        autocomplete="off"
        spellcheck={false}
        maxLength={MAX_QUERY}
        placeholder="Company or symbol, e.g. novalux"
        value={text}
        aria-controls="search-results"
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={onKeyDown}
      />
      {matches.length > 0 && (
        <ul id="search-results" class="matches">
          {matches.map((m, i) => (
            <li key={m.symbol}>
              <button
                type="button"
                class={i === active ? 'active' : ''}
                aria-current={i === active ? 'true' : undefined}
                onClick={() => open(m)}
              >
                <b>{m.symbol}</b> {m.name} <small>{m.exchangeInfo.micCode}</small>
              </button>
            </li>
          ))}
        </ul>
      )}
      {message && text && <output class="search-message">{message}</output>}
    </form>
  );
}
