// Our own attack suite, WebSocket connections: a caller cannot hold connections without bound, nor
// memory with messages it never finishes (docs/security.md, "WebSocket connections").
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { App } from '../../src/app.js';
import { MAX_MESSAGE_BYTES } from '../../src/graphql/ws-limits.js';
import { InFlightBudget } from '../../src/runtime/in-flight.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { listening } from '../graphql/subscription-helpers.js';
import { testDatabases } from '../helpers.js';

describe.each(testDatabases())('WebSocket connections on $name', (tdb) => {
  let h: GraphQLHarness;
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  let served: Awaited<ReturnType<typeof listening>> | undefined;
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.ws.terminate();
    await served?.close();
    served = undefined;
  });
  async function serve(app: App): Promise<string> {
    served = await listening(app);
    return served.url;
  }
  const connect = (url: string) => {
    const s = socket(url);
    sockets.push(s);
    return s;
  };

  it('one user holds at most WS_SOCKETS_PER_CALLER connections, all its keys together: the next is closed 4429 saying so', async () => {
    const url = await serve(h.appWith({ WS_SOCKETS_PER_CALLER: '2' }));
    for (let i = 0; i < 2; i++) expect(await connect(url).init({ apiKey: 'demo-pro' })).toBe('connection_ack');
    const third = connect(url);
    expect(await third.init({ apiKey: 'demo-pro' })).toBe('closed');
    expect(await third.closed).toEqual({
      code: 4429,
      reason: 'a user holds at most 2 WebSocket connections at once; close one first',
    });
    // another user is not counted with this one; and a closed connection makes room
    expect(await connect(url).init({ apiKey: 'demo-enterprise' })).toBe('connection_ack');
    sockets[0]!.ws.close();
    await sockets[0]!.closed;
    // the server counts the close when its side of the socket ends, which may come after the client's
    await expect.poll(() => connect(url).init({ apiKey: 'demo-pro' }), { timeout: 5_000 }).toBe('connection_ack');
  });

  it('one address opens at most WS_SOCKETS_PER_ADDRESS connections not yet authenticated: the next is closed 4429; an authenticated one leaves the count', async () => {
    const url = await serve(h.appWith({ WS_SOCKETS_PER_ADDRESS: '2' }));
    const [first] = [connect(url), connect(url)];
    await Promise.all(sockets.map((s) => s.opened));
    const third = connect(url);
    expect(await third.closed).toEqual({
      code: 4429,
      reason: 'one address opens at most 2 WebSocket connections not yet authenticated',
    });
    expect(await first!.init({ apiKey: 'demo-pro' })).toBe('connection_ack');
    expect(await connect(url).init({ apiKey: 'demo-pro' })).toBe('connection_ack');
  });

  it('a half-sent message is charged to the bodies in flight and, past the pace, closed 4408; its bytes are given back', async () => {
    const bodies = new InFlightBudget(32 * 1024 * 1024, 200, 'request bodies in flight');
    const app = h.appWith({ BODY_GRACE_MS: '500', BODY_MIN_BYTES_PER_SECOND: '1048576' }, { bodies });
    const url = await serve(app);
    const s = connect(url);
    expect(await s.init({ apiKey: 'demo-enterprise' })).toBe('connection_ack');
    s.sendFrameStart(40_000, 20_000);
    // charged until the socket closes, CLOSE_GRACE_MS after the close frame a peer mid-frame cannot answer
    await expect.poll(() => bodies.used, { timeout: 5_000 }).toBeGreaterThanOrEqual(20_000);
    const closed = await s.closed;
    expect(closed.code).toBe(4408);
    expect(closed.reason).toMatch(
      /^a message must arrive at 1048576 bytes per second or faster after its first 0\.5 s/,
    );
    await expect.poll(() => bodies.used, { timeout: 5_000 }).toBe(0);
  });

  it(`a message over ${MAX_MESSAGE_BYTES} bytes closes the connection with 1009 before it is read`, async () => {
    const url = await serve(h.app);
    const s = connect(url);
    expect(await s.init({ apiKey: 'demo-enterprise' })).toBe('connection_ack');
    s.sendFrameStart(MAX_MESSAGE_BYTES + 1, 0);
    expect((await s.closed).code).toBe(1009);
  });
});

type Socket = ReturnType<typeof socket>;

/** A graphql-transport-ws connection driven by hand: its init, its close, and a frame begun and never finished. */
function socket(url: string) {
  const ws = new WebSocket(url, 'graphql-transport-ws');
  ws.on('error', () => {});
  const opened = new Promise<void>((resolve) => ws.once('open', () => resolve()));
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.once('close', (code, reason) => resolve({ code, reason: String(reason) })),
  );
  return {
    ws,
    opened,
    closed,
    /** connection_init with `payload`: 'connection_ack', or 'closed' when the server closed instead. */
    async init(payload: object): Promise<'connection_ack' | 'closed'> {
      await Promise.race([opened, closed]);
      if (ws.readyState !== ws.OPEN) return 'closed';
      const ack = new Promise<'connection_ack'>((resolve) =>
        ws.on('message', (m) => JSON.parse(String(m)).type === 'connection_ack' && resolve('connection_ack')),
      );
      ws.send(JSON.stringify({ type: 'connection_init', payload }));
      return Promise.race([ack, closed.then(() => 'closed' as const)]);
    },
    /** The header of a masked text frame of `length` bytes, and `sent` of them: the rest never comes. */
    sendFrameStart(length: number, sent: number) {
      const header =
        length < 65_536
          ? Buffer.from([0x81, 0x80 | 126, length >> 8, length & 0xff])
          : Buffer.from([
              0x81,
              0x80 | 127,
              0,
              0,
              0,
              0,
              (length >>> 24) & 0xff,
              (length >> 16) & 0xff,
              (length >> 8) & 0xff,
              length & 0xff,
            ]);
      const raw = (ws as unknown as { _socket: import('node:net').Socket })._socket;
      raw.write(Buffer.concat([header, Buffer.alloc(4), Buffer.alloc(sent, 'a')]));
    },
  };
}
