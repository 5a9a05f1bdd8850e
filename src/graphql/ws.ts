// GraphQL over WebSocket (the graphql-ws protocol) at /graphql, beside graphql/http.ts's HTTP transports:
// the same Yoga (schema, plugins, limits), the same caller resolution and rate limits.
import type { IncomingMessage, Server } from 'node:http';
import { GraphQLError, type ExecutionArgs, type ExecutionResult, type GraphQLFormattedError } from 'graphql';
import { isAsyncIterable } from 'graphql-yoga';
import { CloseCode, type SubscribePayload } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Context } from '../context.js';
import { knownError } from '../db/unavailable.js';
import { AppError, toGraphQLError } from '../errors.js';
import { requestUrl, type NodeServerContext } from '../http/node.js';
import { paramsError } from './input.js';
import type { StreamMark } from '../runtime/events.js';
import { errorPayload, type LiveEvent, type LiveSlot, type Sink } from './live-group.js';
import { liveSlotOf } from './live.js';
import {
  CLOSE_GRACE_MS,
  closeWith,
  MAX_MESSAGE_BYTES,
  reasonOf,
  socketLimits,
  type GuardedSocket,
  type SocketLimitsDeps,
} from './ws-limits.js';
import type { GraphQLServer } from './yoga.js';

/** Operations one connection may run at once; its live subscriptions count against the user's and the instance's caps too (graphql/live.ts). */
export const MAX_SUBSCRIPTIONS_PER_CONNECTION = 50;
/** How often a LATEST subscription's held events look for a drained socket. */
const DRAIN_CHECK_MS = 20;

type Params = Readonly<Record<string, unknown>> | undefined;

/** What the WebSocket transport shares with HTTP (app.ts implements it), so both serve one graph under one policy. */
export interface SocketGateway {
  /** Its schema, plugins and limits apply to operations over WebSocket too. */
  yoga: GraphQLServer;
  /**
   * The context of one WebSocket operation. `request` carries the connection's credentials as an
   * HTTP request would; the caller is authenticated and counted against the rate limit the same
   * way, and the same AppError (UNAUTHENTICATED, RATE_LIMITED ...) is thrown.
   */
  context(request: Request, serverContext: NodeServerContext): Promise<Context>;
  /** The caps on connections and the budget their unfinished messages are charged to (graphql/ws-limits.ts). */
  limits: SocketLimitsDeps;
  /** The client address of an upgrade request, as HTTP's requests have theirs (TRUST_PROXY). */
  address(upgrade: IncomingMessage): string;
}

export interface WebSocketOptions {
  /** graphql-ws then keeps internal error messages out of close reasons. */
  isProd: boolean;
}

/**
 * The upgrade request as the HTTP transport would see it, with the credentials of the
 * connection_init payload as headers: `{ apiKey }` is the X-API-Key header, `{ authorization }`
 * the Authorization header. Without them the upgrade's own credentials count (the session
 * cookie, an `apikey` or `apiKey` parameter in the URL), in the order of auth/caller.ts.
 */
export function connectionRequest(upgrade: IncomingMessage, params: Params): Request {
  const headers = new Headers();
  for (const name of ['host', 'origin', 'cookie', 'x-api-key', 'authorization', 'x-forwarded-for', 'user-agent']) {
    const value = upgrade.headers[name];
    if (typeof value === 'string') headers.set(name, value);
  }
  for (const [param, header] of [
    ['apiKey', 'x-api-key'],
    ['authorization', 'authorization'],
  ] as const) {
    const value = params?.[param];
    if (value === undefined) continue;
    if (typeof value !== 'string')
      throw new AppError(
        'BAD_REQUEST',
        `connectionParams.${param} must be a string; got ${JSON.stringify(value)?.slice(0, 40)}`,
      );
    headers.set(header, value);
  }
  // its URL from the request line, as every HTTP request's; its Host is checked with theirs (app.ts)
  return new Request(requestUrl(upgrade.url), { headers });
}

/** An error as Yoga sends it over HTTP: without the `http` extension Yoga keeps for itself. */
function formatted(e: GraphQLError): GraphQLFormattedError {
  const json = e.toJSON();
  if (!json.extensions || !('http' in json.extensions)) return json;
  const { http: _, ...extensions } = json.extensions;
  return { ...json, extensions };
}

/**
 * Serves graphql-ws at `/graphql` on `server`. A connection is authenticated at connection_init
 * (a wrong or missing credential closes it with 4401, the cookie from another site's page with
 * 4403); each operation is counted against the caller's rate limit as an HTTP request is. A live
 * subscription whose credential is found revoked ends, and the connection closes with 4401.
 * Connections are capped per address until authenticated and per user after (4429), and the
 * message each is sending is charged and paced as a body is (4408; graphql/ws-limits.ts).
 */
