// The repository's own engine behind bench/search-engines.ts's interface: the search engine of
// src/search/, kept by services/security-index.ts from the database as a server keeps it, and asked
// as services/security-query.ts asks it, less the master-version statement and the fetch of the
// page's rows (the libraries do neither).
import type { Db } from '../../src/db/client.js';
import type { SearchEngine } from '../../src/search/engine.js';
import { noFacets } from '../../src/search/facets.js';
import { SECURITY_SEARCH_FIELDS } from '../../src/search/fields.js';
import { textMatchesNothing } from '../../src/search/rank.js';
import { parseFilterBy, parseSortBy } from '../../src/search/syntax.js';
import type { TextField } from '../../src/search/text.js';
import { currentEngine } from '../../src/services/security-index.js';
import { writeSecurities } from '../../src/services/security-write.js';
import type { Engine, Listing } from './engine.js';

const TEXT: readonly TextField[] = ['symbol', 'name'];

export interface RepoEngine extends Engine {
  /** How long the last update's write to the database took (every engine's source of truth pays it). */
  lastWriteMs: number;
}

export function repoEngine(db: Db): RepoEngine {
  let held: SearchEngine | undefined;
  const current = async () => {
    held = await currentEngine(db);
    if (!held) throw new Error('the search engine could not read the master');
    return held;
  };
  const engine: RepoEngine = {
    name: 'repo engine',
    files: [
      'src/search/engine.ts',
      'src/search/rank.ts',
      'src/search/text.ts',
      'src/search/facets.ts',
      'src/search/order.ts',
      'src/search/filter.ts',
      'src/services/security-index.ts',
    ],
    lastWriteMs: 0,
    async build() {
      await current();
    },
    async search({ q, filterBy, sortBy, facetBy = [] }) {
      const filter = filterBy ? parseFilterBy(filterBy, SECURITY_SEARCH_FIELDS) : undefined;
      const sort = sortBy ? parseSortBy(sortBy, SECURITY_SEARCH_FIELDS) : undefined;
      const text = q === '*' ? undefined : held!.match(q, TEXT);
      if (q !== '*' && (!text || textMatchesNothing(text))) return { ids: [], found: 0, facets: noFacets(facetBy) };
      const hits = await held!.search({ text, filter, sort }, 10);
      return { ids: hits.ids, found: hits.found, facets: await hits.facetsOf(facetBy) };
    },
    async update(listing: Listing) {
      const t = performance.now();
      const stored = await db.prisma.security.findUniqueOrThrow({ where: { id: listing.id } });
      const cap = listing.values['financials.market_cap'];
      const { rev: _rev, ...row } = stored;
      await writeSecurities(db, [
        {
          ...row,
          name: String(listing.values.name),
          marketCap: cap === null ? null : BigInt(Math.round(Number(cap))),
          isinHistory: stored.isinHistory as string[] | null,
        },
      ]);
      engine.lastWriteMs = performance.now() - t;
      // a write bumps the master's version; the engine reads the rows stamped since (one here)
      await current();
    },
  };
  return engine;
}
