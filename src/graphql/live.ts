// Live subscriptions, whatever their transport (SSE here, WebSocket in graphql/ws.ts): counted against
// per-user and per-instance caps; identical ones grouped, so an event is executed and serialized
// once per group and handed to every member; members that leave their events unread dropped; and
// every member's rights checked against the database every AUTH_CACHE_SECONDS / 2.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { DocumentNode, ExecutionArgs, ExecutionResult, GraphQLError } from 'graphql';
import { isAsyncIterable, type FetchAPI, type Plugin } from 'graphql-yoga';
import type { Caller, CallerCache } from '../auth/caller.js';
import { checkEntitled, type Resource } from '../domain/entitlements.js';
import type { SubscriptionConfig } from '../config.js';
import type { Context, LiveHold, LiveSubscriptions } from '../context.js';
import type { Db } from '../db/client.js';
import { AppError, toGraphQLError } from '../errors.js';
import type { Logger } from '../observability/log.js';
import { currentRights } from '../services/account.js';

/** Seconds a client refused by a cap is asked to wait: a slot frees when any subscription ends. */
export const SUBSCRIPTION_RETRY_AFTER_SECONDS = 10;
/** Delivery work between two turns of the event loop, so /healthz and every other socket are served. */
const TURN_BUDGET_MS = 10;

/** One event of a group, serialized at most once per transport, on first use. */
export class LiveEvent {
  #json: string | undefined;
  #sse: Buffer | undefined;
  #ws: string | undefined;
  constructor(readonly result: ExecutionResult) {}

  /** The SSE `next` event, as Yoga's SSE processor writes it (no internal error extensions). */
  sse(): Buffer {
    return (this.#sse ??= Buffer.from(
      `event: next\ndata: ${this.result.errors?.length ? JSON.stringify(withErrors(this.result, ['http', 'unexpected'])) : this.#plain()}\n\n`,
    ));
  }

  /** The `payload` of a graphql-ws `next` message, as graphql/ws.ts formats it (no `http` extension). */
  ws(): string {
    return (this.#ws ??= this.result.errors?.length
      ? JSON.stringify(withErrors(this.result, ['http']))
      : this.#plain());
  }

  #plain(): string {
    return (this.#json ??= JSON.stringify(this.result));
  }
}

function withErrors(result: ExecutionResult, internal: readonly string[]): ExecutionResult {
  const strip = (e: GraphQLError) => {
    const json = e.toJSON();
    if (!json.extensions) return json;
    const extensions = Object.fromEntries(Object.entries(json.extensions).filter(([k]) => !internal.includes(k)));
    return { ...json, extensions: Object.keys(extensions).length ? extensions : undefined };
  };
  return { ...result, errors: result.errors!.map(strip) as unknown as GraphQLError[] };
}

/** The coded error event that ends a subscription, as both transports write errors. */
export function errorPayload(error: AppError): string {
  return JSON.stringify({ errors: [toGraphQLError(error)] });
}

/** Where a member's events go: an SSE stream or a WebSocket operation. */
export interface Sink {
  /** Takes one event; false when the client has left more than SUBSCRIPTION_BUFFER_BYTES unread. */
  deliver(event: LiveEvent): boolean;
  /** Passes taken events on, once per turn of delivery; false as for `deliver`. */
  flush(): boolean;
  /** The last event: this coded error, then the end of the stream. */
  fail(error: AppError): void;
  /** The end of the stream (the events taken are still passed on). */
  complete(): void;
}

/**
 * One running subscription, counted against the caps from the moment its field subscribed.
 * `key` names its group: the same document, operation, variables and caller tier.
 */
export class LiveSlot implements LiveHold {
  member: Member | undefined;
  /** The caller's tier as the last rights round read it. */
  tier: Caller['tier'];
  #released = false;
  constructor(
    readonly hub: LiveHub,
    readonly caller: Caller,
    readonly resource: Resource,
    readonly key: string,
  ) {
    this.tier = caller.tier;
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.hub.released(this);
  }
}

