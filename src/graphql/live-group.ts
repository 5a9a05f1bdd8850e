// What live.ts's hub is made of: one event serialized once per transport, a member's sink and
// slot, and the group of identical subscriptions that executes each event once for all its members.
import type { ExecutionResult, GraphQLError } from 'graphql';
import type { Caller } from '../auth/caller.js';
import type { Resource } from '../domain/entitlements.js';
import type { LiveHold } from '../context.js';
import type { StreamMark, StreamPolicy } from '../runtime/events.js';
import { AppError, toGraphQLError } from '../errors.js';
import type { LiveHub } from './live.js';

/** Delivery work between two turns of the event loop, so /healthz and every other socket are served. */
export const TURN_BUDGET_MS = 10;

/** One event of a group, serialized at most once per transport, on first use. */
export class LiveEvent {
  #json: string | undefined;
  #sse: Buffer | undefined;
  #ws: string | undefined;
  constructor(
    readonly result: ExecutionResult,
    /** Where it stands in the stream (its SSE `id:`, a slow consumer's last position), when the bus marked it. */
    readonly mark?: StreamMark,
  ) {}

  /** The SSE `next` event, as Yoga's SSE processor writes it (no internal error extensions), with its position as `id:`. */
  sse(): Buffer {
    return (this.#sse ??= Buffer.from(
      `${this.mark ? `id: ${this.mark.position}\n` : ''}event: next\ndata: ${this.result.errors?.length ? JSON.stringify(withErrors(this.result, ['http', 'unexpected'])) : this.#plain()}\n\n`,
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
  /** The mark of the last event handed to the connection, if any was marked. */
  delivered(): StreamMark | undefined;
}

/**
 * One running subscription, counted against the caps from the moment its field subscribed.
 * `key` names its group: the same document, operation, variables and caller tier.
 */
export class LiveSlot implements LiveHold {
  member: Member | undefined;
  pulled: StreamMark | undefined;
  /** The caller's tier as the last rights round read it. */
  tier: Caller['tier'];
  #released = false;
  constructor(
    readonly hub: LiveHub,
    readonly caller: Caller,
    readonly resource: Resource,
    readonly key: string,
    /** The symbols the subscription names, counted against SUBSCRIPTION_SYMBOLS_PER_CALLER. */
    readonly symbols: number,
    readonly policy: StreamPolicy,
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
    else this.end(slowConsumer(this.hub.bufferBytes, this.sink.delivered()));
  }

  flush(): void {
    if (!this.ended && !this.sink.flush()) this.end(slowConsumer(this.hub.bufferBytes, this.sink.delivered()));
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

const slowConsumer = (bytes: number, last: StreamMark | undefined) =>
  new AppError(
    'SLOW_CONSUMER',
    `this subscription left more than ${bytes} bytes of events unread (SUBSCRIPTION_BUFFER_BYTES) and was ended; ${last ? `the last event delivered was at position ${last.position}: resume \`after\` it, ` : ''}read faster, subscribe to less, or ask for \`policy: LATEST\``,
    {},
    last ? { lastPosition: String(last.position) } : {},
  );

/** Identical subscriptions: one source stream, executed once per event for all members. */
export class Group {
  readonly members = new Set<Member>();
  #closed = false;
  constructor(
    private readonly hub: LiveHub,
    readonly key: string,
    private readonly source: AsyncIterator<ExecutionResult>,
    /** The slot whose stream is the source: it holds the mark of the event just pulled. */
    private readonly sourceSlot: LiveSlot,
  ) {}

  async pump(): Promise<void> {
    let failure: AppError | undefined;
    try {
      for (;;) {
        await this.hub.pace();
        const r = await this.source.next();
        if (r.done || this.#closed) break;
        const event = new LiveEvent(r.value, this.sourceSlot.pulled);
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