export function attachWebSocket(
  server: Server,
  app: { socket: SocketGateway },
  options: WebSocketOptions,
): { close(): Promise<void> } {
  const { yoga, context } = app.socket;
  // a larger message closes the connection (1009); `ws` would take 100 MiB
  // noServer: `ws` would re-emit the HTTP server's errors (a port in use) as its own, and graphql-ws
  // prints each with a stack; server.ts reports them in one line
  const wss = new WebSocketServer({ noServer: true, path: '/graphql', maxPayload: MAX_MESSAGE_BYTES });
  /** Each connection's place under the caps, from its upgrade. */
  const guarded = acceptUpgrades(server, wss, app.socket);
  /** Each connection's credentials, as onConnect accepted them, for its operations. */
  const requests = new WeakMap<WebSocket, Request>();

  useServer<Record<string, unknown>>(
    {
      isProd: options.isProd,
      async onConnect(ctx) {
        const { socket, request: upgrade } = ctx.extra;
        try {
          const request = connectionRequest(upgrade, ctx.connectionParams);
          const { caller } = await context(request, { req: upgrade });
          if (!caller)
            throw new AppError(
              'UNAUTHENTICATED',
              'authentication required: send connectionParams { apiKey } or { authorization: "Bearer <access token>" }',
            );
          guarded.get(socket)?.authenticated(caller.userId);
          requests.set(socket, request);
          return true;
        } catch (thrown) {
          const e = knownError(thrown);
          if (!e) throw thrown;
          closeWith(socket, e);
          return false;
        }
      },
      async onSubscribe(ctx, id, payload: SubscribePayload) {
        // ctx.subscriptions holds this one already
        if (Object.keys(ctx.subscriptions).length > MAX_SUBSCRIPTIONS_PER_CONNECTION) {
          return [
            toGraphQLError(
              new AppError(
                'RATE_LIMITED',
                `at most ${MAX_SUBSCRIPTIONS_PER_CONNECTION} operations run at once on one connection; complete one first`,
              ),
            ),
          ];
        }
        // as over HTTP (graphql/input.ts), before anything walks them
        const refused = paramsError(payload);
        if (refused) return [toGraphQLError(refused)];
        let operation: Context;
        try {
          operation = await context(requests.get(ctx.extra.socket)!, { req: ctx.extra.request });
        } catch (thrown) {
          const e = knownError(thrown);
          if (e) return [toGraphQLError(e)];
          throw thrown;
        }
        return executionArgs(yoga, operation, payload, ctx.extra.socket, id);
      },
      onNext: (_ctx, _id, _payload, _args, result) =>
        result.errors ? { ...result, errors: result.errors.map(formatted) } : undefined,
      onError: (_ctx, _id, _payload, errors) => errors.map(formatted),
      // the Yoga-enveloped execute/subscribe of onSubscribe: masking and every plugin apply
      execute: (args) => (args.rootValue as Root).execute(args),
      subscribe: async (args) => {
        const { socket, id, subscribe } = args.rootValue as Root;
        const result = await subscribe(args);
        const slot = liveSlotOf(args.contextValue as Context);
        return slot && isAsyncIterable(result) ? liveOperation(slot, result, socket, id) : result;
      },
    },
    wss,
  );

  return {
    /** Tells every client to go away (1001; their subscriptions complete) and stops accepting new ones. */
    async close() {
      for (const client of wss.clients) client.close(1001, 'server shutting down');
      const cut = setTimeout(() => {
        for (const client of wss.clients) client.terminate();
      }, CLOSE_GRACE_MS);
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      clearTimeout(cut);
    },
  };
}

/**
 * Hands `server`'s upgrades to `wss` (what `ws` does with `server`: another path is answered 400 by
 * handleUpgrade), each admitted under the caps first; returns each connection's place under them.
 */
function acceptUpgrades(
  server: Server,
  wss: WebSocketServer,
  gateway: Pick<SocketGateway, 'limits' | 'address'>,
): WeakMap<WebSocket, GuardedSocket> {
  const limits = socketLimits(gateway.limits);
  const guarded = new WeakMap<WebSocket, GuardedSocket>();
  server.on('upgrade', (req, socket, head) =>
    wss.handleUpgrade(req, socket, head, (ws) => {
      const guard = limits.admit(ws, socket, gateway.address(req));
      if (!guard) return;
      guarded.set(ws, guard);
      wss.emit('connection', ws, req);
      // what `ws` reports on a socket is the client's fault (a message past maxPayload, a broken
      // frame), and it has closed the socket with the code that says so (1009, 1002): graphql-ws
      // would print a stack for each, a log line any client could write
      ws.removeAllListeners('error');
      ws.on('error', () => {});
    }),
  );
  return guarded;
}

