import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../src/rest/routes.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { testDatabases } from '../helpers.js';

// The legacy API's paths and ours: the document must describe each of them.
const SPEC_PATHS = [
  'get /api/v1/logos',
  'get /stocks/v1/fundamentals/balance-sheet',
  'get /delivery/api/v1/fundamentals/enhanced',
  'get /delivery/api/v1/fundamentals/lite',
  'get /search/api/v1/securities',
  'get /streamhive/api/v1/data',
  'get /rating/api/v1/ratings',
  'get /delivery/api/v1/summaries',
  'get /news/api/v1/news',
  'get /stocks/v3/reference/exchanges',
  'get /stocks/v3/reference/conditions',
  'get /stocks/v3/reference/tickers/types',
  'get /stocks/v1/marketstatus/now',
  'get /stocks/v1/marketstatus/upcoming',
  'get /stocks/v3/reference/splits',
  'get /stocks/v3/reference/dividends',
  'get /stocks/vX/reference/tickers/{id}/events',
  'get /stocks/v3/trades/{symbol}',
  'get /stocks/v3/quotes/{symbol}',
  'get /stocks/v2/aggs/ticker/{ticker}/range/{multiplier}/{timespan}/{from}/{to}',
  'get /stocks/v2/aggs/ticker/{ticker}/prev',
  'get /stocks/v2/aggs/grouped/locale/us/market/stocks/{date}',
  'get /stocks/v1/open-close/{ticker}/{date}',
  'get /stocks/v2/snapshot/locale/us/markets/stocks/tickers',
  'get /stocks/v2/snapshot/locale/us/markets/stocks/tickers/{ticker}',
  'get /stocks/v2/snapshot/locale/us/markets/stocks/{direction}',
  'get /stocks/v2/last/trade/{ticker}',
  'get /stocks/v2/last/nbbo/{ticker}',
  'get /stocks/v1/indicators/sma/{ticker}',
  'get /stocks/v1/indicators/ema/{ticker}',
  'get /stocks/v1/indicators/macd/{ticker}',
  'get /stocks/v1/indicators/rsi/{ticker}',
  'post /kms/api/v1/auth/token',
  'post /kms/api/v1/auth/refresh',
  'get /kms/api/v1/auth/validate',
  'post /kms/api/v1/auth/logout',
  'post /ocr/v1/extract',
];

describe('the OpenAPI document', () => {
  const [tdb] = testDatabases();
  let h: GraphQLHarness;
  beforeAll(async () => {
    h = await graphqlHarness(tdb!);
  });
  afterAll(async () => {
    await h?.close();
    await tdb!.cleanup();
  });

  it('is served without credentials at /openapi.json as OpenAPI 3.1 and documents every legacy path', async () => {
    const res = await h.app.fetch('http://test/openapi.json');
    expect(res.status).toBe(200);
    const doc: any = await res.json();
    expect(doc.openapi).toBe('3.1.0');
    const documented = Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.keys(ops as object).map((m) => `${m} ${p}`),
    );
    expect(documented.sort()).toEqual([...SPEC_PATHS].sort());
    for (const route of routes) expect(route.doc, `${route.method} ${route.path} has no doc`).toBeDefined();
  });

  it('every operation documents its parameters and a 200 schema that compiles as JSON Schema 2020-12', async () => {
    const doc: any = await (await h.app.fetch('http://test/openapi.json')).json();
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema({ $id: 'doc', components: doc.components });
    for (const [p, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        const where = `${method} ${p}`;
        expect(op.summary, where).toBeTruthy();
        for (const param of op.parameters) {
          expect(param.description, `${where} ${param.name}`).toBeTruthy();
          expect(() => ajv.compile(param.schema), `${where} ${param.name}`).not.toThrow();
        }
        for (const name of p.match(/\{(\w+)\}/g) ?? []) {
          expect(
            op.parameters.some((x: any) => x.in === 'path' && `{${x.name}}` === name),
            `${where} path ${name}`,
          ).toBe(true);
        }
        expect(() => ajv.compile(op.responses['200'].content['application/json'].schema), where).not.toThrow();
      }
    }
  });

  it('every answer documents the RateLimit fields, and a 429 or 503 its Retry-After', async () => {
    const doc: any = await (await h.app.fetch('http://test/openapi.json')).json();
    const pacing = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy'];
    expect(Object.keys(doc.components.headers).sort()).toEqual([...pacing, 'Retry-After'].sort());
    for (const [p, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        expect(op.responses['429'], `${method} ${p}`).toBeDefined();
        for (const [code, response] of Object.entries<any>(op.responses)) {
          // a 200 also documents X-Ignored-Parameters, inline (what it lists is the route's)
          const expected = [
            ...pacing,
            ...(code === '429' || code === '503' ? ['Retry-After'] : []),
            ...(code === '200' ? ['X-Ignored-Parameters'] : []),
          ];
          expect(Object.keys(response.headers).sort(), `${method} ${p} ${code}`).toEqual(expected.sort());
          for (const ref of Object.values<any>(response.headers))
            if (ref.$ref) expect(doc.components.headers[ref.$ref.replace('#/components/headers/', '')]).toBeDefined();
        }
      }
    }
  });
});
