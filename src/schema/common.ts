import { randomUUID } from 'node:crypto';
import { checkAuthenticated, checkEntitled, type Resource } from '../domain/entitlements.js';
import { builder } from '../builder.js';
import { Loaders, type Context, type LiveHold } from '../context.js';
import { INT32, int64, isInt32 } from '../domain/integers.js';
import { AppError } from '../errors.js';
import { markOf, type Resume, type StreamPolicy, type Subscription, type Topics } from '../runtime/events.js';
import type { Direction, KeysetArgs } from '../services/paging.js';
import { connection, type PageConnection } from '../graphql/connection.js';
import type { WorkExtension } from '../graphql/cost.js';
import { SYMBOL_PATTERN } from '../domain/symbols.js';
import { inclusiveEnd, inclusiveStart } from '../domain/time.js';

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

/**
 * The options of a list's `first` argument: its description, and its page size for the cost
 * analysis (src/graphql/cost.ts counts the list at the size asked for, else at the default).
 */
export function firstArg(size: PageSize) {
  return {
    description: `How many items to return: 1 to ${size.max}, default ${size.default}.`,
    extensions: { pageSize: size },
  };
}

/** Cursor arguments, the same on every list. */
export const AFTER_DESCRIPTION = 'Cursor (an `endCursor` or edge `cursor` of this list): return the items after it.';
export const BEFORE_DESCRIPTION = 'Cursor (a `startCursor` or edge `cursor` of this list): return the items before it.';

/**
 * A connection's paging arguments, Relay's four, the same on every list (docs/graphql.md#paging):
 * `first`/`after` page forward, `last`/`before` backward; both counts hold to the list's page size.
 */
export function pagingArgs(size: PageSize) {
  return builder.args((t) => ({
    first: t.int(firstArg(size)),
    after: t.string({ description: AFTER_DESCRIPTION }),
    last: t.int({
      description: `How many items to return from the end (of the list, or of the items before \`before\`): 1 to ${size.max}; not with \`first\`.`,
      extensions: { pageSize: size },
    }),
    before: t.string({ description: BEFORE_DESCRIPTION }),
  }));
}

