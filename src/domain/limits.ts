/**
 * The largest values the service stores and serves. The import refuses a record that passes one
 * (src/ingest/record-fields.ts), and the GraphQL cost analysis counts each field at its limit
 * (src/graphql/cost.ts), so the largest answer an admissible request can produce is known before
 * it runs: docs/security.md#limits-per-request-decided-before-it-runs.
 */
import { MANIFESTS, type Manifest } from '../resources/index.js';

/** Rows a resumed subscription reads per page of its replay (db/outbox-replay.ts), as its client reads; its cost (schema/stream.ts). */
export const REPLAY_PAGE_ROWS = 500;

/**
 * Longest text of each kind, in characters (UTF-16 code units, as JavaScript counts `length`).
 * Text of every kind but `json` also holds no control character other than tab, newline and
 * carriage return, and no lone surrogate: JSON escapes those in six bytes, so a served character
 * of such text is at most three bytes of UTF-8. A `json` value is measured as its JSON text, whose
 * escapes are counted in it.
 */
export const TEXT_LIMITS = {
  /** Identifiers, codes, names, headlines: every text field not of a kind below. */
  short: 256,
  /** URLs. */
  url: 2_048,
  /** One sentence of a list of them: a call's key points (a hundred of them must not weigh a hundred bodies). */
  sentence: 1_024,
  /** Prose served as it came: press-release bodies, summaries and sub-headlines, call summaries and guidance, rating stories, company descriptions. */
  long: 32_768,
  /** Opaque vendor JSON kept as it came (press-release Raw, Categories, MediaAssets; a security's isin_history; a news item's associated_ratings and associated_transcripts), as JSON text. */
  json: 16_384,
  /** Filing text sections read for the computed insights and never served (risk factors, MD&A, legal proceedings). */
  filing: 1_048_576,
} as const;

/** Most items of each kind of list inside one record. */
export const LIST_LIMITS = {
  /** A record's child lists: a logo's security rows, a release's tickers, keywords, links, contacts and securities, a news item's securities and linked ids, a call's key points and participants, a balance sheet's symbols, insight item lists. */
  children: 100,
  /** The tickers of one filer's balance sheet: its share classes and preferred series (a bank lists ten or so). */
  shareClasses: 20,
  /** Condition codes of one trade or quote. */
  conditions: 8,
} as const;

/**
 * What one pass of the search engine over the master costs, in the cost analysis's units (one
 * value of an answer, graphql/cost.ts): a ranked search (text, a filter, a sort) is one pass, each
 * facet one more. Units bound answers by their size; a pass answers one row but takes as long as
 * answering this many units, at the engine's cap of securities (bench/search-cost.ts measures both
 * side by side; bench/RESULTS.md "What a search pass costs": a sort 5,883 units, a facet 4,326).
 * So 15 aliases of a sorted search with four facets each (75 passes) pass GRAPHQL_MAX_COST and are
 * refused before they run, while one such search is an ordinary request; and the in-flight budget
 * (COST_IN_FLIGHT) holds passes at what they take.
 */
export const SEARCH_PASS_UNITS = 6_000;

/**
 * Up to how many ticks `totalCount` counts exactly on `trades` and `quotes` (services/tick.ts): a
 * count that reads at most this many entries of the tick index however many a symbol holds; past
 * it, PostgreSQL's planner estimate, flagged by `totalCountIsEstimate`. The cost analysis charges
 * the count TICK_COUNT_UNITS (its time at the bound in cost units: bench/RESULTS.md "What a tick
 * count costs"), so a document cannot ask for many of them.
 */
export const EXACT_TICK_COUNT = 100_000;
export const TICK_COUNT_UNITS = 7_500;

/**
 * How many items one page of each list holds, by default and at most: the same rule for a list's
 * GraphQL `first` (schema/<noun>.ts) and its REST page parameter (rest/<noun>.ts). Out of range is
 * an error at both, never a clamp.
 */
export const PAGE_SIZES = {
  /** Trades and quotes (REST `limit`). */
  ticks: { default: 10, max: 5_000 },
  /** Balance sheets (REST `limit`). */
  balanceSheets: { default: 100, max: 1_000 },
  /** Security search (REST `per_page`). */
  securities: { default: 10, max: 250 },
  /** Every other list: news, ratings, press releases, call summaries, logos, fundamentals (REST `page_size`). */
  records: { default: 10, max: 100 },
} as const;

export type TextKind = keyof typeof TEXT_LIMITS;
export type ListKind = keyof typeof LIST_LIMITS;

/**
 * How many items the cost analysis counts a record's child list of each kind at: a page of records
 * at its default size (PAGE_SIZES.records), or the kind's largest where that is smaller. The
 * requester chooses every page (`first`), not how many children a record holds: a list is priced
 * at what a record holds by default, as a list without `first` is, and not at the import's limit,
 * which would price a logo's securities as a hundred (docs/security.md#limits-per-request-decided-before-it-runs).
 */
export const LIST_DEFAULTS: Readonly<Record<ListKind, number>> = Object.freeze(
  Object.fromEntries(
    Object.entries(LIST_LIMITS).map(([kind, max]) => [kind, Math.min(PAGE_SIZES.records.default, max)]),
  ) as Record<ListKind, number>,
);

/**
 * The stored text the GraphQL schema serves that is not `short`, by schema coordinate, for fields
 * written by hand in a schema module, from the resources' manifests (`textKinds`). A field exposed
 * from its record's table (schema/record-fields.ts) carries the table's kind as its `textKind`
 * extension instead, so no kind is written twice. For a list of strings the kind is each item's; a
 * JSON field's is its JSON text. Every other String (or URL) field holding imported text is `short`.
 * Text kept but never served (filing sections) is absent. test/ingest/limits.test.ts proves the
 * import enforces exactly these kinds, both sources together.
 */
export const FIELD_TEXT_KINDS: Readonly<Record<string, TextKind>> = kindsOf(TEXT_LIMITS, (r) => r.textKinds);

/**
 * The GraphQL list fields whose items come from a child list of one imported record, by schema
 * coordinate, with the limit on their length, from the manifests (`listKinds`). `Logo.securities`
 * and the `associated*` record lists hold at most one item per item of the list they resolve
 * (`securityInfo`, the id lists).
 */
export const FIELD_LIST_KINDS: Readonly<Record<string, ListKind>> = kindsOf(LIST_LIMITS, (r) => r.listKinds);

/** The kinds the manifests declare, sorted by coordinate; a kind that is not one of `limits` fails the start. */
function kindsOf<K extends string>(
  limits: Readonly<Record<K, number>>,
  declared: (r: Manifest) => Readonly<Record<string, string>> | undefined,
): Readonly<Record<string, K>> {
  const entries = MANIFESTS.flatMap((r) => Object.entries(declared(r) ?? {}).map(([c, k]) => [r.noun, c, k] as const));
  for (const [noun, coordinate, kind] of entries) {
    if (!Object.hasOwn(limits, kind))
      throw new Error(
        `resources/${noun}.ts: ${coordinate} is of kind ${JSON.stringify(kind)}; the kinds are ${Object.keys(limits).join(', ')}`,
      );
  }
  const sorted = entries.map(([, c, k]) => [c, k as K] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.freeze(Object.fromEntries(sorted));
}
