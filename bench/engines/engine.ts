// What bench/search-engines.ts asks of each engine it compares: the same securities in, the same
// Typesense-shaped request (q, filter_by, sort_by, facet_by) and answer out. Glue, not an engine.
import type { FacetCount } from '../../src/search/facets.js';

export type Value = string | number | boolean | null;

/** One security as every engine is given it: its id and its search fields by their API names (search/fields.ts). */
export interface Listing {
  id: string;
  values: Record<string, Value>;
}

/** Typesense's parameters: `q` over symbol and name (`*`: everything), filter_by, sort_by, facet_by. */
export interface SearchRequest {
  q: string;
  filterBy?: string;
  sortBy?: string;
  facetBy?: readonly string[];
}

export interface SearchAnswer {
  /** The first 10 hits in the engine's order. */
  ids: string[];
  found: number;
  facets: FacetCount[];
}

export interface Engine {
  name: string;
  /** The files whose lines are the search features this approach needs (counted by the bench). */
  files: readonly string[];
  build(listings: readonly Listing[]): Promise<void>;
  search(request: SearchRequest): Promise<SearchAnswer>;
  /** Makes the engine current after `listing` changed (already written to the database). */
  update(listing: Listing): Promise<void>;
}
