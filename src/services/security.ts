import type { Db } from '../db/client.js';
import { cikPrefixes, CIK_PATTERN, padCik } from '../domain/cik.js';
import { checkQueryLength } from '../search/text.js';
import { parseSymbol } from '../domain/symbols.js';
import { AppError } from '../errors.js';
import { Prisma, type Security } from '../../generated/prisma/client.js';
import { emptyPage, seekOf, toPage, type KeysetArgs, type Ordering, type Page, type Seek } from '../db/keyset.js';
import type { NumberedPage, PageNumberArgs } from '../db/page-number.js';
import { currentSummary, lastSummary, type MasterSummary } from './security-counts.js';
import { anyOf, keyedConditions, orderOn, readSql } from '../db/sql.js';
import { selectColumns, type TreeLevel } from '../db/tree.js';

export type { Security };

/** The identifier types the security master can be searched by (REST `search_type`), and their columns. */
export const SEARCH_TYPES = {
  symbol: 'symbol',
  'identifiers.figi': 'figi',
  'identifiers.figi_composite': 'figiComposite',
  'identifiers.figi_share_class': 'figiShareClass',
  'identifiers.isin': 'isin',
  'identifiers.opol': 'opol',
  'identifiers.cusip': 'cusip',
  'identifiers.cik': 'cik',
  'exchange_info.mic_code': 'micCode',
  'exchange_info.exchange_country': 'exchangeCountry',
  'classification.gics_code': 'gicsCode',
} as const satisfies Record<string, keyof Security>;

export type SearchType = keyof typeof SEARCH_TYPES;

/**
 * LIKE's wildcards and its escape character, which Prisma's `startsWith` passes through unescaped
 * (`%` would match everything). No identifier of any search type contains them, so a query that
 * does matches nothing, without asking the database.
 */
const LIKE_SPECIAL = /[%_\\]/;
type SearchColumn = (typeof SEARCH_TYPES)[SearchType];
const SEARCH_COLUMNS: readonly SearchColumn[] = Object.values(SEARCH_TYPES);

/**
 * The beginnings a query matches in its column, any one of them: identifiers are stored
 * upper-case, so the query is too; a CIK by its own rule (domain/cik.ts), with or without leading
 * zeros. The SQL match and the search engine both take these. A blank query is a 400.
 */
export function searchPrefixes(type: SearchType, query: string): string[] {
  const q = query.trim();
  if (q === '')
    throw new AppError('BAD_REQUEST', `search: the query must not be empty; give "${WILDCARD}" for every security`);
  return type === 'identifiers.cik' ? cikPrefixes(q) : [q.toUpperCase()];
}

const orderings = new Map<SearchColumn, Ordering<Security>>();
function orderingFor(column: SearchColumn): Ordering<Security> {
  let o = orderings.get(column);
  if (!o) {
    o = {
      tag: `security.${column}`,
      columns: [
        { column, type: 'string', of: (s) => s[column] ?? '' },
        { column: 'id', type: 'string', of: (s) => s.id },
      ],
    };
    orderings.set(column, o);
  }
  return o;
}

/** What a search matches: `type`'s field starting with `query`; every security for WILDCARD. */
export interface SecuritySearch {
  query: string;
  type: SearchType;
}

/** Typesense's "match everything": the whole master, by symbol then id, whatever the search type. */
export const WILDCARD = '*';
export const isWildcard = (query: string): boolean => query.trim() === WILDCARD;

/** What a search selects: the column it orders by, its condition, and the beginnings it matches. */
export interface SearchMatch {
  column: SearchColumn;
  prefixes: readonly string[];
  match: Prisma.Sql;
  wildcard: boolean;
}

/** The match of `search`; undefined when nothing can match (LIKE's wildcards in the query, a CIK query not of digits). */
export async function matchOf(db: Db, search: SecuritySearch): Promise<SearchMatch | undefined> {
  checkQueryLength(search.query);
  if (isWildcard(search.query)) return { column: 'symbol', prefixes: [], match: Prisma.sql`TRUE`, wildcard: true };
  const column = SEARCH_TYPES[search.type];
  const prefixes = searchPrefixes(search.type, search.query).filter((p) => !LIKE_SPECIAL.test(p));
  if (!prefixes.length) return undefined;
  return { column, prefixes, match: await prefixMatch(db, column, prefixes), wildcard: false };
}

/** How many securities `m` matches, exactly (see countMatches). */
function countOf(db: Db, m: SearchMatch, summary: Promise<MasterSummary | undefined>): Promise<number> {
  return m.wildcard ? countAll(db, summary) : countMatches(db, m.column, m.prefixes, m.match, summary);
}

