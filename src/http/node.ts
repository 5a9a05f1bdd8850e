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
  if (trustProxy) {
    const forwarded = request.headers.get('x-forwarded-for')?.split(',')[0]?.trim();
    if (forwarded) return forwarded;
  }
  return serverContext.req?.socket?.remoteAddress ?? 'unknown';
}