/** What onSubscribe hands execute/subscribe: Yoga's enveloped functions, and whom the operation answers. */
type Root = Record<
  'execute' | 'subscribe',
  (args: ExecutionArgs) => Promise<ExecutionResult | AsyncIterable<ExecutionResult>>
> & { socket: WebSocket; id: string };

/** The operation `payload` parsed and validated through Yoga's envelope (every plugin applies), or its errors. */
async function executionArgs(
  yoga: GraphQLServer,
  operation: Context,
  payload: SubscribePayload,
  socket: WebSocket,
  id: string,
): Promise<ExecutionArgs | readonly GraphQLError[]> {
  const enveloped = yoga.getEnveloped({ ctx: operation, request: operation.request, params: payload });
  let document;
  try {
    document = enveloped.parse(payload.query);
  } catch (e) {
    if (e instanceof GraphQLError) return [e];
    throw e;
  }
  const errors = enveloped.validate(enveloped.schema, document);
  if (errors.length) return errors;
  return {
    schema: enveloped.schema,
    document,
    operationName: payload.operationName,
    variableValues: payload.variables,
    contextValue: await enveloped.contextFactory(),
    rootValue: { execute: enveloped.execute, subscribe: enveloped.subscribe, socket, id } satisfies Root,
  };
}

/**
 * A live subscription of one WebSocket operation, as a member of its group (graphql/live.ts): its
 * events go straight to the socket, one `next` message each around the group's shared payload
 * JSON. graphql-ws iterates what this returns only to learn when the operation ends (then it
 * sends `complete`) and to end it (`return()`: the client completed it or the socket closed).
 * A credential found revoked ends the operation with UNAUTHENTICATED and closes the connection
 * with 4401: every later operation on it would be refused anyway.
 */
function liveOperation(
  slot: LiveSlot,
  result: AsyncIterable<ExecutionResult>,
  socket: WebSocket,
  id: string,
): AsyncGenerator<never, void> {
  const hub = slot.hub;
  const prefix = `{"id":${JSON.stringify(id)},"type":"next","payload":`;
  let ended!: () => void;
  const end = new Promise<IteratorResult<never, void>>(
    (resolve) => (ended = () => resolve({ value: undefined, done: true })),
  );
  const open = () => socket.readyState === socket.OPEN;
  let delivered: StreamMark | undefined;
  const send = (event: LiveEvent) => {
    socket.send(`${prefix}${event.ws()}}`);
    delivered = event.mark ?? delivered;
  };
  // LATEST: while the socket holds more than a quarter of the buffer unsent, the newest event of each
  // topic waits here in place of the older, and goes once the socket drained (checked every DRAIN_CHECK_MS)
  let held = new Map<string | undefined, LiveEvent>();
  let check: NodeJS.Timeout | undefined;
  const drained = () => socket.bufferedAmount <= hub.bufferBytes / 4;
  const release = () => {
    check = undefined;
    if (!open() || held.size === 0) return;
    if (!drained()) return void (check = setTimeout(release, DRAIN_CHECK_MS).unref());
    const events = [...held.values()];
    held = new Map();
    for (const e of events) send(e);
  };
  const sink: Sink = {
    deliver(event) {
      if (!open()) return true; // the socket's close ends the operation
      if (slot.policy === 'LATEST' && (held.size || !drained())) {
        held.delete(event.mark?.topic);
        held.set(event.mark?.topic, event);
        check ??= setTimeout(release, DRAIN_CHECK_MS).unref();
        return true;
      }
      if (socket.bufferedAmount > hub.bufferBytes) return false;
      send(event);
      return true;
    },
    flush: () => slot.policy === 'LATEST' || !open() || socket.bufferedAmount <= hub.bufferBytes,
    delivered: () => delivered,
    fail(error) {
      clearTimeout(check);
      if (open()) socket.send(`${prefix}${errorPayload(error)}}`);
      ended();
      // after every operation ended in this round has sent its error
      if (error.code === 'UNAUTHENTICATED')
        setImmediate(() => open() && socket.close(CloseCode.Unauthorized, reasonOf(error)));
    },
    complete: () => {
      clearTimeout(check);
      if (open()) for (const e of held.values()) send(e);
      ended();
    },
  };
  const member = hub.attach(slot, result, sink);
  const operation: AsyncGenerator<never, void> = {
    next: () => end,
    return: () => {
      clearTimeout(check);
      member.leave();
      ended();
      return end;
    },
    throw: (e) => Promise.reject(e),
    [Symbol.asyncIterator]: () => operation,
  };
  return operation;
}
