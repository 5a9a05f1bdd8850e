import http, { type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import type { App } from '../../src/app.js';
import { directListener } from '../../src/http/direct.js';
import { createLogger } from '../../src/observability/log.js';
import type { GraphQLHarness } from '../graphql/helpers.js';

/**
 * An app over the harness's database configured as production is (NODE_ENV=production: errors
 * masked, introspection and suggestions off, PUBLIC_URL required), logging at info into `lines`.
 * The database was opened outside production, so the demo keys still name callers and requests
 * reach the resolvers, as a real key's would.
 */
export function productionApp(
  h: Pick<GraphQLHarness, 'appWith'>,
  env: Record<string, string> = {},
): { app: App; lines: string[] } {
  const lines: string[] = [];
  const app = h.appWith(
    { NODE_ENV: 'production', RATE_LIMIT_ANONYMOUS: '100000000', ...env },
    { logger: createLogger('info', { write: (line: string) => void lines.push(line) }) },
  );
  return { app, lines };
}

/** The request line `requestId` was logged with (observability/request-log.ts), parsed. */
export function requestLine(lines: readonly string[], requestId: string): Record<string, unknown> | undefined {
  return lines
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((l) => l.requestId === requestId && typeof l.status === 'number');
}

/** The two ways server.ts serves an app over node:http, each listening on 127.0.0.1. */
export interface Listeners {
  /** The app as the Node listener (every request the adapter's way), and server.ts's directListener in front of it. */
  ports: { adapter: number; direct: number };
  close(): Promise<void>;
}

export async function listen(app: App): Promise<Listeners> {
  const servers: Server[] = [
    http.createServer(app),
    http.createServer(
      directListener({ fallback: app, handle: app.direct, RequestClass: app.socket.yoga.fetchAPI.Request }),
    ),
  ];
  const [adapter, direct] = await Promise.all(
    servers.map(
      (s) =>
        new Promise<number>((resolve) => s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port))),
    ),
  );
  return {
    ports: { adapter: adapter!, direct: direct! },
    close: async () => {
      for (const s of servers) s.closeAllConnections();
      await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    },
  };
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * One request over a socket of its own, its target and headers as given (Node's client checks
 * neither a Host header nor a target beyond control characters). A body gets its Content-Length.
 */
export function send(
  port: number,
  ask: { method?: string; target: string; headers?: Record<string, string>; body?: string },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: ask.method ?? 'GET',
        path: ask.target,
        headers: {
          ...(ask.body !== undefined ? { 'content-length': String(Buffer.byteLength(ask.body)) } : {}),
          ...ask.headers,
        },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(ask.body);
  });
}

/**
 * What an answer must never hold: the server's internals, which tell an attacker where to aim. A
 * GraphQL syntax error ("Syntax Error: Unexpected Name") is the client's document, not one of them.
 */
export const INTERNALS: readonly (readonly [string, RegExp])[] = [
  ['a stack frame', /\bat (?:[^()\n]+ \()?(?:(?:file:\/\/)?\/[^\s():]+\.[cm]?[jt]s|node:[\w/]+):\d+/],
  ['a source path', /\/src\/|\.ts:\d|\bnode_modules\//],
  [
    'SQL text',
    /\b(?:SELECT|INSERT INTO|UPDATE|DELETE FROM)\b[\s\S]*\b(?:FROM|VALUES|SET|WHERE)\b|syntax error at or near|prisma\.\w+\./,
  ],
  // V8's JSON.parse messages quote the text ('"{\"query\":" is not valid JSON'); this app's own say "the body is not valid JSON"
  [
    'a JSON parser message',
    /SyntaxError|Unexpected token|Unexpected end of JSON|" is not valid JSON|in JSON at position/,
  ],
];

/** Fails naming `what` (the request) and the internal found, if `body` holds one. */
export function expectNoInternals(body: string, what: string): void {
  for (const [name, pattern] of INTERNALS) {
    const found = pattern.exec(body);
    expect(found?.[0], `${what} answered ${name}: ${body.slice(0, 300)}`).toBeUndefined();
  }
}
