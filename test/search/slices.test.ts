// The search engine's work over the whole master goes through its pause (search/order.ts): a pause
// that throws stops it there (a request's deadline), one that yields lets the event loop turn, and
// neither changes an answer. Pure code over a synthetic master: no database.
import { describe, expect, it } from 'vitest';
import { type MasterRow, SearchEngine } from '../../src/search/engine.js';
import { SECURITY_SEARCH_FIELDS } from '../../src/search/fields.js';
import { sortedBy } from '../../src/search/order.js';
import { parseFacetBy, parseFilterBy, parseSortBy } from '../../src/search/syntax.js';

const SIZE = 3_000;
const MICS = ['XNAS', 'XNYS', 'ARCX', 'BATS'];
const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'omega'];

const rows: MasterRow[] = Array.from({ length: SIZE }, (_, i) => ({
  id: `id${String(i).padStart(5, '0')}`,
  symbol: `S${(i * 7919) % SIZE}`,
  name: `${WORDS[i % WORDS.length]} ${WORDS[(i >> 3) % WORDS.length]} Holdings ${i}`,
  micCode: MICS[i % MICS.length],
  active: i % 3 !== 0,
  marketCap: (i * 104729) % 1_000_003,
}));
const AT = { version: 1n, metricsVersion: 1n, epoch: 1n };
const FACETS = parseFacetBy('exchange_info.mic_code,ticker_meta.active,financials.market_cap', SECURITY_SEARCH_FIELDS);

/** A whole-master search: text, a filter, a sort and a deep page, then facets. */
async function heavySearch(engine: SearchEngine, pause?: () => Promise<void> | undefined) {
  const text = engine.match('holdngs', ['symbol', 'name']); // a typo: every name
  const hits = await engine.search(
    {
      text,
      filter: parseFilterBy('financials.market_cap:>1000', SECURITY_SEARCH_FIELDS),
      sort: parseSortBy('financials.market_cap:desc', SECURITY_SEARCH_FIELDS),
    },
    2_500,
    pause,
  );
  return { ids: hits.ids, found: hits.found, facets: await hits.facetsOf(FACETS, pause) };
}

class Stop extends Error {}

describe('the search engine in slices', () => {
  it('answers the same whether it pauses or not, and lets the event loop turn at its pauses', async () => {
    const whole = await SearchEngine.build(['symbol'], rows, [], AT);
    let turns = 0;
    const yielding = () => new Promise<void>((resolve) => setImmediate(resolve));
    let calls = 0;
    const sliced = await SearchEngine.build(['symbol'], rows, [], AT, () =>
      ++calls % 500 === 0 ? yielding() : undefined,
    );
    expect(calls).toBeGreaterThanOrEqual(SIZE);
    const expected = await heavySearch(whole);
    expect(expected.found).toBeGreaterThan(SIZE / 2);
    // another task runs while the search is under way: it waited a slice, not the whole search
    let done = false;
    const other = new Promise<boolean>((resolve) => setImmediate(() => resolve(done)));
    const answer = heavySearch(sliced, () => (++turns % 2 === 0 ? yielding() : undefined)).then((r) => {
      done = true;
      return r;
    });
    expect(await other).toBe(false);
    expect(await answer).toEqual(expected);
    // between chunks of CHUNK securities: the text's candidates, the filter, the sort's merges, each facet
    expect(turns).toBeGreaterThan(10);
    expect(await (await sliced.search({}, 5)).ids).toEqual((await whole.search({}, 5)).ids);
  });

  it('stops where its pause throws: the scan, the sort, the facets', async () => {
    const engine = await SearchEngine.build(['symbol'], rows, [], AT);
    const stopAfter = (n: number) => {
      let calls = 0;
      return () => {
        if (++calls > n) throw new Stop(`stopped after ${n}`);
        return undefined;
      };
    };
    // the filter's scan
    await expect(
      engine.search({ filter: parseFilterBy('ticker_meta.active:true', SECURITY_SEARCH_FIELDS) }, 10, stopAfter(1)),
    ).rejects.toBeInstanceOf(Stop);
    // a deep page: the sort, past the scan
    await expect(
      engine.search({ sort: parseSortBy('financials.market_cap:asc', SECURITY_SEARCH_FIELDS) }, 2_000, stopAfter(5)),
    ).rejects.toBeInstanceOf(Stop);
    // facets of a search that finished
    const hits = await engine.search({}, 10);
    await expect(hits.facetsOf(FACETS, stopAfter(4))).rejects.toBeInstanceOf(Stop);
    // text scoring
    await expect(engine.search({ text: engine.match('holdngs', ['name']) }, 10, stopAfter(1))).rejects.toBeInstanceOf(
      Stop,
    );
  });

  it('sorts as Array.prototype.sort does, pausing as it goes', async () => {
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (const n of [0, 1, 2, 3, 17, 1000, 5000]) {
      const items = Array.from({ length: n }, () => Math.floor(random() * 50));
      const compare = (a: number, b: number) => a - b;
      let pauses = 0;
      const sorted = await sortedBy(items, compare, () => void pauses++);
      expect(sorted).toEqual([...items].sort(compare));
      if (n > 0) expect(pauses).toBeGreaterThan(0);
    }
  });
});