/** The first string after every string that starts with `prefix`, in code-point order. */
function prefixEnd(prefix: string): string {
  const chars = [...prefix]; // by code point: a trailing astral character is two UTF-16 units
  const last = chars.pop()!.codePointAt(0)!;
  return chars.join('') + String.fromCodePoint(Math.min(last + 1, 0x10ffff));
}

/**
 * "`column` starts with one of `prefixes`", as the index can answer it: for each, a range
 * `q <= column < prefixEnd(q)` where text compares by code point (a C-like collation, as the
 * embedded cluster and docker-compose create it), so the search walks only the matching index
 * entries. Under another collation the range is not the prefix set (`BRK.A` sorts outside
 * `['BRK.', 'BRK/')` in en_US), and it is `LIKE q || '%'`, exact but a scan. No prefix holds LIKE's
 * wildcards (matchOf drops them).
 */
async function prefixMatch(db: Db, column: SearchColumn, prefixes: readonly string[]): Promise<Prisma.Sql> {
  const col = Prisma.raw(`"${column}"`);
  const byRange = await db.codepointTextOrder();
  const each = prefixes.map((q) =>
    byRange ? Prisma.sql`(${col} >= ${q} AND ${col} < ${prefixEnd(q)})` : Prisma.sql`${col} LIKE ${`${q}%`}`,
  );
  return each.length === 1 ? each[0]! : Prisma.sql`(${Prisma.join(each, ' OR ')})`;
}

/** Search rows through Db.read (one prepared statement per search type and shape), in `direction` (a backward page's reverse). */
function selectSecurities(
  db: Db,
  where: Prisma.Sql,
  column: SearchColumn,
  limit: number,
  offset = 0,
  direction: Seek['direction'] = 'asc',
): Promise<Security[]> {
  const order = orderOn([column, 'id'], direction);
  const page = offset > 0 ? Prisma.sql` LIMIT ${limit} OFFSET ${offset}` : Prisma.sql` LIMIT ${limit}`;
  return readSql<Security>(db, Prisma.sql`SELECT * FROM "Security" WHERE ${where} ORDER BY ${order}${page}`);
}

async function countWhere(db: Db, where: Prisma.Sql): Promise<number> {
  const [row] = await readSql<{ n: unknown }>(db, Prisma.sql`SELECT COUNT(*) AS "n" FROM "Security" WHERE ${where}`);
  return Number(row?.n ?? 0);
}

/** The summary of the search columns if it is at the master's current version (see security-counts.ts). */
function masterSummary(db: Db): Promise<MasterSummary | undefined> {
  return currentSummary(db, SEARCH_COLUMNS);
}

/**
 * How many securities' `column` starts with one of `prefixes` (disjoint, so their counts add up),
 * exactly: each from `summary` (the current one, if any) when it holds the prefix, else by COUNT in
 * SQL. A prefix the last summary leaves out matched fewer than PREFIX_COUNT_THRESHOLD then, so it
 * is counted in SQL at once, beside the version read (exact whatever the version); only the broad
 * ones wait for the summary. `match` is the SQL of all of them, for the usual single prefix.
 */
async function countMatches(
  db: Db,
  column: SearchColumn,
  prefixes: readonly string[],
  match: Prisma.Sql,
  summary: Promise<MasterSummary | undefined>,
): Promise<number> {
  const held = (s: MasterSummary | undefined) => prefixes.filter((p) => s?.prefixes.get(column)?.has(p) === true);
  const countIn = async (some: readonly string[]) =>
    !some.length ? 0 : countWhere(db, some.length === prefixes.length ? match : await prefixMatch(db, column, some));
  const last = lastSummary(db);
  const narrow = last ? prefixes.filter((p) => !held(last).includes(p)) : [];
  const [narrowCount, current] = await Promise.all([countIn(narrow), summary]);
  const known = held(current).filter((p) => !narrow.includes(p));
  const unknown = prefixes.filter((p) => !narrow.includes(p) && !known.includes(p));
  const counts = current?.prefixes.get(column);
  return narrowCount + (await countIn(unknown)) + known.reduce((n, p) => n + counts!.get(p)!, 0);
}

/** How many securities the master holds, exactly: from the current summary, or by COUNT in SQL. */
async function countAll(db: Db, summary: Promise<MasterSummary | undefined>): Promise<number> {
  return (await summary)?.total ?? countWhere(db, Prisma.sql`TRUE`);
}

/** How many securities the master holds (Typesense's `out_of`), exactly. */
export function totalSecurities(db: Db): Promise<number> {
  return countAll(db, masterSummary(db));
}

/**
 * Securities whose `type` field starts with the query (so an exact identifier matches, and a
 * prefix lists candidates, as a Typesense prefix search does), ordered by that field then id; for
 * WILDCARD every security, by symbol then id.
 */
