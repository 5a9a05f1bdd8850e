// Property-based fuzzing of the whole app through app.fetch (no sockets): generated REST parameter
// sets for every route and generated GraphQL documents and variables. Every answer must be a 2xx or
// a coded 4xx — never a 5xx, never an uncoded error — and the app must stay healthy.
//
// FUZZ_SCALE multiplies the counts (`npm run bench -- fuzz` runs it at 10x and more).
import fc from 'fast-check';
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  type GraphQLArgument,
  type GraphQLInputType,
  type GraphQLObjectType,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../src/rest/routes.js';
import type { ParamSpec } from '../../src/rest/params.js';
import { schema } from '../../src/schema/index.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { testDatabases } from '../helpers.js';

const SCALE = Number(process.env.FUZZ_SCALE ?? 1) || 1;
const REST_RUNS = Math.round(6000 * SCALE);
const GRAPHQL_RUNS = Math.round(4000 * SCALE);
// PostgreSQL is stricter about text (NUL bytes, encodings), so it gets its own share
const dbs = testDatabases();
const perDb = (runs: number) => Math.max(100, Math.round(runs / dbs.length));

const key = fc.oneof(
  { weight: 12, arbitrary: fc.constant('demo-enterprise') },
  { weight: 3, arbitrary: fc.constantFrom('demo-pro', 'demo-free') },
  { weight: 2, arbitrary: fc.constantFrom(null, 'not-a-key', `mdg_${'x'.repeat(40)}`) },
);
const SYMBOLS = ['NVLX', 'ORBT', 'nvlx', 'ZZZZ', 'BRK.B', 'A-B'];

/** Strings that break naive code: control characters, NUL, huge numbers, SQL and JSON fragments. */
const nasty = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '%00',
    '\'; DROP TABLE "Trade"; --',
    '{"$gt":1}',
    '../../etc/passwd',
    'NaN',
    'Infinity',
    '-0',
    '1e309',
    '9'.repeat(40),
    '-9223372036854775809',
    '0x1F',
    '١٢٣',
    '\uD800',
    'null',
    'true',
    '2026-02-30',
    '2026-13-01',
    '9999-12-31T23:59:59Z',
    '0000-00-00 00:00:00',
  ),
  fc.integer().map(String),
  fc.double().map(String),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc.string({ minLength: 300, maxLength: 3000 }),
);

function valueFor(spec: ParamSpec): fc.Arbitrary<string> {
  const plausible: fc.Arbitrary<string>[] = [];
  if (spec.type === 'integer')
    plausible.push(fc.integer({ min: (spec.minimum ?? 0) - 2, max: (spec.maximum ?? 10_000) + 2 }).map(String));
  if (spec.type === 'boolean') plausible.push(fc.constantFrom('true', 'false', 'TRUE', '1', 'yes'));
  if (spec.type === 'string') {
    if (spec.enum) plausible.push(fc.constantFrom(...spec.enum));
    if (spec.format === 'date')
      plausible.push(fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)));
    if (spec.format === 'date-time') plausible.push(fc.date({ noInvalidDate: true }).map((d) => d.toISOString()));
    if (spec.format === 'datetime-space')
      plausible.push(fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, 19).replace('T', ' ')));
    plausible.push(fc.constantFrom(...SYMBOLS, SYMBOLS.join(','), 'NVLX,,ORBT'));
  }
  return fc.oneof({ weight: 6, arbitrary: fc.oneof(...plausible) }, { weight: 1, arbitrary: nasty });
}

const getRoutes = routes.filter((r) => r.method === 'GET');
/** A lone surrogate cannot be percent-encoded; a client would send U+FFFD. */
const enc = (s: string) => encodeURIComponent((s as string & { toWellFormed(): string }).toWellFormed());
const upTo = <T>(xs: readonly T[], max: number) => fc.subarray([...xs], { maxLength: Math.min(max, xs.length) });

