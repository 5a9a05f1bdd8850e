// The fuzz corpus: generated REST requests for every GET route (their own parameters, valid and
// not, unknown and repeated ones, raw escapes) and generated GraphQL documents and variables from
// the schema. test/attack/fuzz.test.ts asserts what the app answers them; test/attack/production.test.ts
// replays them in production for what no answer may hold.
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
import { routes } from '../../src/rest/routes.js';
import type { ParamSpec } from '../../src/rest/params.js';
import { schema } from '../../src/schema/index.js';

const SCALE = Number(process.env.FUZZ_SCALE ?? 1) || 1;
/** Generated REST requests in a run, and GraphQL requests (at FUZZ_SCALE 1). */
export const REST_RUNS = Math.round(6000 * SCALE);
export const GRAPHQL_RUNS = Math.round(4000 * SCALE);

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
    if (spec.enum) plausible.push(fc.constantFrom(...spec.enum, ...spec.enum.map((v) => v.toUpperCase())));
    if (spec.format === 'date')
      plausible.push(fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)));
    if (spec.format === 'time' || spec.format === 'time-or-nanos')
      plausible.push(
        fc
          .date({ noInvalidDate: true })
          .chain((d) =>
            fc.constantFrom(
              d.toISOString(),
              d.toISOString().slice(0, 10),
              d.toISOString().slice(0, 19).replace('T', ' '),
              `${d.toISOString().slice(0, 19)}+05:30`,
            ),
          ),
      );
    plausible.push(fc.constantFrom(...SYMBOLS, SYMBOLS.join(','), 'NVLX,,ORBT'));
  }
  return fc.oneof({ weight: 6, arbitrary: fc.oneof(...plausible) }, { weight: 1, arbitrary: nasty });
}

const getRoutes = routes.filter((r) => r.method === 'GET');
/** A lone surrogate cannot be percent-encoded; a client would send U+FFFD. */
const enc = (s: string) => encodeURIComponent((s as string & { toWellFormed(): string }).toWellFormed());
const upTo = <T>(xs: readonly T[], max: number) => fc.subarray([...xs], { maxLength: Math.min(max, xs.length) });

/** A request to one GET route: its own parameters (some valid, some not), unknown and repeated ones, raw escapes. */
export const restRequest = fc
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
                fc.constantFrom('cursor', 'page', 'apikey', 'sort', '__proto__', 'constructor', 'a[b]', '_'),
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
/** A GraphQL request: a document made from the schema (or text, or a known troublemaker), maybe variables, a key. */
export const graphqlRequest = fc.record({
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
