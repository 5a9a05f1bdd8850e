// Writes into a built engine (SearchEngine.upsert, how services/security-index.ts keeps it current)
// answer as an engine built from the final rows would: the listing by symbol, which upsert now keeps
// by moving only the rows whose place changed instead of sorting the master again, and text matches.
// Oracles: a fresh build from the final rows, and a plain sort of them by symbol then id.
import { describe, expect, it } from 'vitest';
import { type MasterRow, SearchEngine } from '../../src/search/engine.js';

const SIZE = 2_000;
const row = (i: number, symbol: string, name = `Company ${i} Holdings`): MasterRow => ({
  id: `id${String(i).padStart(5, '0')}`,
  symbol,
  name,
});
const AT = { version: 1n, metricsVersion: 1n, epoch: 1n };
const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Every id in the engine's listing order (no text, no sort: by symbol, then id). */
async function listing(engine: SearchEngine): Promise<string[]> {
  return (await engine.search({}, engine.size)).ids;
}

describe('writes into a built engine', () => {
  it('keeps the listing by symbol and the text matches of a fresh build', async () => {
    const rows = new Map<string, MasterRow>();
    for (let i = 0; i < SIZE; i++) {
      const r = row(i, `S${(i * 7919) % SIZE}`);
      rows.set(r.id, r);
    }
    const engine = await SearchEngine.build(['symbol'], [...rows.values()], [], AT);
    const batches: MasterRow[][] = [
      // symbols moved to the front, the back and onto another row's symbol (then ordered by id)
      [row(5, 'AAA'), row(17, 'ZZZZ'), row(40, 'S1'), row(1_999, 'S1')],
      // a name changed, symbol kept: its place does not move
      [row(300, (rows.get('id00300') as MasterRow).symbol, 'Quetzal Widgets')],
      // one word of three changed; then a trailing space, no word changed
      [row(301, (rows.get('id00301') as MasterRow).symbol, 'Company 301 Industries')],
      [row(301, (rows.get('id00301') as MasterRow).symbol, 'Company 301 Industries ')],
      // new securities, one of them before everything
      [row(SIZE, 'A'), row(SIZE + 1, 'S1'), row(SIZE + 2, 'MIDDLE')],
      // a symbol changed twice in one batch, and back to where it was
      [row(7, 'QQQ'), row(7, 'QQQQ'), row(8, (rows.get('id00008') as MasterRow).symbol)],
    ];
    let version = 1n;
    for (const batch of batches) {
      await engine.upsert(batch, ++version);
      for (const r of batch) rows.set(r.id, r);
    }
    const final = [...rows.values()];
    const fresh = await SearchEngine.build(['symbol'], final, [], { ...AT, version });
    const sorted = final
      .slice()
      .sort((a, b) => byCodePoint(a.symbol, b.symbol) || byCodePoint(a.id, b.id))
      .map((r) => r.id);
    expect(await listing(engine)).toEqual(sorted);
    expect(await listing(fresh)).toEqual(sorted);
    expect(engine.size).toBe(SIZE + 3);
    // the renamed security is found by its new name and not by its old one
    const quetzal = await engine.search({ text: engine.match('quetzal', ['name']) }, 10);
    expect(quetzal.ids).toEqual(['id00300']);
    const old = await engine.search({ text: engine.match('company 300', ['name']) }, 10);
    expect(old.ids).not.toContain('id00300');
    const industries = await engine.search({ text: engine.match('industries', ['name']) }, 10);
    expect(industries.ids).toEqual(['id00301']);
    const kept = await engine.search({ text: engine.match('company 301', ['name']) }, 10);
    expect(kept.ids[0]).toBe('id00301');
    // every other word's matches are the fresh build's
    for (const q of ['holdings', 'company', '1999', 'widgets'])
      expect((await engine.search({ text: engine.match(q, ['name']) }, SIZE)).ids.sort()).toEqual(
        (await fresh.search({ text: fresh.match(q, ['name']) }, SIZE)).ids.sort(),
      );
  });
});
