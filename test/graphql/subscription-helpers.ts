// Clients and fixtures the subscription suites share: SSE streams read as graphql-sse reads them,
// graphql-ws clients whose operations and socket closes are recorded, a bus that counts what is
// listening, and trade records in the import's shape.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import type { App } from '../../src/app.js';
import { memoryEventBus, type EventBus, type Topics } from '../../src/runtime/events.js';
import { attachWebSocket } from '../../src/graphql/ws.js';

// ------------------------------------------------------------------ records, as the import reads them

/** NDJSON with bigints written as bare digits, as a vendor's feed carries 19-digit timestamps. */
export const ndjson = (records: object[]) =>
  `${records
    .map((r) => JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? `#${v}#` : v)).replace(/"#(\d+)#"/g, '$1'))
    .join('\n')}\n`;

export const SIP = 1_795_208_399_869_397_596n; // 19 digits: no double holds it
export const SEQ = 9_007_199_254_740_993n; // 2^53 + 1

export const trade = (symbol: string, sequence: bigint, sip = SIP) => ({
  symbol,
  conditions: [12, 37],
  exchange: 4,
  id: `t${sequence}`,
  price: 412.5,
  sequence_number: sequence,
  sip_timestamp: sip,
  size: 100,
  tape: 3,
});

// ------------------------------------------------------------------ SSE

export interface EventStream {
  response: Response;
  /** The data of the next `next` event (fails after `ms`). */
  next(ms?: number): Promise<any>;
  /** The next `next` event with its `id:` (empty when it has none), data parsed (fails after `ms`). */
  event(ms?: number): Promise<{ id: string; data: any }>;
  /** Resolves once the server ended the stream with `event: complete`. */
  completed(ms?: number): Promise<void>;
  /** Every event up to the end of the stream, `next` data parsed (fails after `ms`). */
  rest(ms?: number): Promise<{ event: string; data: any; id?: string }[]>;
  cancel(): Promise<void>;
}

export function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms))),
  ]).finally(() => clearTimeout(timer));
}

export const fetchOf = (app: App) => async (url: string, init: RequestInit) => app.fetch(url, init);

/**
 * A subscription over SSE (POST, Accept: text/event-stream), as graphql-sse and curl -N send it.
 * Nothing is read until asked for: a stream nobody reads is a client that does not read.
 */
export async function sse(
  fetchFn: (url: string, init: RequestInit) => Promise<Response>,
  base: string,
  query: string,
  headers: Record<string, string>,
  variables?: object,
): Promise<EventStream> {
  const response = await fetchFn(`${base}/graphql`, {
    method: 'POST',
    headers: { accept: 'text/event-stream', 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  // decoded here, not through a TextDecoderStream: cancelling a piped stream reaches the body only
  // when something more is written to it, where a client closing its connection ends it at once
  // taken on the first read: a body cancelled before anything was read is cancelled as a whole
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  const decoder = new TextDecoder();
  let buffer = '';
  const read = async (): Promise<{ event: string; data: string; id: string } | undefined> => {
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (block.startsWith(':')) continue; // keep-alive ping
        const field = (name: string) =>
          block
            .split('\n')
            .find((l) => l.startsWith(`${name}:`))
            ?.slice(name.length + 1)
            .trim() ?? '';
        return { event: field('event'), data: field('data'), id: field('id') };
      }
      const { value, done } = await (reader ??= response.body!.getReader()).read();
      if (done) return undefined;
      buffer += decoder.decode(value, { stream: true });
    }
  };
  const until = async (event: string) => {
    for (;;) {
      const e = await read();
      if (!e) throw new Error(`the stream ended before an event "${event}"`);
      if (e.event === event) return e;
    }
  };
  const rest = async () => {
    const events: { event: string; data: any; id?: string }[] = [];
    for (let e = await read(); e; e = await read())
      events.push({
        event: e.event,
        data: e.event === 'next' ? JSON.parse(e.data) : e.data,
        ...(e.id ? { id: e.id } : {}),
      });
    return events;
  };
  return {
    response,
    next: async (ms = 5_000) => JSON.parse((await within(until('next'), ms, 'next event')).data),
    event: async (ms = 5_000) => {
      const e = await within(until('next'), ms, 'next event');
      return { id: e.id, data: JSON.parse(e.data) };
    },
    completed: async (ms = 5_000) => void (await within(until('complete'), ms, 'complete event')),
    rest: (ms = 10_000) => within(rest(), ms, 'end of the stream'),
    cancel: () => (reader ? reader.cancel() : response.body!.cancel()),
  };
}

/**
 * An in-process bus that counts the subscriptions not ended yet (what a client that goes away must
 * release), and every one ever made (a subscription field started).
 */
export function countingBus(): { bus: EventBus; open(): number; started(): number } {
  const inner = memoryEventBus();
  let open = 0;
  let started = 0;
  return {
    open: () => open,
    started: () => started,
    bus: {
      ...inner,
      subscribe<T>(topic: Topics) {
        const sub = inner.subscribe<T>(topic);
        const end = sub.return!.bind(sub);
        let ended = false;
        open++;
        started++;
        sub.return = () => {
          if (!ended) (ended = true), open--;
          return end();
        };
        return sub;
      },
    },
  };
}

// ------------------------------------------------------------------ WebSocket

export interface WsOperation {
  results: any[];
  error: unknown;
  done: boolean;
  dispose(): void;
}

/** graphql-ws clients of one server (`url` read when a client is made); `disposeAll` ends them. */
export function wsClients(url: () => string) {
  const clients: Client[] = [];
  return {
    /**
     * A client whose socket-level close (code, reason) is recorded; `headers` go on the upgrade
     * request. Lazy (the default): it connects for its first operation and closes after its last.
     */
    client(connectionParams?: Record<string, unknown>, headers?: Record<string, string>, { lazy = true } = {}) {
      const closed: { code?: number; reason?: string } = {};
      const Impl = headers
        ? class extends WebSocket {
            constructor(address: string, protocols?: string | string[]) {
              super(address, protocols, { headers });
            }
          }
        : WebSocket;
      const c = createClient({
        url: url(),
        webSocketImpl: Impl,
        connectionParams,
        retryAttempts: 0,
        lazy,
        onNonLazyError: () => {},
        on: {
          closed: (e) => Object.assign(closed, { code: (e as CloseEvent).code, reason: (e as CloseEvent).reason }),
        },
      });
      clients.push(c);
      return { client: c, closed };
    },
    /** One operation's messages: results, and the error or completion that ended it. */
    run(c: Client, query: string, variables?: Record<string, unknown>): WsOperation {
      const state = { results: [] as any[], error: undefined as unknown, done: false };
      const dispose = c.subscribe(
        { query, ...(variables ? { variables } : {}) },
        {
          next: (r) => void state.results.push(r),
          error: (e) => void ((state.error = e), (state.done = true)),
          complete: () => void (state.done = true),
        },
      );
      return Object.assign(state, { dispose });
    },
    disposeAll: () => Promise.all(clients.map((c) => c.dispose())),
  };
}

/** `app` on a port of 127.0.0.1 with graphql-ws attached: the ws:// URL, and a close for afterAll. */
export async function listening(app: App): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(app);
  const socket = attachWebSocket(server, app, { isProd: false });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`,
    async close() {
      await socket.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
