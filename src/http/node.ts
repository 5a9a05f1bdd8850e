import type { IncomingMessage, ServerOptions } from 'node:http';
import { LARGEST_BODY_BYTES } from '../config.js';
import type { Pace } from './pace.js';

/**
 * What the Node HTTP server hands the fetch handler beside each request (@whatwg-node/server):
 * the socket the request came on, and its response, to cut a connection whose client stopped
 * reading. A WebSocket upgrade brings only the request (graphql/ws.ts).
 */
export type NodeServerContext = {
  req?: { socket?: { remoteAddress?: string } };
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
