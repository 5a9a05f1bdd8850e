// What the trade and quote modules share: their arguments and how they become a page request.
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { EXACT_TICK_COUNT, PAGE_SIZES, TICK_COUNT_UNITS } from '../domain/limits.js';
import { parseSymbol } from '../domain/symbols.js';
import { keyedPage } from '../graphql/loaders.js';
import {
  clampNanos,
  ticksBySymbol,
  tickTotals,
  toNanos,
  type TickPageArgs,
  type TickTable,
  type TimeRange,
} from '../services/tick.js';
import {
  checkRange,
  connection,
  keysetArgs,
  pagingArgs,
  SortOrder,
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
      description: 'By SIP timestamp, then sequence number; default DESC (newest first).',
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
  checkRange(args.from, args.to);
  return {
    range: {
      gte: args.from ? toNanos(args.from) : undefined,
      lte: args.to ? clampNanos(toNanos(args.to) + 999_999n) : undefined,
    },
    page: { direction: args.order ?? 'desc', ...keysetArgs(args, TICK_PAGE) },
  };
}

/** Each symbol's ticks of `table` for the list arguments: the list and page of the root field and the Security edge alike. */
export const tickList =
  <T extends TickTable>(table: T) =>
  (args: TickArgs) => {
    const { range, page } = rangePage(args);
    return { list: ticksBySymbol(table, range, page.direction), args: page };
  };

/**
 * A root `trades`/`quotes` page: the symbol's page through the loader of the Security edges
 * (aliased root fields of one request are one statement, as for a list of securities), with its
 * count, read only when asked for. The symbol by the rule of every entry point (domain/symbols.ts).
 */
export async function rootTicks<T extends TickTable>(ctx: Context, table: T, symbol: string, args: TickArgs) {
  const { range, page } = rangePage(args);
  const checked = parseSymbol(symbol, 'symbol');
  const ticks = await keyedPage(ctx, ticksBySymbol(table, range, page.direction), page, checked);
  return connection({ ...ticks, ...tickTotals(ctx.db, table, checked, range) });
}

/** The `totalCount` of the trade and quote connections (schema/common.ts connectionType): counted with a bound, charged as such. */
export function tickCountField(plural: 'trades' | 'quotes') {
  return {
    description: `How many ${plural} of the symbol lie in the time range, ignoring paging: exact up to ${EXACT_TICK_COUNT.toLocaleString('en-US')}, past it PostgreSQL's estimate (\`totalCountIsEstimate\` says which); null on a security's ${plural} (a nested list).`,
    work: { units: TICK_COUNT_UNITS },
  };
}
