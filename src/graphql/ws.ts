// GraphQL over WebSocket (the graphql-ws protocol) at /graphql, beside graphql/http.ts's HTTP transports:
// the same Yoga (schema, plugins, limits), the same caller resolution and rate limits.
import type { IncomingMessage, Server } from 'node:http';
import { GraphQLError, type ExecutionArgs, type ExecutionResult, type GraphQLFormattedError } from 'graphql';
import { isAsyncIterable } from 'graphql-yoga';
import { CloseCode, type SubscribePayload } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Context } from '../context.js';
import { AppError, toGraphQLError } from '../errors.js';
import { requestUrl, type NodeServerContext } from '../http/node.js';
import { paramsError } from './input.js';
import { errorPayload, type LiveSlot, type Sink } from './live-group.js';
import { liveSlotOf } from './live.js';
import type { GraphQLServer } from './yoga.js';

/** Operations one connection may run at once; its live subscriptions count against the user's and the instance's caps too (graphql/live.ts). */
export const MAX_SUBSCRIPTIONS_PER_CONNECTION = 50;
/** How long a client that was told to go away may take to close before its socket is cut. */
const CLOSE_GRACE_MS = 2_000;

/** Close codes beside graphql-ws's own: the HTTP status of the error, as 4xxx. */
const CLOSE_CODES: Partial<Record<AppError['code'], number>> = {
  UNAUTHENTICATED: CloseCode.Unauthorized, // 4401
  FORBIDDEN: CloseCode.Forbidden, // 4403
  BAD_REQUEST: CloseCode.BadRequest, // 4400
  RATE_LIMITED: 4429,
};

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
}

export interface WebSocketOptions {
  /** graphql-ws then keeps internal error messages out of close reasons. */
  isProd: boolean;
  /** The largest message (a subscribe: query and variables), as GRAPHQL_MAX_BODY_BYTES bounds an HTTP body. */
  maxMessageBytes: number;
}

/**
 * The upgrade request as the HTTP transport would see it, with the credentials of the
 * connection_init payload as headers: `{ apiKey }` is the X-API-Key header, `{ authorization }`
 * the Authorization header. Without them the upgrade's own credentials count (the session
 * cookie, an `apikey` parameter in the URL), in the order of auth/caller.ts.
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

/** A close reason holds at most 123 bytes. */
const reasonOf = (e: AppError) =>
  Buffer.byteLength(e.message) <= 123 ? e.message : `${Buffer.from(e.message).subarray(0, 118).toString()}…`;

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
  const wss = new WebSocketServer({ noServer: true, path: '/graphql', maxPayload: options.maxMessageBytes });
  // what `ws` does with `server`: another path is answered 400 by handleUpgrade
  server.on('upgrade', (req, socket, head) =>
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req)),
  );
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
          requests.set(socket, request);
          return true;
        } catch (e) {
          if (!(e instanceof AppError)) throw e;
          socket.close(CLOSE_CODES[e.code] ?? CloseCode.InternalServerError, reasonOf(e));
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
        } catch (e) {
          if (e instanceof AppError) return [toGraphQLError(e)];
          throw e;
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
  const sink: Sink = {
    deliver(event) {
      if (!open()) return true; // the socket's close ends the operation
      if (socket.bufferedAmount > hub.bufferBytes) return false;
      socket.send(`${prefix}${event.ws()}}`);
      return true;
    },
    flush: () => !open() || socket.bufferedAmount <= hub.bufferBytes,
    fail(error) {
      if (open()) socket.send(`${prefix}${errorPayload(error)}}`);
      ended();
      // after every operation ended in this round has sent its error
      if (error.code === 'UNAUTHENTICATED')
        setImmediate(() => open() && socket.close(CloseCode.Unauthorized, reasonOf(error)));
    },
    complete: () => ended(),
  };
  const member = hub.attach(slot, result, sink);
  const operation: AsyncGenerator<never, void> = {
    next: () => end,
    return: () => {
      member.leave();
      ended();
      return end;
    },
    throw: (e) => Promise.reject(e),
    [Symbol.asyncIterator]: () => operation,
  };
  return operation;
}