/** A slot joined to its group, delivering to its sink until the client leaves or it is ended. */
export class Member {
  ended = false;
  constructor(
    private readonly hub: LiveHub,
    readonly slot: LiveSlot,
    readonly group: Group,
    readonly sink: Sink,
  ) {
    slot.member = this;
  }

  deliver(event: LiveEvent): void {
    if (this.ended) return;
    if (this.sink.deliver(event)) this.hub.dirty(this);
    else this.end(slowConsumer(this.hub.bufferBytes));
  }

  flush(): void {
    if (!this.ended && !this.sink.flush()) this.end(slowConsumer(this.hub.bufferBytes));
  }

  /** Ends it from the server's side: with a coded error event, or (without) as its stream ended. */
  end(error?: AppError): void {
    if (!this.#detach()) return;
    if (error) this.sink.fail(error);
    else this.sink.complete();
  }

  /** The client went away (cancelled its stream, completed the operation, closed the socket). */
  leave(): void {
    this.#detach();
  }

  #detach(): boolean {
    if (this.ended) return false;
    this.ended = true;
    this.group.remove(this);
    this.hub.forget(this);
    this.slot.release();
    return true;
  }
}

const slowConsumer = (bytes: number) =>
  new AppError(
    'SLOW_CONSUMER',
    `this subscription left more than ${bytes} bytes of events unread (SUBSCRIPTION_BUFFER_BYTES) and was ended; read faster, or subscribe to less`,
  );

/** Identical subscriptions: one source stream, executed once per event for all members. */
export class Group {
  readonly members = new Set<Member>();
  #closed = false;
  constructor(
    private readonly hub: LiveHub,
    readonly key: string,
    private readonly source: AsyncIterator<ExecutionResult>,
  ) {}

  async pump(): Promise<void> {
    let failure: AppError | undefined;
    try {
      for (;;) {
        await this.hub.pace();
        const r = await this.source.next();
        if (r.done || this.#closed) break;
        const event = new LiveEvent(r.value);
        for (const member of this.members) member.deliver(event);
      }
    } catch (e) {
      failure = e instanceof AppError ? e : this.hub.unexpected(e);
    }
    this.close();
    for (const member of [...this.members]) member.end(failure);
  }

  remove(member: Member): void {
    this.members.delete(member);
    if (this.members.size === 0) this.close();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.hub.closed(this);
    void Promise.resolve(this.source.return?.()).catch(() => {});
  }
}

/** Serves one live subscription over HTTP (graphql/sse.ts). */
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
  readonly #perUser = new Map<string, number>();
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

  /** Counts a subscription of `caller` against the caps, or refuses it with the cap's coded error. */
  reserve(caller: Caller, resource: Resource, key: string): LiveSlot {
    const { perCaller, perInstance } = this.deps.config;
    const retryAfter = { 'retry-after': String(SUBSCRIPTION_RETRY_AFTER_SECONDS) };
    const held = this.#perUser.get(caller.userId) ?? 0;
    if (held >= perCaller) {
      throw new AppError(
        'TOO_MANY_SUBSCRIPTIONS',
        `a user may hold ${perCaller} live subscriptions at once (SUBSCRIPTIONS_PER_CALLER, all its keys and sessions together); this one holds ${held}: end one first`,
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
    this.#perUser.set(caller.userId, held + 1);
    this.#slots++;
    return new LiveSlot(this, caller, resource, key);
  }

  released(slot: LiveSlot): void {
    this.#slots--;
    const held = (this.#perUser.get(slot.caller.userId) ?? 1) - 1;
    if (held > 0) this.#perUser.set(slot.caller.userId, held);
    else this.#perUser.delete(slot.caller.userId);
  }

  /**
   * Makes `slot` a member of its group, delivering to `sink`. `result` is its own stream of
   * results (Yoga's, every plugin applied): the group's source if it is the first, else returned
   * at once, since the group listens already.
   */
  attach(slot: LiveSlot, result: AsyncIterable<ExecutionResult>, sink: Sink): Member {
    const own = result[Symbol.asyncIterator]();
    const existing = this.#groups.get(slot.key);
    const group = existing ?? new Group(this, slot.key, own);
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
