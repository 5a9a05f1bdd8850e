// What the trade and quote modules share: their arguments and how they become a page request.
import { builder } from '../builder.js';
import { PAGE_SIZES } from '../domain/limits.js';
import { clampNanos, toNanos, type TickPageArgs, type TimeRange } from '../services/tick.js';
import { AFTER_DESCRIPTION, checkFirst, firstArg, readRange, SortOrder, type PageSize } from './common.js';

export const TICK_PAGE: PageSize = PAGE_SIZES.ticks;

/** Arguments of the root `trades`/`quotes` fields and of the Security edges alike. */
export const tickArgs = builder.args((t) => ({
  from: t.field({ type: 'DateTime', description: 'Only ticks at or after this time.' }),
  to: t.field({ type: 'DateTime', description: 'Only ticks at or before this time (inclusive, to the millisecond).' }),
  order: t.field({
    type: SortOrder,
    defaultValue: 'desc',
    description: 'By SIP timestamp, then sequence number; default DESC (newest first).',
  }),
  first: t.int(firstArg(TICK_PAGE)),
  after: t.string({ description: AFTER_DESCRIPTION }),
}));

/** A tick list's request: the time range it filters on, and the page in the order asked for. */
export interface RangePage {
  range: TimeRange;
  page: TickPageArgs;
}

/** The tick list arguments as coerced. */
export interface TickArgs {
  from?: Date | null;
  to?: Date | null;
  order?: 'asc' | 'desc' | null;
  first?: number | null;
  after?: string | null;
}

export function rangePage(args: TickArgs): RangePage {
  const { from, to } = readRange(args.from, args.to);
  return {
    range: {
      gte: from ? toNanos(from) : undefined,
      lte: to ? clampNanos(toNanos(to) + 999_999n) : undefined,
    },
    page: { direction: args.order ?? 'desc', first: checkFirst(args.first, TICK_PAGE), after: args.after ?? undefined },
  };
}
