// The repository's own engine behind bench/search-engines.ts's interface: the master in memory
// (services/security-index.ts) over the term vocabulary (services/security-text.ts), read from the
// database as a server reads them, and asked as services/security-query.ts asks them, less the
// master-version statement and the fetch of the page's rows (the libraries do neither).
import type { Db } from '../../src/db/client.js';
import { parseFilterBy, parseSortBy } from '../../src/domain/search-syntax.js';
import type { TextField } from '../../src/domain/search-text.js';
import { readyIndex, searchIndex, type SearchIndex } from '../../src/services/security-index.js';
import { SECURITY_SEARCH_FIELDS } from '../../src/services/security-fields.js';
import { textMatch, textMatchesNothing } from '../../src/services/security-text.js';
import { writeSecurities } from '../../src/services/security-write.js';
import type { Engine, Listing } from './engine.js';

const TEXT: readonly TextField[] = ['symbol', 'name'];

export interface RepoEngine extends Engine {
  /** How long the last update's write to the database took (every engine's source of truth pays it). */
  lastWriteMs: number;
}

export function repoEngine(db: Db): RepoEngine {
  let index: SearchIndex | undefined;
  const current = async () => {
    index = await readyIndex(db);
    if (!index) throw new Error('the master in memory could not be read');
    return index;
  };
  const engine: RepoEngine = {
    name: 'repo index',
    files: ['src/services/security-index.ts', 'src/services/security-text.ts', 'src/domain/search-text.ts'],
    lastWriteMs: 0,
    async build() {
      const { version } = await current();
      await textMatch(db, 'a', TEXT, version); // the vocabulary, as the first search at a version reads it
    },
    async search({ q, filterBy, sortBy, facetBy = [] }) {
      const filter = filterBy ? parseFilterBy(filterBy, SECURITY_SEARCH_FIELDS) : undefined;
      const sort = sortBy ? parseSortBy(sortBy, SECURITY_SEARCH_FIELDS) : undefined;
      const text = q === '*' ? undefined : await textMatch(db, q, TEXT, index!.version);
      if (q !== '*' && (!text || textMatchesNothing(text)))
        return {
          ids: [],
          found: 0,
          facets: searchIndex(index!, { filter: { op: 'or', of: [] } }, 0).facetsOf(facetBy),
        };
      const hits = searchIndex(index!, { text, filter, sort }, 10);
      return { ids: hits.ids.slice(0, 10), found: hits.found, facets: hits.facetsOf(facetBy) };
    },
    async update(listing: Listing) {
      const t = performance.now();
      const stored = await db.prisma.security.findUniqueOrThrow({ where: { id: listing.id } });
      const cap = listing.values['financials.market_cap'];
      await writeSecurities(db, [
        {
          ...stored,
          name: String(listing.values.name),
          marketCap: cap === null ? null : BigInt(Math.round(Number(cap))),
          isinHistory: stored.isinHistory as string[] | null,
        },
      ]);
      engine.lastWriteMs = performance.now() - t;
      // a write bumps the master's version; the index is read again whole (searches take SQL meanwhile)
      await current();
    },
  };
  return engine;
}
