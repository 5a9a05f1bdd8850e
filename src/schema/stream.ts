// What every live subscription field shares about the stream it reads: where it starts (`after` a
// position, or `since` a time, replayed from the database), what happens when its client reads
// slower than events come (`policy`), and the fields that say where each event stands
// (docs/graphql.md#resuming-a-subscription).
import type { ObjectRef } from '@pothos/core';
import { builder } from '../builder.js';
import { computed } from '../graphql/plan/declare.js';
import { AppError } from '../errors.js';
import type { WorkExtension } from '../graphql/cost.js';
import { REPLAY_PAGE_ROWS } from '../domain/limits.js';
import { markOf, type Resume, type StreamPolicy } from '../runtime/events.js';

export const StreamPolicyEnum = builder.enumType('StreamPolicy', {
  description: 'What a subscription does when its client reads slower than its events come.',
  values: {
    BUFFER: {
      description:
        'Keep every event, up to SUBSCRIPTION_BUFFER_BYTES unread; past it the stream ends with SLOW_CONSUMER, whose `extensions.lastPosition` is the last event delivered: resume `after` it.',
    },
    LATEST: {
      description:
        'Keep only the newest unread event of each symbol: older unread ones of that symbol are replaced (their positions are skipped), so a slow client sees current prices and never falls behind.',
    },
  } as const,
});

/** The largest position a client may give: the sequence never nears it, and every smaller one is exact in JSON. */
const MAX_POSITION = BigInt(Number.MAX_SAFE_INTEGER);

export const streamArgs = builder.args((t) => ({
  after: t.field({
    type: 'BigInt',
    description:
      'Resume: replay the kept events after this `position` (of an event this field delivered), then go on live; each event once, in order. Not with `since`.',
  }),
  since: t.field({
    type: 'DateTime',
    description: 'Replay the kept events published at or after this time, then go on live. Not with `after`.',
  }),
  policy: t.field({
    type: StreamPolicyEnum,
    description: 'When the client reads slower than events come: BUFFER (the default) or LATEST.',
  }),
}));

/** The stream arguments as coerced. */
export interface StreamInput {
  after?: bigint | null;
  since?: Date | null;
  policy?: StreamPolicy | null;
}

/**
 * Where a subscription starts and its policy, checked: the one rule for every subscription field.
 * An SSE client that reconnects sends the `id:` of the last event it read as Last-Event-ID (the
 * EventSource standard): it counts as `after` when the document gives neither `after` nor `since`.
 */
export function streamOf(args: StreamInput, request?: Request): { resume?: Resume; policy: StreamPolicy } {
  const policy = args.policy ?? 'BUFFER';
  const last = request?.headers.get('last-event-id');
  if (last != null && last !== '' && args.after == null && args.since == null) {
    if (!/^\d{1,16}$/.test(last))
      throw new AppError(
        'BAD_REQUEST',
        `the Last-Event-ID header must be the \`id:\` of an event of this stream (a position, digits); got ${JSON.stringify(last.slice(0, 40))}`,
      );
    return streamOf({ ...args, after: BigInt(last) });
  }
  if (args.after != null && args.since != null)
    throw new AppError('BAD_REQUEST', 'give `after` or `since`, not both: each says where the replay starts');
  if (args.after != null) {
    if (args.after < 0n || args.after > MAX_POSITION)
      throw new AppError(
        'BAD_REQUEST',
        `\`after\` must be a position from 0 to ${MAX_POSITION} (the \`position\` of an event); got ${args.after}`,
      );
    return { resume: { after: Number(args.after) }, policy };
  }
  if (args.since != null) return { resume: { since: args.since.getTime() }, policy };
  return { policy };
}

/**
 * A resumed subscription reads its replay a page at a time as its client reads: charged as one
 * page of rows read (graphql/cost.ts), once, when it names `after` or `since`.
 */
export const REPLAY_WORK: WorkExtension = { units: REPLAY_PAGE_ROWS, whenArgs: ['after', 'since'], once: true };

/** Adds `position` and `replay` to an event type, read from the mark the event bus set (null from queries). */
export function addStreamFields(type: { name: string }): void {
  builder.objectFields(type as unknown as ObjectRef<Types, object>, (t) => ({
    position: t.field({
      type: 'BigInt',
      nullable: true,
      description:
        "This event's position in the live stream, given by the database in commit order (subscriptions only; null from queries): pass the last one received as `after` to resume.",
      ...computed([], (row: object) => {
        const m = markOf(row);
        return m ? BigInt(m.position) : null;
      }),
    }),
    replay: t.field({
      type: 'Boolean',
      nullable: true,
      description:
        'True for an event replayed from storage (`after`/`since`), false once the stream is live (subscriptions only; null from queries).',
      ...computed([], (row: object) => markOf(row)?.replay ?? null),
    }),
  }));
}

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;
