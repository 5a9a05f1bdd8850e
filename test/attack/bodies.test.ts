// Our own attack suite, request bodies: many concurrent large uploads (OCR frames of up to 10 MiB,
// each held as bytes, a string and a decoded image while its request runs) wait for room in the
// budget of bodies in flight, or are refused with 503, instead of filling the heap; bodies sent
// without a credential, or dripped, cannot hold that budget from those who showed who they are
// (docs/security.md, "Bodies in flight").
import { createServer, type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { LARGEST_BODY_BYTES } from '../../src/config.js';
import { serverOptions } from '../../src/http/node.js';
import { BODY_STEP_BYTES } from '../../src/runtime/bodies.js';
import { InFlightBudget } from '../../src/runtime/in-flight.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { testDatabases } from '../helpers.js';

describe.each(testDatabases())('bodies in flight on $name', (tdb) => {
  let h: GraphQLHarness;
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  const frame = `data:image/png;base64,${'A'.repeat(200_000)}`;
  const ocr = (app: GraphQLHarness['app']) =>
    app.fetch('http://test/ocr/v1/extract', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'demo-enterprise' },
      body: JSON.stringify({ frame }),
    });
  const gql = (app: GraphQLHarness['app'], variables: object) =>
    app.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'demo-enterprise' },
      body: JSON.stringify({ query: 'mutation($f: String!) { extractText(frame: $f) { timestamp } }', variables }),
    });

  it('answers a large body 503 with Retry-After when the budget has no room for it, on REST and GraphQL; small bodies go on', async () => {
    const bodies = new InFlightBudget(1_000_000, 50, 'request bodies in flight');
    const app = h.appWith({}, { bodies });
    const held = (await bodies.acquire(1_000_000)) as () => void;

    const rest = await ocr(app);
    expect(rest.status).toBe(503);
    expect(rest.headers.get('retry-after')).toBe('1');
    expect(await rest.json()).toMatchObject({
      status: 'ERROR',
      code: 'SERVICE_UNAVAILABLE',
      message: expect.stringContaining('request bodies in flight'),
    });

    const graphql = await gql(app, { f: frame });
    expect(graphql.status).toBe(503);
    expect(graphql.headers.get('retry-after')).toBe('1');
    expect(((await graphql.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe(
      'SERVICE_UNAVAILABLE',
    );

    const small = await app.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'demo-enterprise' },
      body: JSON.stringify({ query: '{ me { email } }' }),
    });
    expect(small.status).toBe(200);

    held();
    // with room again, the same frame is read (and refused as the image it is not, 400): nothing held after
    expect((await ocr(app)).status).toBe(400);
    expect(bodies.used).toBe(0);
  });

  describe('over a connection', () => {
    let server: Server | undefined;
    const open: RawRequest[] = [];
    afterEach(async () => {
      for (const r of open.splice(0)) r.end();
      if (server) await new Promise((resolve) => server!.close(resolve));
      server = undefined;
    });

    /** `app` on a port of 127.0.0.1 with the server options server.ts sets, for the pace in `env`. */
    async function serve(env: Record<string, string>, bodies: InFlightBudget): Promise<{ app: App; port: number }> {
      const app = h.appWith({ TRUST_PROXY: 'true', ...env }, { bodies });
      const pace = {
        graceMs: Number(env.BODY_GRACE_MS ?? 10_000),
        minBytesPerSecond: Number(env.BODY_MIN_BYTES_PER_SECOND ?? 32 * 1024),
      };
      server = createServer(serverOptions(pace), app);
      await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
      return { app, port: (server.address() as AddressInfo).port };
    }
    const post = (...args: Parameters<typeof rawPost>) => {
      const r = rawPost(...args);
      open.push(r);
      return r;
    };
    const charged = (bytes: number) => Math.ceil(bytes / BODY_STEP_BYTES) * BODY_STEP_BYTES;

    it('three anonymous chunked bodies that drip hold only what they sent: an enterprise frame and a chunked query are served meanwhile', async () => {
      // the smallest budget allowed: one largest body. Each dripping body once counted as that whole.
      const bodies = new InFlightBudget(LARGEST_BODY_BYTES, 200, 'request bodies in flight');
      const { port } = await serve({}, bodies);
      const sent = 600 * 1024;
      for (const address of ['10.0.0.1', '10.0.0.2', '10.0.0.3'])
        post(port, '/graphql', { 'x-forwarded-for': address }, [Buffer.alloc(sent, 'a')]);
      await expect.poll(() => bodies.used, { timeout: 5_000 }).toBe(3 * charged(sent));

      const frame = `data:image/png;base64,${'A'.repeat(7_000_000)}`;
      const ocr = await fetch(`http://127.0.0.1:${port}/ocr/v1/extract`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'demo-enterprise' },
        body: JSON.stringify({ frame }),
      });
      expect(ocr.status, await ocr.clone().text()).toBe(400); // read whole: refused as the image it is not
      const query = post(
        port,
        '/graphql',
        { 'x-api-key': 'demo-enterprise' },
        [Buffer.from('{"query":"{ me '), Buffer.from('{ email } }"}')],
        true,
      );
      expect(await query.answer()).toMatchObject({
        status: 200,
        body: { data: { me: { email: 'enterprise@example.com' } } },
      });

      for (const r of open.splice(0)) r.end();
      await expect.poll(() => bodies.used, { timeout: 5_000 }).toBe(0);
    });

    it('callers without a credential hold at most ANONYMOUS_BODY_BYTES_PER_ADDRESS per address at once: past it 429, and other addresses keep theirs', async () => {
      const bodies = new InFlightBudget(32 * 1024 * 1024, 200, 'request bodies in flight');
      const { port } = await serve({ ANONYMOUS_BODY_BYTES_PER_ADDRESS: String(256 * 1024) }, bodies);
      post(port, '/graphql', { 'x-forwarded-for': '10.0.0.1' }, [Buffer.alloc(200 * 1024, 'a')]);
      await expect.poll(() => bodies.used, { timeout: 5_000 }).toBe(charged(200 * 1024));

      // its step past 256 KiB comes with its last byte: the answer is not raced by unread bytes
      const second = post(port, '/graphql', { 'x-forwarded-for': '10.0.0.1' }, [Buffer.alloc(60 * 1024, 'a')]);
      const refused = await second.answer();
      expect(refused).toMatchObject({
        status: 429,
        headers: { 'retry-after': '1', connection: 'close' },
        body: { errors: [{ extensions: { code: 'RATE_LIMITED' } }] },
      });
      expect(refused.body.errors[0].message).toContain('at most 262144 bytes of bodies at once');

      post(port, '/graphql', { 'x-forwarded-for': '10.0.0.2' }, [Buffer.alloc(200 * 1024, 'a')]);
      await expect.poll(() => bodies.used, { timeout: 5_000 }).toBe(2 * charged(200 * 1024));
      // an authenticated body from the address whose part is spent is no part of it
      const keyed = post(
        port,
        '/graphql',
        { 'x-forwarded-for': '10.0.0.1', 'x-api-key': 'demo-enterprise' },
        [
          Buffer.from('{"query":"{ me { email } }","extensions":{"pad":"'),
          Buffer.alloc(200 * 1024, 'a'),
          Buffer.from('"}}'),
        ],
        true,
      );
      expect((await keyed.answer()).status).toBe(200);
    });

    it('a body slower than the pace is cut with 408 BODY_TOO_SLOW and its connection closed, on GraphQL and REST; nothing stays held', async () => {
      const bodies = new InFlightBudget(32 * 1024 * 1024, 200, 'request bodies in flight');
      const { port } = await serve({ BODY_GRACE_MS: '300', BODY_MIN_BYTES_PER_SECOND: '1048576' }, bodies);
      const graphql = post(port, '/graphql', { 'x-api-key': 'demo-enterprise' }, [Buffer.alloc(100 * 1024, 'a')]);
      const login = post(port, '/kms/api/v1/auth/token', { 'content-type': 'application/json' }, [
        Buffer.from('{"email":"pro@example.com",'),
      ]);

      const cut = await graphql.answer();
      expect(cut).toMatchObject({
        status: 408,
        headers: { connection: 'close' },
        body: { errors: [{ extensions: { code: 'BODY_TOO_SLOW' } }] },
      });
      expect(cut.body.errors[0].message).toMatch(
        /^a body must arrive at 1048576 bytes per second or faster after its first 0\.3 s; 102400 bytes arrived in \d+\.\d s$/,
      );
      expect(await login.answer()).toMatchObject({
        status: 408,
        headers: { connection: 'close' },
        body: { status: 'ERROR', code: 'BODY_TOO_SLOW' },
      });
      expect(bodies.used).toBe(0);
    });
  });
});