/** The paging arguments as coerced. */
export interface PagingInput {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

/**
 * The page the paging arguments ask for, checked: `first` and `last` together are a BAD_REQUEST
 * (Relay discourages it, and its answer would surprise); without either, a page of the default
 * size, backward when only `before` is given (the items just before it), else forward.
 */
export function keysetArgs(args: PagingInput, size: PageSize): KeysetArgs {
  const cursors = { after: args.after ?? undefined, before: args.before ?? undefined };
  const [first, last] = [args.first ?? undefined, args.last ?? undefined];
  if (first !== undefined && last !== undefined)
    throw new AppError(
      'BAD_REQUEST',
      `give "first" (to page forward) or "last" (to page backward), not both; got first: ${first} and last: ${last}`,
    );
  if (last !== undefined || (first === undefined && cursors.before !== undefined && cursors.after === undefined))
    return { last: checkFirst(last, size, 'last'), ...cursors };
  return { first: checkFirst(first, size), ...cursors };
}

/**
 * The `extensions` of a list field without `first` that the schema's own code bounds: its largest
 * size (and the list argument it has one item per, if any), for the cost analysis (src/graphql/cost.ts). A stored record's child lists need none: the
 * import's limits bound them (FIELD_LIST_KINDS in src/domain/limits.ts).
 */
export function listOf(max: number, itemsOf?: string) {
  return { listSize: { max, ...(itemsOf ? { itemsOf } : {}) } };
}

/**
 * The connection type of `type`, whose `nodes` resolves from the page's rows: the Relay plugin's
 * own resolves them through an edge object per row, made even when a query selects no edge. A
 * `count` of its own replaces the global `totalCount` (builder.ts): its description, and the work
 * the cost analysis charges for it (graphql/cost.ts WorkExtension).
 */
export function connectionType<T extends Parameters<typeof builder.connectionObject>[0]['type']>(
  type: T,
  name: string,
  count?: { description: string; work: WorkExtension },
) {
  return builder.connectionObject({
    type,
    name,
    fields: (t) => ({
      nodes: t.field({ type: [type] as never, resolve: (con) => (con as unknown as PageConnection<never>).nodes }),
      ...(count && {
        totalCount: t.int({
          nullable: true,
          description: count.description,
          extensions: { work: count.work },
          resolve: (con) => (con as unknown as PageConnection<never>).totalCount?.() ?? null,
        }),
      }),
    }),
  });
}

export type ConnectionShape = ReturnType<typeof connection>;
export { connection };

export const SortOrder = builder.enumType('SortOrder', {
  description: 'Direction of a time-ordered list.',
  values: {
    ASC: { value: 'asc', description: 'Oldest first.' },
    DESC: { value: 'desc', description: 'Newest first.' },
  } as const,
});

/**
 * A time range's arguments as the lists read them: a date alone (domain/time.ts) as `to` reaches the
 * end of its day, as REST reads it; `from` after `to` selects nothing by construction, so it is refused.
 */
export function readRange(from: Date, to: Date, names?: readonly [string, string]): { from: Date; to: Date };
export function readRange(
  from: Date | null | undefined,
  to: Date | null | undefined,
  names?: readonly [string, string],
): { from: Date | undefined; to: Date | undefined };
export function readRange(
  from: Date | null | undefined,
  to: Date | null | undefined,
  names: readonly [string, string] = ['from', 'to'],
): { from: Date | undefined; to: Date | undefined } {
  const range = { from: from ? inclusiveStart(from) : undefined, to: to ? inclusiveEnd(to) : undefined };
  if (range.from && range.to && range.from.getTime() > range.to.getTime()) {
    throw new AppError(
      'BAD_REQUEST',
      `argument "${names[0]}" (${range.from.toISOString()}) is after "${names[1]}" (${range.to.toISOString()})`,
    );
  }
  return range;
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

/** A symbol argument, the same on every field: the rule is domain/symbols.ts's. */
export const SYMBOL_DESCRIPTION = 'Ticker symbol: 1 to 20 characters of A-Z 0-9 . - (case-insensitive).';

/**
 * The record part of a global id is not of the form its type issues. Thrown by a node type's
 * `findUnique`; node and nodes (schema/node.ts) put the argument's name in front.
 */
export class NodeIdError extends AppError {
  constructor(id: string, typename: string, form: string) {
    super(
      'BAD_REQUEST',
      `${JSON.stringify(id.length > 100 ? `${id.slice(0, 100)}…` : id)} is not the id of a ${typename} (${form})`,
    );
  }
}

/**
 * The record id inside a Relay global id of a type keyed by an integer (a 32-bit column). The
 * Prisma plugin would parseInt it and hand NaN, or a number the column cannot hold, to the database.
 */
export function intNodeId(id: string, typename: string): number {
  const n = /^-?\d{1,10}$/.test(id) ? Number(id) : NaN;
  if (!isInt32(n)) throw new NodeIdError(id, typename, `an integer from ${INT32.min} to ${INT32.max}`);
  return n;
}

/**
 * The key inside the global id of a trade or quote: the JSON pair `["<symbol>","<sequence number>"]`
 * the Prisma plugin writes for their compound key, checked part by part.
 */
export function tickNodeId(id: string, typename: string): { symbol: string; sequenceNumber: bigint } {
  const bad = () =>
    new NodeIdError(
      id,
      typename,
      'a JSON pair ["<symbol>", "<sequence number>"] of a symbol and a signed 64-bit integer',
    );
  let parts: unknown;
  try {
    parts = JSON.parse(id);
  } catch {
    throw bad();
  }
  if (!Array.isArray(parts) || parts.length !== 2) throw bad();
  const [symbol, sequence] = parts as unknown[];
  const sequenceNumber = typeof sequence === 'string' ? int64(sequence) : undefined;
  if (typeof symbol !== 'string' || !SYMBOL_PATTERN.test(symbol) || sequenceNumber === undefined) throw bad();
  return { symbol, sequenceNumber };
}

/**
 * What a subscription field listens to: its topics, and the symbols it names (what the per-user
 * symbol cap counts); where it resumes from and its policy for a slow client (schema/stream.ts).
 */
export interface LiveFeed {
  topics: Topics;
  symbols: number;
  resume?: Resume | undefined;
  policy?: StreamPolicy;
}

/**
 * The events of a feed's topics for a subscription field that needs `resource`, optionally only
 * those `keep` accepts. Counts once against the caps of graphql/live.ts (TOO_MANY_SUBSCRIPTIONS,
 * SUBSCRIPTIONS_FULL), its symbols apart, and holds its slot there, so its caller's rights are
 * checked while it runs.
 * Resolves once the bus listens (on Redis: once SUBSCRIBE is confirmed; on the database: once it knows the newest event), so a client that has its
 * response misses nothing stored after it. Ending the iterator (the client went away) unsubscribes.
 */
export async function liveEvents<T>(
  ctx: Context,
  resource: Resource,
  feed: LiveFeed,
  keep?: (event: T) => boolean,
): Promise<AsyncIterableIterator<T>> {
  const caller = ctx.caller;
  checkAuthenticated(caller);
  checkEntitled(caller, resource);
  // a resumed subscription replays for itself alone: it joins no group of identical ones
  const key = (!feed.resume && ctx.liveSlot.key) || randomUUID();
  const slot = ctx.live.reserve(caller, resource, key, feed.symbols, feed.policy ?? 'BUFFER');
  let subscription: Subscription<T>;
  try {
    subscription = feed.resume ? ctx.events.resume<T>(feed.topics, feed.resume) : ctx.events.subscribe<T>(feed.topics);
  } catch (e) {
    slot.release();
    throw e;
  }
  try {
    await subscription.ready;
  } catch (e) {
    await subscription.return?.();
    slot.release();
    // a start refused (REPLAY_TOO_OLD, a position past the newest) says why; a bus that failed does not
    if (e instanceof AppError) throw e;
    throw new AppError(
      'SERVICE_UNAVAILABLE',
      'live events are unavailable for the moment: the event bus (the table of live events in the database) does not answer; subscribe again later',
    );
  }
  ctx.liveSlot.current = slot;
  return perEvent(ctx, slot, keep ? filtered(subscription, keep) : subscription, () => {
    // a member (graphql/live.ts) releases its own slot when it ends
    if (!slot.member) slot.release();
  });
}

/**
 * Each event is executed with loaders of its own (a stream lives for hours, its rows change) and
 * within a time budget of its own (REQUEST_TIMEOUT_MS from the event, runtime/deadline.ts).
 */
function perEvent<T>(
  ctx: Context,
  slot: LiveHold,
  events: AsyncIterableIterator<T>,
  ended: () => void,
): AsyncIterableIterator<T> {
  return {
    async next() {
      const r = await events.next();
      if (!r.done) {
        ctx.loaders = new Loaders();
        ctx.deadline.restart();
        // the group that executes it reads where it stands here (graphql/live-group.ts)
        slot.pulled = markOf(r.value);
      }
      return r;
    },
    return: () => {
      ended();
      return events.return!();
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
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
