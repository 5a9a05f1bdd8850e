// Helpers for the per-request DataLoaders of context.ts (Loaders): batch functions, loader names
// that carry a field's arguments, the one loader of per-key pages, and child lists loaded only
// when a field reads them.
import type { Context } from '../context.js';
import {
  emptyPage,
  keyedListIdentity,
  keyedPages,
  type KeyedList,
  type KeysetArgs,
  type Page,
} from '../services/paging.js';

/** A batch function from one that returns a map: keys missing from the map load as `fallback`. */
export function fromMap<K, V>(load: (keys: readonly K[]) => Promise<Map<K, V>>, fallback: V) {
  return async (keys: readonly K[]): Promise<V[]> => {
    const map = await load(keys);
    return keys.map((k) => (map.has(k) ? map.get(k)! : fallback));
  };
}

/** A loader name for a field and its arguments (bigints and dates included). */
export function loaderName(field: string, args: unknown): string {
  return `${field}:${JSON.stringify(args, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v))}`;
}

/**
 * The page under `key` of a list read per key by `read`, batched with every other key asked for
 * with the same `name` and `args` in the request: one statement for a list of parents, and for
 * aliased root fields alike. A key `read` leaves out has an empty page.
 */
export function pageByKey<Row>(
  ctx: Context,
  name: string,
  args: unknown,
  key: string,
  read: (keys: readonly string[]) => Promise<Map<string, Page<Row>>>,
): Promise<Page<Row>> {
  return ctx.loaders.get(loaderName(name, args), fromMap(read, emptyPage<Row>())).load(key);
}

/** The page of the keyed `list` under `key` (see pageByKey): what a `children` field resolves. */
export function keyedPage<Row>(ctx: Context, list: KeyedList<Row>, args: KeysetArgs, key: string): Promise<Page<Row>> {
  return pageByKey(ctx, 'keyed', { list: keyedListIdentity(list), args }, key, (keys) =>
    keyedPages(ctx.db, list, keys, args),
  );
}

/**
 * A row whose child list `key` is loaded only if a field reads it. The per-security loaders of
 * the company page, and the declared levels (graphql/plan/declare.ts `one`, `many`), return parents
 * without their children (logo security info, balance-sheet symbols, news securities, a news item's
 * press releases' tickers and securities: statements no field of the page asks for); their GraphQL
 * object types are typed with the children, as Prisma's `include` returns them elsewhere, so the
 * child fields resolve `childrenOf(row, key, load)`: the list the row came with, or one batched load.
 */
export function childrenOf<Row, K extends keyof Row>(
  row: Row,
  key: K,
  load: () => Promise<Row[K]>,
): Row[K] | Promise<Row[K]> {
  return row[key] ?? load();
}