type RawRequest = ReturnType<typeof rawPost>;

/**
 * A chunked POST written by hand on its own connection: the head and `chunks`, then nothing (a
 * body that drips, or stopped) unless `finished`; `answer` is the response once the server closed
 * the connection after it.
 */
function rawPost(port: number, path: string, headers: Record<string, string>, chunks: Buffer[], finished = false) {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => {});
  const lines = [`POST ${path} HTTP/1.1`, 'host: 127.0.0.1', 'transfer-encoding: chunked'];
  const all = { 'content-type': 'application/json', connection: 'close', ...headers };
  for (const [name, value] of Object.entries(all)) lines.push(`${name}: ${value}`);
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  for (const chunk of chunks)
    socket.write(Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]));
  if (finished) socket.write('0\r\n\r\n');
  const received: Buffer[] = [];
  socket.on('data', (d) => received.push(d));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return {
    async answer(): Promise<{ status: number; headers: Record<string, string>; body: any }> {
      await closed;
      return parseResponse(Buffer.concat(received).toString('utf8'));
    },
    end: () => void socket.destroy(),
  };
}

function parseResponse(raw: string) {
  const split = raw.indexOf('\r\n\r\n');
  const [statusLine, ...headerLines] = raw.slice(0, split).split('\r\n');
  const headers = Object.fromEntries(
    headerLines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  let body = raw.slice(split + 4);
  if (headers['transfer-encoding'] === 'chunked') {
    let decoded = '';
    for (let at = 0; ; ) {
      const eol = body.indexOf('\r\n', at);
      const size = Number.parseInt(body.slice(at, eol), 16);
      if (!size) break;
      decoded += body.slice(eol + 2, eol + 2 + size);
      at = eol + 2 + size + 2;
    }
    body = decoded;
  }
  return { status: Number(statusLine!.split(' ')[1]), headers, body: JSON.parse(body) };
}
