// Live subscriptions, whatever their transport (SSE here, WebSocket in graphql/ws.ts): counted against
// per-user and per-instance caps; identical ones grouped, so an event is executed and serialized
// once per group and handed to every member; members that leave their events unread dropped; and
// every member's rights checked against the database every AUTH_CACHE_SECONDS / 2.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { DocumentNode, ExecutionArgs, ExecutionResult } from 'graphql';
import { isAsyncIterable, type FetchAPI, type Plugin } from 'graphql-yoga';
import type { Caller, CallerCache } from '../auth/caller.js';
import { checkEntitled, type Resource } from '../domain/entitlements.js';
import type { SubscriptionConfig } from '../config.js';
import type { Context, LiveSubscriptions } from '../context.js';
import type { Db } from '../db/client.js';
import { AppError } from '../errors.js';
import type { Logger } from '../observability/log.js';
import type { StreamPolicy } from '../runtime/events.js';
import { currentRights } from '../services/account.js';
import { Group, LiveSlot, Member, type Sink, TURN_BUDGET_MS } from './live-group.js';

/** Seconds a client refused by a cap is asked to wait: a slot frees when any subscription ends. */
export const SUBSCRIPTION_RETRY_AFTER_SECONDS = 10;
export type LiveStreamServer = (live: {
  hub: LiveHub;
  slot: LiveSlot;
  result: AsyncIterable<ExecutionResult>;
  ctx: Context;
  fetchAPI: FetchAPI;
}) => Response;

export interface LiveHubDeps {
  config: Readonly<SubscriptionConfig>;
  /** How long a credential may be believed without asking the database (AUTH_CACHE_SECONDS). */
  callerCacheMs: number;
  db: Db;
  callers: CallerCache;
  logger: Logger;
}

/** The slot a subscription of this request holds, once its field subscribed (schema/common.ts liveEvents). */
export function liveSlotOf(ctx: Pick<Context, 'liveSlot'>): LiveSlot | undefined {
  const slot = ctx.liveSlot.current;
  return slot instanceof LiveSlot ? slot : undefined;
}

/** The live subscriptions of one app (one instance): caps, groups, delivery and the rights rounds. */
export class LiveHub implements LiveSubscriptions {
  readonly bufferBytes: number;
  readonly #groups = new Map<string, Group>();
  readonly #members = new Set<Member>();
  /** What each user holds: subscriptions, and the symbols they name (caps of their own). */
  readonly #perUser = new Map<string, { subscriptions: number; symbols: number }>();
  #slots = 0;
  readonly #documents = new WeakMap<DocumentNode, number>();
  #documentCount = 0;
  readonly #dirty = new Set<Member>();
  #flushing = false;
  #turnStarted = performance.now();
  #turn: Promise<void> | undefined;
  #rounds: NodeJS.Timeout | undefined;
  #checking: Promise<void> | undefined;

  constructor(private readonly deps: LiveHubDeps) {
    this.bufferBytes = deps.config.bufferBytes;
  }