/** A request to one GET route: its own parameters (some valid, some not), unknown and repeated ones, raw escapes. */
const restRequest = fc
  .constantFrom(...getRoutes)
  .chain((route) => {
    const specs = Object.entries(route.doc.query ?? {});
    const params = specs.length
      ? fc.array(
          fc.constantFrom(...specs).chain(([name, spec]) => fc.tuple(fc.constant(name), valueFor(spec))),
          { maxLength: 4 },
        )
      : fc.constant([] as [string, string][]);
    return fc.record({
      route: fc.constant(route),
      params,
      extra: fc.oneof(
        { weight: 4, arbitrary: fc.constant([] as [string, string][]) },
        {
          weight: 1,
          arbitrary: fc.array(
            fc.tuple(
              fc.oneof(
                fc.constantFrom('cursor', 'page', 'apikey', 'sort', '__proto__', 'constructor', 'a[b]'),
                fc.string({ maxLength: 10 }),
              ),
              nasty,
            ),
            { maxLength: 2 },
          ),
        },
      ),
      rawTail: fc.oneof(
        { weight: 5, arbitrary: fc.constant('') },
        { weight: 1, arbitrary: fc.constantFrom('&%zz', '&%', '&=&', '&&&', '&x=%E0%A4%A', '&cursor=%00') },
      ),
      pathValue: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...SYMBOLS) }, { weight: 1, arbitrary: nasty }),
      key,
    });
  })
  .map(({ route, params, extra, rawTail, pathValue, key }) => {
    const path = route.path.replace(/:[a-z_]+/gi, () => enc(pathValue) || 'X');
    const query = [...params, ...extra].map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&');
    return { url: `http://test${path}?${query}${rawTail}`, key };
  });

// ------------------------------------------------------------------ GraphQL documents from the schema

function literalFor(type: GraphQLInputType, depth = 0): fc.Arbitrary<string> {
  if (isNonNullType(type)) return literalFor(type.ofType, depth);
  if (isListType(type))
    return fc.array(literalFor(type.ofType, depth + 1), { maxLength: 3 }).map((xs) => `[${xs.join(', ')}]`);
  const wrong = fc.constantFrom(
    'null',
    '""',
    '-1',
    '0',
    '2147483648',
    '1.5',
    'true',
    '"\\u0000"',
    `"${'9'.repeat(30)}"`,
    '"not-an-id"',
    '{}',
    '[]',
    'NOPE',
  );
  if (isEnumType(type))
    return fc.oneof(
      { weight: 12, arbitrary: fc.constantFrom(...type.getValues().map((v) => v.name)) },
      { weight: 1, arbitrary: wrong },
    );
  if (isInputObjectType(type)) {
    if (depth > 2) return fc.constant('{}');
    const fields = Object.values(type.getFields());
    return upTo(fields, 4)
      .chain((fs) =>
        fs.length
          ? fc.tuple(...fs.map((f) => literalFor(f.type, depth + 1).map((v) => `${f.name}: ${v}`)))
          : fc.constant([] as string[]),
      )
      .map((parts) => `{ ${parts.join(', ')} }`);
  }
  const name = getNamedType(type).name;
  const right: Record<string, fc.Arbitrary<string>> = {
    Int: fc.integer({ min: -5, max: 6000 }).map(String),
    Float: fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => String(d).replace('e+', 'e')),
    Boolean: fc.boolean().map(String),
    String: fc.oneof(fc.constantFrom(...SYMBOLS), fc.string({ maxLength: 30 })).map((s) => JSON.stringify(s)),
    ID: fc.oneof(fc.string({ maxLength: 30 }), fc.base64String({ maxLength: 40 })).map((s) => JSON.stringify(s)),
    DateTime: fc.date({ noInvalidDate: true }).map((d) => JSON.stringify(d.toISOString())),
    Date: fc.date({ noInvalidDate: true }).map((d) => JSON.stringify(d.toISOString().slice(0, 10))),
    BigInt: fc.bigInt({ min: -(2n ** 65n), max: 2n ** 65n }).map((n) => JSON.stringify(String(n))),
  };
  return fc.oneof(
    { weight: 12, arbitrary: right[name] ?? fc.string({ maxLength: 20 }).map((s) => JSON.stringify(s)) },
    { weight: 1, arbitrary: wrong },
  );
}

