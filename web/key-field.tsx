// The API key the page sends (kept in localStorage), and who it is signed in as. Emptied, the page
// sends no key and the login cookie counts, if the browser has one.
import { useEffect, useState } from 'preact/hooks';
import webMe from '../operations/web-me.graphql';
import type { WebMeQuery } from '../generated/graphql/graphql';
import { DEMO_KEY, query } from './api';

export function KeyField({ apiKey, onChange }: { apiKey: string; onChange: (key: string) => void }) {
  const [draft, setDraft] = useState(apiKey);
  const [who, setWho] = useState('');
  useEffect(() => {
    const aborted = new AbortController();
    query<WebMeQuery>(webMe, {}, apiKey, aborted.signal).then(
      ({ data, errors }) =>
        setWho(
          data?.me
            ? `${data.me.username} · ${data.me.tier} · by ${data.me.authenticatedBy}`
            : (errors[0]?.message ?? 'anonymous'),
        ),
      () => {},
    );
    return () => aborted.abort();
  }, [apiKey]);
  return (
    <form
      class="key"
      onSubmit={(e) => {
        e.preventDefault();
        onChange(draft.trim());
      }}
    >
      <label for="api-key">API key</label>
      <input
        id="api-key"
        type="password"
        autocomplete="off"
        spellcheck={false}
        value={draft}
        placeholder="none: the login cookie"
        onInput={(e) => setDraft(e.currentTarget.value)}
      />
      <button type="submit">Use</button>
      <button type="button" onClick={() => (setDraft(DEMO_KEY), onChange(DEMO_KEY))}>
        Demo
      </button>
      <output class="who" aria-live="polite">
        {who}
      </output>
    </form>
  );
}
