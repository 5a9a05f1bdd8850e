// The paging vocabulary (written down in db/keyset.ts) as the layers above services/ use it: the
// types a schema module names, and the one reader of a keyed list's pages that every per-key
// connection goes through (graphql/loaders.ts batches it per request).
import type { Db } from '../db/client.js';
import { acrossKeysPage, keysetPages, type KeyedList, type KeysetArgs, type Page } from '../db/keyset.js';

export { emptyPage, type Direction, type KeyedList, type KeysetArgs, type Page } from '../db/keyset.js';

/** One page of `list` per key, the same arguments for each, in one statement. */
export function keyedPages<Row>(
  db: Db,
  list: KeyedList<Row>,
  keys: readonly string[],
  args: KeysetArgs,
): Promise<Map<string, Page<Row>>> {
  return keysetPages(db, list, keys, args);
}

/**
 * One page of `list`'s rows of all `keys` taken as one list (a watchlist's trades), in the list's
 * order then the key, in one statement (db/keyset.ts acrossKeysPage).
 */
export function pageAcrossKeys<Row>(
  db: Db,
  list: KeyedList<Row>,
  keys: readonly string[],
  args: KeysetArgs,
): Promise<Page<Row>> {
  return acrossKeysPage(db, list, keys, args);
}

/** What tells two keyed lists apart (their loaders' names): table, key, order and filters with their values. */
export function keyedListIdentity(list: KeyedList<any>): unknown {
  return [
    list.table,
    list.keyColumn,
    list.ordering.tag,
    list.direction,
    (list.filters ?? []).map((f) => [f.text, f.values]),
  ];
}
