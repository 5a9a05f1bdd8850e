// Our own attack suite, request bodies: many concurrent large uploads (OCR frames of up to 10 MiB,
// each held as bytes, a string and a decoded image while its request runs) wait for room in the
// budget of large bodies in flight, or are refused with 503, instead of filling the heap.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InFlightBudget } from '../../src/runtime/in-flight.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { testDatabases } from '../helpers.js';

describe.each(testDatabases())('large bodies in flight on $name', (tdb) => {
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
    const bodies = new InFlightBudget(1_000_000, 50, 'large request bodies in flight');
    const app = h.appWith({}, { bodies });
    const held = (await bodies.acquire(1_000_000)) as () => void;

    const rest = await ocr(app);
    expect(rest.status).toBe(503);
    expect(rest.headers.get('retry-after')).toBe('1');
    expect(await rest.json()).toMatchObject({
      status: 'ERROR',
      code: 'SERVICE_UNAVAILABLE',
      message: expect.stringContaining('large request bodies in flight'),
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
});