  /** Live subscriptions now, and how many groups execute their events. */
  get stats(): { subscriptions: number; groups: number } {
    return { subscriptions: this.#slots, groups: this.#groups.size };
  }

  /** The group of a subscription about to start: its document, operation, variables and tier. */
  groupKey(args: Pick<ExecutionArgs, 'document' | 'operationName' | 'variableValues'>, tier: string): string {
    let document = this.#documents.get(args.document);
    // Yoga's parse cache hands the same DocumentNode to every request sending the same text
    if (document === undefined) this.#documents.set(args.document, (document = ++this.#documentCount));
    return `${document}\u0000${args.operationName ?? ''}\u0000${tier}\u0000${JSON.stringify(args.variableValues ?? {})}`;
  }

  /**
   * Counts a subscription of `caller` naming `symbols` symbols against the caps, or refuses it
   * with the cap's coded error. A subscription counts once whatever the symbols it names; the
   * symbols count apart, so a 25-symbol watchlist is one subscription and 25 symbols.
   */
  reserve(caller: Caller, resource: Resource, key: string, symbols: number, policy: StreamPolicy): LiveSlot {
    const { perCaller, symbolsPerCaller, perInstance } = this.deps.config;
    const retryAfter = { 'retry-after': String(SUBSCRIPTION_RETRY_AFTER_SECONDS) };
    const held = this.#perUser.get(caller.userId) ?? { subscriptions: 0, symbols: 0 };
    if (held.subscriptions >= perCaller) {
      throw new AppError(
        'TOO_MANY_SUBSCRIPTIONS',
        `a user may hold ${perCaller} live subscriptions at once (SUBSCRIPTIONS_PER_CALLER, all its keys and sessions together); this one holds ${held.subscriptions}: end one first`,
        retryAfter,
      );
    }
    if (held.symbols + symbols > symbolsPerCaller) {
      throw new AppError(
        'TOO_MANY_SUBSCRIPTIONS',
        `a user's live subscriptions may name ${symbolsPerCaller} symbols at once (SUBSCRIPTION_SYMBOLS_PER_CALLER, all its keys and sessions together); the user's subscriptions name ${held.symbols} already, this one ${symbols}: end one or name fewer`,
        retryAfter,
      );
    }
    if (this.#slots >= perInstance) {
      throw new AppError(
        'SUBSCRIPTIONS_FULL',
        `this instance serves its maximum of ${perInstance} live subscriptions (SUBSCRIPTIONS_PER_INSTANCE); retry in ${SUBSCRIPTION_RETRY_AFTER_SECONDS} s`,
        retryAfter,
      );
    }
    this.#perUser.set(caller.userId, { subscriptions: held.subscriptions + 1, symbols: held.symbols + symbols });
    this.#slots++;
    return new LiveSlot(this, caller, resource, key, symbols, policy);
  }

  released(slot: LiveSlot): void {
    this.#slots--;
    const held = this.#perUser.get(slot.caller.userId);
    if (!held || held.subscriptions <= 1) this.#perUser.delete(slot.caller.userId);
    else
      this.#perUser.set(slot.caller.userId, {
        subscriptions: held.subscriptions - 1,
        symbols: held.symbols - slot.symbols,
      });
  }

  /**
   * Makes `slot` a member of its group, delivering to `sink`. `result` is its own stream of
   * results (Yoga's, every plugin applied): the group's source if it is the first, else returned
   * at once, since the group listens already.
   */
  attach(slot: LiveSlot, result: AsyncIterable<ExecutionResult>, sink: Sink): Member {
    const own = result[Symbol.asyncIterator]();
    const existing = this.#groups.get(slot.key);
    const group = existing ?? new Group(this, slot.key, own, slot);
    const member = new Member(this, slot, group, sink);
    group.members.add(member);
    this.#members.add(member);
    if (existing) {
      void Promise.resolve(own.return?.()).catch(() => {});
    } else {
      this.#groups.set(slot.key, group);
      void group.pump();
    }
    this.#rounds ??= setInterval(() => void this.checkRights(), Math.max(250, this.deps.callerCacheMs / 2)).unref();
    return member;
  }

  forget(member: Member): void {
    this.#members.delete(member);
    this.#dirty.delete(member);
    if (this.#members.size === 0 && this.#rounds) {
      clearInterval(this.#rounds);
      this.#rounds = undefined;
    }
  }

  closed(group: Group): void {
    if (this.#groups.get(group.key) === group) this.#groups.delete(group.key);
  }

  /** A member took events: pass them on once this turn of delivery is over. */
  dirty(member: Member): void {
    this.#dirty.add(member);
    if (this.#flushing) return;
    this.#flushing = true;
    setImmediate(() => {
      this.#flushing = false;
      const members = [...this.#dirty];
      this.#dirty.clear();
      for (const m of members) m.flush();
    });
  }

  /**
   * Undefined while this turn of delivery is within its budget; else a promise that resolves on
   * the next turn of the event loop (after I/O, timers and the flush), shared by every group.
   */
  pace(): Promise<void> | undefined {
    if (performance.now() - this.#turnStarted < TURN_BUDGET_MS) return undefined;
    return (this.#turn ??= nextTurn().then(() => {
      this.#turn = undefined;
      this.#turnStarted = performance.now();
    }));
  }

  unexpected(e: unknown): AppError {
    this.deps.logger.error({ err: e }, 'a live event stream failed');
    return new AppError('INTERNAL', 'the live event stream failed; subscribe again');
  }

  /**
   * One round: the current rights of every member's credential, in one statement per kind of
   * record (services/account.ts). A member whose key, session or user no longer counts ends with
   * UNAUTHENTICATED, one whose tier lost its resource with FORBIDDEN; both before any further event.
   */
  checkRights(): Promise<void> {
    return (this.#checking ??= this.#round().finally(() => (this.#checking = undefined)));
  }

  async #round(): Promise<void> {
    const members = [...this.#members];
    if (members.length === 0) return;
    let rights;
    try {
      rights = await currentRights(
        this.deps.db,
        members.map((m) => m.slot.caller),
      );
    } catch (e) {
      // rights cannot be read: the streams go on, and the next round asks again
      this.deps.logger.warn({ err: e }, 'live subscriptions: the rights check could not read the database');
      return;
    }
    const changed = new Set<string>();
    members.forEach((member, i) => {
      const now = rights[i]!;
      const slot = member.slot;
      if (now.valid && now.tier === slot.tier) return;
      changed.add(slot.caller.userId);
      if (member.ended) return;
      if (!now.valid) return member.end(new AppError('UNAUTHENTICATED', `${now.reason}; this subscription has ended`));
      slot.tier = now.tier;
      try {
        checkEntitled({ tier: now.tier }, slot.resource);
      } catch (e) {
        member.end(e as AppError);
      }
    });
    // new requests on this instance then read the change too, not a cached caller
    for (const userId of changed) this.deps.callers.forgetUser(userId);
  }

  /**
   * Yoga's side: names the group of each subscription as it starts, and serves the SSE stream of
   * one whose field holds a slot (every field subscribing through schema/common.ts's liveEvents).
   */
  yogaPlugin(serve: LiveStreamServer): Plugin<Record<string, unknown>, { ctx?: Context }> {
    return {
      onSubscribe: ({ args }) => {
        const ctx = args.contextValue as Partial<Context>;
        if (ctx.liveSlot) ctx.liveSlot.key = this.groupKey(args, ctx.caller?.tier ?? '');
      },
      onResultProcess: ({ result, serverContext, resultProcessor, setResultProcessor }) => {
        const ctx = serverContext.ctx;
        const slot = ctx && liveSlotOf(ctx);
        if (!ctx || !slot || !isAsyncIterable(result)) return;
        // no processor takes a stream for this Accept (Yoga answers 406): the subscription ends here
        if (!resultProcessor) return void (result as AsyncIterable<ExecutionResult>)[Symbol.asyncIterator]().return?.();
        setResultProcessor(
          (r, fetchAPI) => serve({ hub: this, slot, result: r as AsyncIterable<ExecutionResult>, ctx, fetchAPI }),
          'text/event-stream',
        );
      },
    };
  }
}