export async function securitySearchPage(db: Db, search: SecuritySearch, args: KeysetArgs): Promise<Page<Security>> {
  const s = await searchOf(db, search, args);
  if (!s) return emptyPage(async () => 0);
  const rows = await selectSecurities(db, s.where, s.column, s.seek.limit, 0, s.seek.direction);
  return toPage(rows, args, s.ordering, 'asc', () => countOf(db, s, masterSummary(db)));
}

/** A keyset search's match and its rows between the cursors; undefined when nothing can match (LIKE's wildcards). */
async function searchOf(db: Db, search: SecuritySearch, args: KeysetArgs) {
  const m = await matchOf(db, search);
  if (!m) return undefined;
  const ordering = orderingFor(m.column);
  const seek = seekOf(ordering, 'asc', args);
  const where = Prisma.sql`${m.match}${keyedConditions([], [m.column, 'id'], seek)}`;
  return { ...m, ordering, where, seek };
}

/**
 * The rows `securitySearchPage` reads, as the root level of a row tree (db/tree.ts) carrying
 * `columns` and `children`: the same match, cursors, order and limit (`seekOf`; `toPage` with
 * `ordering` makes the page). Undefined when that page is empty without asking the database.
 */
export async function securitySearchLevel(
  db: Db,
  search: SecuritySearch,
  args: KeysetArgs,
  columns: readonly string[],
  children: readonly TreeLevel[],
): Promise<{ level: TreeLevel; ordering: Ordering<Security>; direction: 'asc' } | undefined> {
  const s = await searchOf(db, search, args);
  if (!s) return undefined;
  const { column, ordering, where, seek } = s;
  const order = [column, 'id'];
  const carried = [...new Set([...columns, ...order])];
  const level: TreeLevel = {
    table: 'Security',
    columns: carried,
    select: () =>
      Prisma.sql`${selectColumns('Security', carried)} WHERE ${where} ORDER BY ${orderOn(order, seek.direction)} LIMIT ${seek.limit}`,
    children,
  };
  return { level, ordering, direction: 'asc' };
}

export interface SecuritySearchAtPage extends NumberedPage<Security> {
  /** How many securities the master holds. */
  outOf: number;
  /** The beginnings the query matched (searchPrefixes): each hit's field starts with one of them. */
  prefixes: readonly string[];
}

/**
 * Page `page` of the matches of `securitySearchPage`, in the same order, with the number of
 * matches and the size of the master: for page-numbered (Typesense-style) clients. A page past
 * the end is empty. The query is a literal prefix: `%` and `_` match only themselves.
 * Both counts are exact and come from one read of the master's version (security-counts.ts), read
 * beside the page: counting a broad prefix in SQL cost more than the whole search may take.
 */
export async function securitySearchAtPage(
  db: Db,
  search: SecuritySearch,
  args: PageNumberArgs,
): Promise<SecuritySearchAtPage> {
  const m = await matchOf(db, search);
  if (!m)
    return {
      nodes: [],
      totalCount: 0,
      outOf: await countAll(db, masterSummary(db)),
      prefixes: [],
    };
  const summary = masterSummary(db);
  const [totalCount, outOf, nodes] = await Promise.all([
    countOf(db, m, summary),
    countAll(db, summary),
    selectSecurities(db, m.match, m.column, args.pageSize, (args.page - 1) * args.pageSize),
  ]);
  return { nodes, totalCount, outOf, prefixes: m.prefixes };
}

export type SecurityLookup =
  | { symbol: string }
  | { figi: string }
  | { isin: string }
  | { cusip: string }
  | { cik: string };

const LOOKUP_KEYS = ['symbol', 'figi', 'isin', 'cusip', 'cik'] as const;

/**
 * The one identifier a lookup names, checked and as stored: a symbol by the symbol rule
 * (domain/symbols.ts), a CIK by CIK_PATTERN (zero-padded), the others upper-cased. Throws a
 * BAD_REQUEST naming the argument and the value received.
 */
export function securityLookup(given: Partial<Record<(typeof LOOKUP_KEYS)[number], string | null>>): SecurityLookup {
  const named = LOOKUP_KEYS.filter((k) => given[k] !== null && given[k] !== undefined);
  if (named.length !== 1) {
    throw new AppError(
      'BAD_REQUEST',
      `give exactly one of the arguments ${LOOKUP_KEYS.join(', ')}; got ${named.length ? named.join(', ') : 'none'}`,
    );
  }
  const key = named[0]!;
  const value = given[key]!;
  if (key === 'symbol') return { symbol: parseSymbol(value, 'symbol') };
  if (key === 'cik') {
    if (!CIK_PATTERN.test(value))
      throw new AppError('BAD_REQUEST', `argument "cik" must be 1 to 10 digits; got ${JSON.stringify(value)}`);
    return { cik: padCik(value) };
  }
  return { [key]: value.toUpperCase() } as SecurityLookup;
}

