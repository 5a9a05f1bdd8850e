import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { AppError } from '../errors.js';
import type { Subscription } from '../events.js';
import { lastCursor, type Direction, type Page } from '../services/paging.js';

/** The page-size rule for one list: clients ask with `first`; out of range is an error, never a clamp. */
export interface PageSize {
  default: number;
  max: number;
}

export function checkFirst(first: number | null | undefined, size: PageSize, argument = 'first'): number {
  if (first === null || first === undefined) return size.default;
  if (!Number.isInteger(first) || first < 1 || first > size.max) {
    throw new AppError('BAD_REQUEST', `argument "${argument}" must be an integer from 1 to ${size.max}; got ${first}`);
  }
  return first;
}

export function firstArgDescription(size: PageSize): string {
  return `How many items to return: 1 to ${size.max}, default ${size.default}.`;
}

/** A service page in the shape the Relay connection types resolve. */
export function connection<Row>(page: Page<Row>) {
  return {
    // cursors are made only for the edges and page-info fields a query reads
    edges: page.nodes.map((node, i) => ({
      node,
      get cursor() {
        return page.cursorAt(i);
      },
    })),
    pageInfo: {
      hasNextPage: page.hasNextPage,
      hasPreviousPage: false,
      get startCursor() {
        return page.nodes.length ? page.cursorAt(0) : null;
      },
      get endCursor() {
        return lastCursor(page) ?? null;
      },
    },
    totalCount: page.totalCount,
  };
}

export type ConnectionShape = ReturnType<typeof connection>;

export const SortOrder = builder.enumType('SortOrder', {
  description: 'Direction of a time-ordered list.',
  values: {
    ASC: { value: 'asc', description: 'Oldest first.' },
    DESC: { value: 'desc', description: 'Newest first.' },
  } as const,
});

export function checkRange(from: Date | null | undefined, to: Date | null | undefined, names: readonly [string, string] = ['from', 'to']): void {
  if (from && to && from.getTime() > to.getTime()) {
    throw new AppError('BAD_REQUEST', `argument "${names[0]}" (${from.toISOString()}) is after "${names[1]}" (${to.toISOString()})`);
  }
}

export type { Direction };

export const FiscalPeriodEnum = builder.enumType('FiscalPeriod', {
  description: 'A fiscal quarter, or the full fiscal year.',
  values: {
    Q1: { value: 'Q1', description: 'First fiscal quarter.' },
    Q2: { value: 'Q2', description: 'Second fiscal quarter.' },
    Q3: { value: 'Q3', description: 'Third fiscal quarter.' },
    Q4: { value: 'Q4', description: 'Fourth fiscal quarter.' },
    FY: { value: 'FY', description: 'The full fiscal year.' },
  } as const,
});

/** Cursor argument, the same on every list. */
export const AFTER_DESCRIPTION = 'Cursor (an `endCursor` or edge `cursor` of this list): return the items after it.';

/**
 * The record id inside a Relay global id of a type keyed by an integer. The Prisma plugin would
 * parseInt it and hand NaN to the database (a masked internal error); a malformed id is the
 * client's mistake.
 */
export function intNodeId(id: string, typename: string): number {
  if (!/^\d{1,15}$/.test(id)) throw new AppError('BAD_REQUEST', `argument "id": ${JSON.stringify(id)} is not the id of a ${typename}`);
  return Number(id);
}

/**
 * The events of `topic` for a subscription field, optionally only those `keep` accepts. Resolves
 * once the bus listens (on Redis: once SUBSCRIBE is confirmed), so a client that has its response
 * misses nothing stored after it. Ending the iterator (the client went away) unsubscribes.
 */
export async function liveEvents<T>(ctx: Context, topic: string, keep?: (event: T) => boolean): Promise<AsyncIterableIterator<T>> {
  const subscription = ctx.events.subscribe<T>(topic);
  try {
    await subscription.ready;
  } catch {
    await subscription.return?.();
    throw new AppError('SERVICE_UNAVAILABLE', 'live events are unavailable for the moment: the event bus (Redis) does not answer; subscribe again later');
  }
  return keep ? filtered(subscription, keep) : subscription;
}

// Not an async generator: its return() would wait for the pending next(), which may never come.
function filtered<T>(subscription: Subscription<T>, keep: (event: T) => boolean): AsyncIterableIterator<T> {
  return {
    async next() {
      for (;;) {
        const r = await subscription.next();
        if (r.done || keep(r.value)) return r;
      }
    },
    return: () => subscription.return!(),
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
