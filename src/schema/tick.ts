// What the trade and quote modules share: their arguments and how they become a page request.
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { EXACT_TICK_COUNT, PAGE_SIZES, TICK_COUNT_UNITS } from '../domain/limits.js';
import { MAX_SYMBOLS, symbolOrSymbols } from '../domain/symbols.js';
import { keyedPage } from '../graphql/loaders.js';
import type { PageConnection } from '../graphql/connection.js';
import type { WorkExtension } from '../graphql/cost.js';
import { pageAcrossKeys } from '../services/paging.js';
import {
  clampNanos,
  ticksBySymbol,
  tickTotals,
  toNanos,
  type TickPageArgs,
  type TickRow,
  type TickTable,
  type TimeRange,
} from '../services/tick.js';
import {
  connection,
  keysetArgs,
  pagingArgs,
  readRange,
  SortOrder,
  SYMBOL_DESCRIPTION,
  type LiveFeed,
  type PageSize,
  type PagingInput,
} from './common.js';

export const TICK_PAGE: PageSize = PAGE_SIZES.ticks;

/** Arguments of the root `trades`/`quotes` fields and of the Security edges alike. */
export const tickArgs = {
  ...builder.args((t) => ({
    from: t.field({ type: 'DateTime', description: 'Only ticks at or after this time.' }),
    to: t.field({
      type: 'DateTime',
      description: 'Only ticks at or before this time (inclusive, to the millisecond).',
    }),
    order: t.field({
      type: SortOrder,
      defaultValue: 'desc',
      description:
        'By SIP timestamp, then sequence number (then symbol, across the symbols of `symbols`); default DESC (newest first).',
    }),
  })),
  ...pagingArgs(TICK_PAGE),
};

/** A tick list's request: the time range it filters on, and the page in the order asked for. */
export interface RangePage {
  range: TimeRange;
  page: TickPageArgs;
}

/** The tick list arguments as coerced. */
export interface TickArgs extends PagingInput {
  from?: Date | null;
  to?: Date | null;
  order?: 'asc' | 'desc' | null;
}

export function rangePage(args: TickArgs): RangePage {
  const { from, to } = readRange(args.from, args.to);
  return {
    range: {
      gte: from ? toNanos(from) : undefined,
      lte: to ? clampNanos(toNanos(to) + 999_999n) : undefined,
    },
    page: { direction: args.order ?? 'desc', ...keysetArgs(args, TICK_PAGE) },
  };
}

/** The `totalCount` of the trade and quote connections (schema/common.ts connectionType): counted with a bound, charged as such. */
export function tickCountField(plural: 'trades' | 'quotes') {
  return {
    description: `How many ${plural} of the symbol lie in the time range, ignoring paging: exact up to ${EXACT_TICK_COUNT.toLocaleString('en-US')}, past it PostgreSQL's estimate (\`totalCountIsEstimate\` says which); null on a security's ${plural} (a nested list) and for a watchlist (\`symbols\`).`,
    // counted for a root list of one symbol only; elsewhere it is null and costs nothing
    work: {
      units: TICK_COUNT_UNITS,
      whenWithin: { fields: [`Query.${plural}`], args: ['symbol'] },
    } satisfies WorkExtension,
  };
}

/** The symbols of the root `trades`/`quotes` fields and of `tradeAdded`/`quoteAdded`: one, or a watchlist. */
export const tickSymbolArgs = builder.args((t) => ({
  symbol: t.string({ description: `${SYMBOL_DESCRIPTION} Give this or \`symbols\`.` }),
  symbols: t.stringList({
    description: `Several ticker symbols instead of \`symbol\` (a watchlist): 1 to ${MAX_SYMBOLS}, case-insensitive, each as \`symbol\` (an item may be a comma list); a symbol given twice counts once.`,
  }),
}));

/** The symbol arguments as coerced. */
export interface TickSymbolArgs {
  symbol?: string | null;
  symbols?: readonly string[] | null;
}

/** Each symbol's ticks for the list arguments: the list and page of the root fields and the Security edges alike. */
export function tickList<T extends TickTable>(table: T, args: TickArgs) {
  const { range, page } = rangePage(args);
  return { list: ticksBySymbol(table, range, page.direction), args: page };
}

/**
 * A root `trades`/`quotes` connection of the same list: one symbol's page through the loader the
 * Security edge uses (aliased root fields of one request are one statement), with its count read
 * only when asked for; or the rows of several symbols as one list in time order (one statement,
 * either way; no count: docs/graphql.md#paging).
 */
export async function tickConnection<T extends TickTable>(
  ctx: Context,
  table: T,
  { symbol, symbols, ...args }: TickSymbolArgs & TickArgs,
): Promise<PageConnection<TickRow<T>>> {
  const by = symbolOrSymbols({ symbol, symbols });
  const { range, page } = rangePage(args);
  const list = ticksBySymbol(table, range, page.direction);
  if (!('symbol' in by)) return connection(await pageAcrossKeys(ctx.db, list, by.symbols, page));
  const ticks = await keyedPage(ctx, list, page, by.symbol);
  return connection({ ...ticks, ...tickTotals(ctx.db, table, by.symbol, range) });
}

/** What `tradeAdded`/`quoteAdded` listen to: each symbol's topic, one subscription for them all. */
export function tickFeed(given: TickSymbolArgs, topic: (symbol: string) => string): LiveFeed {
  const by = symbolOrSymbols(given);
  const symbols = 'symbol' in by ? [by.symbol] : by.symbols;
  return { topics: symbols.map(topic), symbols: symbols.length };
}
