import type { Db } from './client.js';
import { countRows, sortedRows, type SortedList } from './keyset.js';

/**
 * Page-number paging, for the REST routes that take `page`/`page_size`: `<noun>AtPage(db, filter,
 * { page, pageSize })` in every service answers a `NumberedPage` (the vocabulary is written down in
 * db/keyset.ts). An OFFSET walks every row before the page, so the routes cap `page` (MAX_PAGE in
 * rest/page-number.ts); GraphQL and `next_url` lists use keyset pages instead.
 */
export interface PageNumberArgs {
  /** 1-based. */
  page: number;
  pageSize: number;
}

export interface NumberedPage<Row> {
  /** At most pageSize rows; none past the last page. */
  nodes: Row[];
  /** Every row the filter matches, over all pages. */
  totalCount: number;
}

/** Page `page` of the rows of `list`, in the order of its keyset pages, and their number. */
export async function numberedPage<Row>(
  db: Db,
  list: SortedList<Row>,
  args: PageNumberArgs,
): Promise<NumberedPage<Row>> {
  const [nodes, totalCount] = await Promise.all([
    sortedRows(db, list, { limit: args.pageSize, offset: (args.page - 1) * args.pageSize }),
    countRows(db, list),
  ]);
  return { nodes, totalCount };
}