/** How a federated graph names a security (its two `@key`s, schema/security.ts): a FIGI, or a listing. */
export type SecurityReference = { figi: string } | { symbol: string; micCode: string };

/**
 * The key of an entity representation another subgraph sends (`_entities`), checked as a lookup's
 * arguments are: `{ identifiers: { figi } }` or `{ symbol, exchangeInfo: { micCode } }` (the FIGI when both). A FIGI is
 * upper-cased as `security(figi:)` does; a MIC is matched as stored (it may be empty). Throws a
 * BAD_REQUEST naming what is wrong.
 */
export function securityReference(representation: Readonly<Record<string, unknown>>): SecurityReference {
  const { identifiers, symbol, exchangeInfo } = representation;
  const text = (value: unknown, max: number): value is string => typeof value === 'string' && value.length <= max;
  const figi = (identifiers as { figi?: unknown } | null | undefined)?.figi;
  const micCode = (exchangeInfo as { micCode?: unknown } | null | undefined)?.micCode;
  if (text(figi, 32)) return { figi: figi.toUpperCase() };
  if (typeof symbol === 'string' && text(micCode, 16))
    return { symbol: parseSymbol(symbol, 'representations.symbol'), micCode };
  throw new AppError(
    'BAD_REQUEST',
    'a Security representation names it by one key: `identifiers { figi }` (a FIGI of up to 32 characters) or `symbol exchangeInfo { micCode }` (a symbol and a MIC of up to 16)',
  );
}

/** One security by one identifier; several listings of a symbol resolve to the first by id. */
export async function findSecurity(db: Db, by: SecurityLookup): Promise<Security | null> {
  const where =
    'symbol' in by
      ? { symbol: by.symbol.toUpperCase() }
      : 'figi' in by
        ? { figi: by.figi.toUpperCase() }
        : 'isin' in by
          ? { isin: by.isin.toUpperCase() }
          : 'cusip' in by
            ? { cusip: by.cusip.toUpperCase() }
            : { cik: padCik(by.cik) };
  return db.prisma.security.findFirst({ where, orderBy: { id: 'asc' } });
}

/** For loaders: every listing (by id) of each of `values` in `column` (one statement, its text the same for any number of values). */
async function listingsOf(
  db: Db,
  column: 'symbol' | 'figi',
  values: readonly string[],
): Promise<Map<string, Security[]>> {
  const rows = await readSql<Security>(
    db,
    Prisma.sql`SELECT * FROM "Security" WHERE ${anyOf(`"${column}"`, values)} ORDER BY "id"`,
  );
  const map = new Map<string, Security[]>();
  for (const r of rows) map.get(r[column])?.push(r) ?? map.set(r[column], [r]);
  return map;
}

/** For loaders: the first listing (by id) of each of `values` in `column`. */
async function firstListings(
  db: Db,
  column: 'symbol' | 'figi',
  values: readonly string[],
): Promise<Map<string, Security>> {
  return new Map([...(await listingsOf(db, column, values))].map(([value, listings]) => [value, listings[0]!]));
}

/** The row `firstListings` picks for one value of `column`, as the root level of a row tree (db/tree.ts). */
export function firstListingLevel(
  column: 'symbol' | 'figi',
  value: string,
  columns: readonly string[],
  children: readonly TreeLevel[],
): TreeLevel {
  const carried = [...new Set([...columns, 'id'])];
  return {
    table: 'Security',
    columns: carried,
    select: () =>
      Prisma.sql`${selectColumns('Security', carried)} WHERE ${Prisma.raw(`"${column}"`)} = ${value} ORDER BY "id" LIMIT 1`,
    children,
  };
}

/** For loaders: the first listing (by id) of each symbol. */
export function securitiesBySymbol(db: Db, symbols: readonly string[]): Promise<Map<string, Security>> {
  return firstListings(db, 'symbol', symbols);
}

/** For loaders: each symbol's listings, on every exchange (by id); a listing is a symbol and a MIC. */
export function listingsBySymbol(db: Db, symbols: readonly string[]): Promise<Map<string, Security[]>> {
  return listingsOf(db, 'symbol', symbols);
}

/** For loaders: the first listing (by id) of each FIGI. */
export function securitiesByFigi(db: Db, figis: readonly string[]): Promise<Map<string, Security>> {
  return firstListings(db, 'figi', figis);
}