function selectionFor(type: GraphQLObjectType, depth: number): fc.Arbitrary<string> {
  const fields = Object.values(type.getFields());
  const leaves = fields.filter((f) => isLeafType(getNamedType(f.type)));
  const objects = depth < 3 ? fields.filter((f) => isObjectType(getNamedType(f.type))) : [];
  const leafPick = leaves.length
    ? fc.subarray(
        leaves.map((f) => f.name),
        { minLength: 1, maxLength: Math.min(5, leaves.length) },
      )
    : fc.constant(['__typename']);
  const objectPick = objects.length
    ? upTo(objects, 2).chain((os) =>
        os.length ? fc.tuple(...os.map((o) => fieldFor(o, depth + 1))) : fc.constant([] as string[]),
      )
    : fc.constant([] as string[]);
  return fc.tuple(leafPick, objectPick).map(([ls, os]) => `{ ${[...ls, ...os].join(' ')} }`);
}

function fieldFor(
  field: { name: string; args: readonly GraphQLArgument[]; type: GraphQLInputType | unknown },
  depth: number,
): fc.Arbitrary<string> {
  const args = field.args.length
    ? upTo(field.args, 4).chain((as) =>
        as.length
          ? fc.tuple(...as.map((a) => literalFor(a.type).map((v) => `${a.name}: ${v}`)))
          : fc.constant([] as string[]),
      )
    : fc.constant([] as string[]);
  const named = getNamedType(field.type as GraphQLInputType);
  const selection = isObjectType(named) ? selectionFor(named, depth) : fc.constant('');
  return fc.tuple(args, selection).map(([as, sel]) => `${field.name}${as.length ? `(${as.join(', ')})` : ''} ${sel}`);
}

const queryType = schema.getQueryType()!;
const rootFields = Object.values(queryType.getFields());
const graphqlRequest = fc.record({
  query: fc.oneof(
    {
      weight: 8,
      arbitrary: fc
        .subarray(rootFields, { minLength: 1, maxLength: Math.min(3, rootFields.length) })
        .chain((fs) => fc.tuple(...fs.map((f) => fieldFor(f, 0))))
        .map((parts) => `query Fuzz { ${parts.join(' ')} }`),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '{',
        'query',
        'mutation { revokeApiKey }',
        'subscription { nope }',
        '{ __schema { types { name } } }',
        'query($a: Int!) { logos(first: $a) { totalCount } }',
        '{ node(id: "") { id } }',
        '{ ...F } fragment F on Query { ...F }',
      ),
    },
  ),
  variables: fc.oneof(
    { weight: 4, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  ),
  key,
});

