// From Node's HTTP server to the fetch handler (app.ts): the Request each Node request becomes, its
// URL from the request line alone, the checks of what Node's parser lets through, and Node's own
// bounds on receiving a request.
import type { IncomingMessage, RequestListener, ServerOptions, ServerResponse } from 'node:http';
import { sendNodeResponse } from '@whatwg-node/server';
import { LARGEST_BODY_BYTES } from '../config.js';
import { AppError } from '../errors.js';
import type { Pace } from './pace.js';

/**
 * What the Node HTTP server hands the fetch handler beside each request (@whatwg-node/server):
 * the request as Node parsed it (its target and socket), and its response, to cut a connection
 * whose client stopped reading. A WebSocket upgrade brings only the request (graphql/ws.ts).
 */
export type NodeServerContext = {
  req?: { url?: string; socket?: { remoteAddress?: string } };
  res?: { writableFinished: boolean; destroy(): void };
};

/** The client address: behind a trusted proxy (TRUST_PROXY) the first X-Forwarded-For hop, else the socket's peer. */
export function clientIp(request: Request, serverContext: NodeServerContext, trustProxy: boolean): string {
  return addressOf(request.headers.get('x-forwarded-for'), serverContext.req?.socket?.remoteAddress, trustProxy);
}

/** The client address of a request Node parsed without the fetch adapter (a WebSocket upgrade), by clientIp's rule. */
export function upgradeIp(req: IncomingMessage, trustProxy: boolean): string {
  const forwarded = req.headers['x-forwarded-for'];
  return addressOf(typeof forwarded === 'string' ? forwarded : undefined, req.socket.remoteAddress, trustProxy);
}

function addressOf(forwardedFor: string | null | undefined, peer: string | undefined, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = forwardedFor?.split(',')[0]?.trim();
    if (forwarded) return forwarded;
  }
  return peer ?? 'unknown';
}

/** How often Node looks for requests past their timeouts (its default, 30 s, would let each run up to 30 s over). */
const TIMEOUT_CHECK_MS = 1_000;

/**
 * Node's own bounds on receiving a request, set on purpose from the pace (config.connections): the
 * headers whole within the grace a body has (Node: 60 s), and the whole request within the grace
 * and the largest body at the minimum pace (Node: 5 min), so that Node's cut (a bare 408, the
 * connection closed) never comes before http/body.ts's coded one. They bound what readBody does not
 * read: the headers, and a body declared within 64 KiB.
 */
export function serverOptions(pace: Pace): ServerOptions {
  return {
    headersTimeout: pace.graceMs,
    requestTimeout: pace.graceMs + Math.ceil((LARGEST_BODY_BYTES / pace.minBytesPerSecond) * 1000),
    connectionsCheckingInterval: TIMEOUT_CHECK_MS,
  };
}

/** A host and an optional port: a name (RFC 3986's reg-name, without escapes), an IPv4 address, or an IPv6 one in brackets. */
export const HOST = /^(?:[A-Za-z0-9._~-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** The origin of every URL made of a Node request: where the request was sent is the Host header's to say, never the URL's. */
const ORIGIN = 'http://localhost';
const ABSOLUTE_FORM = /^https?:\/\/([^/?#]*)/i;
/** A segment that URL parsing removes with its neighbour (`..`) or alone (`.`), written plainly or escaped. */
const DOT_SEGMENT = /\/(?:\.|%2e){1,2}(?:\/|$)/i;

/**
 * The path and query of a request target (RFC 9112 3.2): the origin form as sent, the absolute
 * form (`http://host/path?query`) without its scheme and authority. Undefined for any other form
 * (`*`), a fragment, or a path that URL parsing would rewrite (a backslash read as a slash, a dot
 * segment): what a proxy in front matched on is what is served.
 */
export function requestPath(target: string): string | undefined {
  let path = target;
  const absolute = ABSOLUTE_FORM.exec(target);
  if (absolute) {
    if (!HOST.test(absolute[1]!)) return undefined;
    path = target.slice(absolute[0].length);
    if (!path.startsWith('/')) path = `/${path}`;
  }
  if (path[0] !== '/' || path.includes('#')) return undefined;
  const query = path.indexOf('?');
  const pathname = query < 0 ? path : path.slice(0, query);
  return pathname.includes('\\') || DOT_SEGMENT.test(pathname) ? undefined : path;
}

/**
 * The URL of a Node request: a fixed origin and the request line's path and query. A target that
 * requestPath refuses becomes `/`, never served: malformedRequest answers it 400 first.
 */
export function requestUrl(target: string | undefined): string {
  return ORIGIN + (requestPath(target ?? '/') ?? '/');
}

const shown = (value: string) => JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value);

/**
 * Why a request cannot be served, before anything routes it, or undefined: a Host header that is
 * not a host (it may be empty, RFC 9110 7.2), or a Node request's target that requestPath refuses.
 */
export function malformedRequest(request: Request, serverContext: NodeServerContext): AppError | undefined {
  const host = request.headers.get('host');
  if (host && !HOST.test(host))
    return new AppError('BAD_REQUEST', `the Host header must be a host and an optional port; got ${shown(host)}`);
  const target = serverContext.req?.url;
  if (target !== undefined && requestPath(target) === undefined)
    return new AppError(
      'BAD_REQUEST',
      `the request target must be a path without a fragment, a backslash or a dot segment; got ${shown(target)}`,
    );
  return undefined;
}

/**
 * The fetch Request of a Node request, as @whatwg-node/server's adapter makes one (normalizeNodeRequest:
 * the Node headers as they are, a signal that aborts when the connection closes before the answer,
 * the body as a stream) but for its URL, requestUrl's: the adapter's joins the Host header and the
 * path into one string, so `Host: x\metrics?` made `GET /graphql` a request for /metrics. `body`:
 * the body already read, as text (http/direct.ts).
 */
export function fetchRequest(
  req: IncomingMessage,
  res: ServerResponse,
  RequestClass: typeof Request,
  body?: string,
): Request {
  const controller = new AbortController();
  const aborted = () => {
    if (!controller.signal.aborted) controller.abort(res.errored ?? undefined);
  };
  res.once('error', aborted);
  res.once('close', aborted);
  res.once('finish', () => res.removeListener('close', aborted));
  const init: RequestInit & { duplex?: 'half' } = {
    method: req.method ?? 'GET',
    headers: req.headers as HeadersInit,
    signal: controller.signal,
  };
  if (body !== undefined) init.body = body;
  else if (req.method !== 'GET' && req.method !== 'HEAD') {
    init.body = req as unknown as ReadableStream;
    init.duplex = 'half';
  }
  return new RequestClass(requestUrl(req.url), init);
}

/**
 * The Node request listener of a fetch handler: each request made by fetchRequest, each answer
 * written as the adapter writes it. The handler answers whatever it catches; a failure past it
 * (the answer's stream) cuts the connection, with no stack sent.
 */
export function nodeListener(
  handle: (request: Request, serverContext: NodeServerContext) => Promise<Response>,
  RequestClass: typeof Request,
): RequestListener {
  return (req, res) => {
    handle(fetchRequest(req, res, RequestClass), { req, res })
      .then((response) => sendNodeResponse(response, res, req, true))
      .catch((e: unknown) => {
        console.error(`Unexpected error while handling request: ${(e as Error)?.message ?? e}`);
        res.destroy();
      });
  };
}