describe.each(dbs)('fuzz on $name', (tdb) => {
  let h: GraphQLHarness;
  beforeAll(async () => {
    // budgets out of reach: the fuzzer explores the handlers, and a sixth of its requests come
    // without a valid key from one address (the anonymous budget is tested in auth/rate-limit.test.ts)
    h = await graphqlHarness(tdb, {
      RATE_LIMIT_FREE: '100000000',
      RATE_LIMIT_PRO: '100000000',
      RATE_LIMIT_ENTERPRISE: '100000000',
      RATE_LIMIT_ANONYMOUS: '100000000',
    });
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  it(`${perDb(REST_RUNS)} generated REST requests: each a 2xx or a coded 4xx`, async () => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(restRequest, async ({ url, key }) => {
        const res = await h.app.fetch(url, { headers: key ? { 'x-api-key': key } : {} });
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const text = await res.text();
        expect(res.status, `${url} → ${text.slice(0, 300)}`).toBeLessThan(500);
        const body = JSON.parse(text);
        if (res.status >= 400) expect(typeof body.code, `${url} → ${text.slice(0, 300)}`).toBe('string');
        else expect(res.status).toBeGreaterThanOrEqual(200);
      }),
      { numRuns: perDb(REST_RUNS) },
    );
    // the generator must reach the handlers, not only the parameter checks
    const ok = [...statuses].filter(([s]) => s < 300).reduce((n, [, c]) => n + c, 0);
    expect(ok / perDb(REST_RUNS), JSON.stringify(Object.fromEntries(statuses))).toBeGreaterThan(0.1);
  });

  it(`${perDb(GRAPHQL_RUNS)} generated GraphQL documents and variables: each answered with data or coded errors`, async () => {
    let withData = 0;
    await fc.assert(
      fc.asyncProperty(graphqlRequest, async ({ query, variables, key }) => {
        const res = await h.app.fetch('http://test/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
          body: JSON.stringify({ query, variables }),
        });
        const text = await res.text();
        const shown = `${query.slice(0, 300)} ${JSON.stringify(variables)?.slice(0, 100)} → ${res.status} ${text.slice(0, 300)}`;
        expect(res.status, shown).toBeLessThan(500);
        const body = JSON.parse(text);
        if (body.data && Object.values(body.data).some((v) => v !== null)) withData++;
        for (const e of body.errors ?? []) {
          expect(typeof (e.extensions?.code ?? body.code), shown).toBe('string');
          expect(e.extensions?.code, shown).not.toBe('INTERNAL_SERVER_ERROR');
        }
        if (res.status >= 400 && !body.errors) expect(typeof body.code, shown).toBe('string');
      }),
      { numRuns: perDb(GRAPHQL_RUNS) },
    );
    expect(withData / perDb(GRAPHQL_RUNS)).toBeGreaterThan(0.1);
  });

  // what the fuzzer found first: U+0000 reached PostgreSQL (which refuses it in text) as a 500
  it('refuses NUL characters in REST parameters, GraphQL literals and variables with coded 4xx', async () => {
    const r = await h.app.fetch('http://test/rating/api/v1/ratings?company=A%00B', {
      headers: { 'x-api-key': 'demo-enterprise' },
    });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { message: string }).message).toBe(
      'parameter company must be text without NUL characters (U+0000); got "A\\u0000B"',
    );
    const lit = await h.gql('{ enhancedFundamentals(symbol: "\\u0000") { totalCount } }');
    expect(lit.errors?.[0]).toMatchObject({
      message: 'argument "symbol": text may not contain NUL characters (U+0000)',
      extensions: { code: 'BAD_USER_INPUT' },
    });
    const vars = await h.gql('query($s: String!) { ratings(filter: { firm: $s }) { totalCount } }', { s: 'a\u0000' });
    expect(vars.errors?.[0]).toMatchObject({
      message: 'variables: text may not contain NUL characters (U+0000)',
      extensions: { code: 'BAD_USER_INPUT' },
    });
  });

  // the second: a time bound past 2262 overflowed the 64-bit nanosecond column (500 on PostgreSQL)
  it('takes time bounds outside the 64-bit nanosecond range as the column limit', async () => {
    const far = await h.gql(
      '{ quotes(symbol: "NVLX", from: "2262-04-11T23:47:16.855Z") { nodes { sequenceNumber } } trades(symbol: "NVLX", to: "1600-01-01T00:00:00Z") { nodes { sequenceNumber } } }',
    );
    expect(far.errors).toBeUndefined();
    expect(far.data).toEqual({ quotes: { nodes: [] }, trades: { nodes: [] } });
    const rest = await h.app.fetch('http://test/stocks/v3/trades/NVLX?timestamp.gte=9999-12-31', {
      headers: { 'x-api-key': 'demo-enterprise' },
    });
    expect(rest.status).toBe(200);
    expect(((await rest.json()) as { results: unknown[] }).results).toEqual([]);
  });

  it('is healthy afterwards', async () => {
    expect((await h.app.fetch('http://test/healthz')).status).toBe(200);
    const r = await h.gql('{ logos(first: 1) { totalCount } }');
    expect(r.errors).toBeUndefined();
    expect(r.data.logos.totalCount).toBeGreaterThan(0);
  });
});
