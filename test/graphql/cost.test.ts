// The cost analysis (src/graphql/cost.ts): every list counted at its size, decided before anything
// runs; and the budget of work in flight (src/runtime/in-flight.ts). The class tests enumerate the schema's
// list fields, so that a list added without a declared size fails here.
import {
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  parse,
  validate,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLObjectType,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TICK_COUNT_UNITS } from '../../src/domain/limits.js';
import { AppError } from '../../src/errors.js';
import {
  operationCost,
  UNDECLARED_LIST_SIZE,
  type ListSizeExtension,
  type PageSizeExtension,
} from '../../src/graphql/cost.js';
import { costOptions } from '../../src/graphql/guard.js';
import { PAGE_SIZES, TEXT_LIMITS } from '../../src/domain/limits.js';
import { InFlightBudget } from '../../src/runtime/in-flight.js';
import { schema } from '../../src/schema/index.js';
import { graphqlHarness, type GraphQLHarness } from './helpers.js';
import { testDatabases } from '../helpers.js';

type AnyField = GraphQLField<unknown, unknown>;

const isList = (field: AnyField) => isListType(getNullableType(field.type));
const isConnection = (field: AnyField) => getNamedType(field.type).name.endsWith('Connection');
const pageSizeOf = (field: AnyField) =>
  field.args.find((a) => a.name === 'first')?.extensions.pageSize as PageSizeExtension | undefined;
/** A list's declared largest size: on the field, or the import's limit for a stored child list. */
const listSizeOf = (coordinate: string, field: AnyField): ListSizeExtension | undefined => {
  const declared = field.extensions.listSize as ListSizeExtension | undefined;
  const imported = costOptions.listItems?.(coordinate);
  return declared ?? (imported === undefined ? undefined : { max: imported.max });
};
/** Units of one item of a list: `{ __typename }` of an object (2), or a leaf at its longest text (64 characters a unit). */
const itemUnits = (coordinate: string, field: AnyField): number => {
  const type = getNamedType(field.type);
  if (isObjectType(type) || isInterfaceType(type)) return 2;
  const kind = field.extensions.textKind as keyof typeof TEXT_LIMITS | undefined;
  const chars =
    (kind && TEXT_LIMITS[kind]) ?? costOptions.textChars?.(coordinate) ?? (type.name === 'String' ? 256 : undefined);
  return chars === undefined ? 1 : Math.ceil(chars / 64);
};

/** A literal for a required argument of `type`, enough for the document to validate. */
function literal(type: GraphQLInputType): string {
  const t = isNonNullType(type) ? type.ofType : type;
  if (isListType(t)) return `[${literal(t.ofType)}]`;
  if (isEnumType(t)) return t.getValues()[0]!.name;
  if (isInputObjectType(t)) {
    const required = Object.values(t.getFields()).filter((f) => isNonNullType(f.type) && f.defaultValue === undefined);
    return `{ ${required.map((f) => `${f.name}: ${literal(f.type)}`).join(', ')} }`;
  }
  if (isScalarType(t)) {
    if (t.name === 'Int' || t.name === 'Float') return '1';
    if (t.name === 'Boolean') return 'true';
    if (t.name === 'DateTime') return '"2026-11-19T14:00:00Z"';
    if (t.name === 'Date') return '"2026-11-19"';
    return '"NVLX"';
  }
  throw new Error(`no literal for ${String(type)}`);
}

const requiredArgs = (args: readonly GraphQLArgument[]) =>
  args
    .filter((a) => isNonNullType(a.type) && a.defaultValue === undefined && a.name !== 'first')
    .map((a) => `${a.name}: ${literal(a.type)}`);

/** The smallest selection of a field's type: a leaf, or the first scalar of its object (or `__typename`). */
function leafSelection(field: AnyField): string {
  const type = getNamedType(field.type);
  return isObjectType(type) || isInterfaceType(type) ? '{ __typename }' : '';
}

interface Path {
  /** Wraps the inner selection in the fields leading to the list, from an operation root. */
  wrap(inner: string): string;
  operation: 'query' | 'mutation' | 'subscription';
}

/**
 * Every list field of the schema, with a path from a root to it: breadth-first, through single
 * records before lists, so a type reachable as one record (Security.snapshot) is not reached as
 * twenty (Query.movers): the cost a test reads at the end of the path is then that of one parent.
 */
function listFields(): { coordinate: string; field: AnyField; path: Path }[] {
  const found = new Map<string, { coordinate: string; field: AnyField; path: Path }>();
  const seen = new Set<string>();
  const queue: { type: GraphQLObjectType; path: Path }[] = [];
  const roots = [
    ['query', schema.getQueryType()],
    ['mutation', schema.getMutationType()],
    ['subscription', schema.getSubscriptionType()],
  ] as const;
  for (const [operation, type] of roots) if (type) queue.push({ type, path: { operation, wrap: (inner) => inner } });
  const throughLists: typeof queue = [];
  while (queue.length || throughLists.length) {
    const { type, path } = (queue.length ? queue : throughLists).shift()!;
    if (seen.has(type.name)) continue;
    seen.add(type.name);
    for (const field of Object.values(type.getFields()) as AnyField[]) {
      const args = requiredArgs(field.args);
      const call = `${field.name}${args.length ? `(${args.join(', ')})` : ''}`;
      const coordinate = `${type.name}.${field.name}`;
      if ((isList(field) || isConnection(field)) && !found.has(coordinate))
        found.set(coordinate, { coordinate, field, path });
      const next = getNamedType(field.type);
      const objects = isObjectType(next) ? [next] : isInterfaceType(next) ? schema.getPossibleTypes(next) : [];
      for (const object of objects) {
        const spread = isInterfaceType(next)
          ? (inner: string) => `{ ... on ${object.name} { ${inner} } }`
          : (inner: string) => `{ ${inner} }`;
        (isList(field) || isConnection(field) ? throughLists : queue).push({
          type: object,
          path: { operation: path.operation, wrap: (inner) => path.wrap(`${call} ${spread(inner)}`) },
        });
      }
    }
  }
  return [...found.values()];
}

const costOf = (query: string, variables: Record<string, unknown> = {}) => {
  const document = parse(query);
  const errors = validate(schema, document);
  if (errors.length) throw new Error(`${query}: ${errors.map((e) => e.message).join('; ')}`);
  return operationCost(schema, document, undefined, variables, costOptions).cost;
};

describe('every list of the schema has a size the cost analysis counts', () => {
  const lists = listFields();

  it('finds the lists (a sanity check of the enumeration)', () => {
    const coordinates = lists.map((l) => l.coordinate);
    for (const c of [
      'Query.trades',
      'Security.bars',
      'Logo.securities',
      'Security.balanceSheets',
      'TradeConnection.nodes',
      'Query.nodes',
    ])
      expect(coordinates).toContain(c);
  });

  it('declares a page size on `first` or a largest size on the field, for every list and connection', () => {
    const undeclared = lists
      .filter(
        ({ field, coordinate }) =>
          !coordinate.match(/Connection\.(edges|nodes)$/) &&
          !pageSizeOf(field) &&
          !listSizeOf(coordinate, field)?.max &&
          !listSizeOf(coordinate, field)?.perNode,
      )
      .map((l) => l.coordinate);
    expect(undeclared).toEqual([]);
  });

  it("counts a list of one item per node (an indicator's values) at the connection's page, and its warm-up once", () => {
    const bars = (first: number, fields: string) =>
      costOf(
        `{ security(symbol: "A") { bars(timespan: DAY, from: "2026-01-01", to: "2026-02-01", first: ${first}) { ${fields} } } }`,
      );
    const sma = (first: number) => bars(first, 'sma(window: 5) { value }') - bars(first, 'queryCount');
    // each value is an object of one float (2 units); the warm-up's work is the same whatever the page
    expect(sma(100) - sma(10)).toBe(90 * 2);
    expect(sma(1000) - sma(100)).toBe(900 * 2);
    expect(sma(1)).toBeGreaterThan(1_000);
  });

  it('counts a list without `first` at its default page size, as `first: <default>` and `first: $n` with the default, and more than `first: 1`', () => {
    const paged = lists.filter((l) => pageSizeOf(l.field));
    expect(paged.length).toBeGreaterThan(15);
    for (const { coordinate, field, path } of paged) {
      const size = pageSizeOf(field)!;
      const args = requiredArgs(field.args);
      const with_ = (first: string | null) => {
        const all = [...args, ...(first === null ? [] : [`first: ${first}`])];
        return path.wrap(
          `${field.name}${all.length ? `(${all.join(', ')})` : ''} ${isConnection(field) ? '{ nodes { __typename } }' : leafSelection(field)}`,
        );
      };
      const op = (body: string, vars = '') => `${path.operation}${vars} { ${body} }`;
      const omitted = costOf(op(with_(null)));
      expect(omitted, coordinate).toBe(costOf(op(with_(String(size.default)))));
      expect(omitted, coordinate).toBe(costOf(op(with_('$n'), '($n: Int)'), { n: size.default }));
      expect(omitted, coordinate).toBe(costOf(op(with_('$n'), `($n: Int = ${size.default})`)));
      expect(costOf(op(with_(String(size.max)))), coordinate).toBeGreaterThanOrEqual(omitted);
      if (size.default > 1) expect(costOf(op(with_('1'))), coordinate).toBeLessThan(omitted);
      // the count a list is held to is its largest size at most
      expect(omitted, coordinate).toBeGreaterThanOrEqual(size.default);
    }
  });

  it("counts a stored record's child list at its kind's default size (a page of records), not the import's limit", () => {
    const children = lists.filter((l) => costOptions.listItems?.(l.coordinate));
    expect(children.length).toBeGreaterThan(15);
    for (const { coordinate, field, path } of children) {
      const size = costOptions.listItems!(coordinate)!;
      expect(size.default, coordinate).toBe(Math.min(PAGE_SIZES.records.default, size.max));
      const args = requiredArgs(field.args);
      const call = `${field.name}${args.length ? `(${args.join(', ')})` : ''} ${leafSelection(field)}`;
      const withList = costOf(`${path.operation} { ${path.wrap(`__typename ${call}`)} }`);
      const without = costOf(`${path.operation} { ${path.wrap('__typename')} }`);
      expect(withList - without, coordinate).toBe(size.default * itemUnits(coordinate, field));
    }
    // by hand: a logo's securities are 10 securities of 2 units (the object, its __typename), not 100
    expect(costOf('{ logos(first: 1) { nodes { securities { __typename } } } }')).toBe(1 + 1 * (1 + 10 * 2));
  });

  it("counts a list the schema's code bounds at its largest declared size", () => {
    const bounded = lists.filter(
      (l) =>
        !pageSizeOf(l.field) &&
        (l.field.extensions.listSize as ListSizeExtension | undefined)?.max &&
        !(l.field.extensions.listSize as ListSizeExtension).itemsOf,
    );
    expect(bounded.length).toBeGreaterThan(3);
    for (const { coordinate, field, path } of bounded) {
      const args = requiredArgs(field.args);
      const call = `${field.name}${args.length ? `(${args.join(', ')})` : ''} ${leafSelection(field)}`;
      const withList = costOf(`${path.operation} { ${path.wrap(`__typename ${call}`)} }`);
      const without = costOf(`${path.operation} { ${path.wrap('__typename')} }`);
      const max = (field.extensions.listSize as ListSizeExtension).max!;
      // once per item of the lists its path passes through (a search hit's highlights: per edge)
      expect((withList - without) % (max * itemUnits(coordinate, field)), coordinate).toBe(0);
      expect(withList - without, coordinate).toBeGreaterThan(0);
      expect(max, coordinate).not.toBe(UNDECLARED_LIST_SIZE);
    }
  });

  it('counts a connection paged backward at its `last` as it counts `first`', () => {
    const connections = lists.filter((l) => isConnection(l.field) && pageSizeOf(l.field));
    expect(connections.length).toBe(26);
    for (const { coordinate, field, path } of connections) {
      const size = pageSizeOf(field)!;
      expect(field.args.find((a) => a.name === 'last')?.extensions.pageSize, coordinate).toEqual(size);
      const args = requiredArgs(field.args);
      const op = (paging: string, vars = '') =>
        `${path.operation}${vars} { ${path.wrap(`${field.name}(${[...args, paging].join(', ')}) { nodes { __typename } }`)} }`;
      for (const n of [1, size.default, size.max])
        expect(costOf(op(`last: ${n}, before: "c"`)), `${coordinate} last: ${n}`).toBe(costOf(op(`first: ${n}`)));
      expect(costOf(op('last: $n', '($n: Int)'), { n: size.max }), coordinate).toBe(costOf(op(`first: ${size.max}`)));
    }
  });

  it('charges a tick count its work (TICK_COUNT_UNITS), other counts one unit', () => {
    for (const field of ['trades', 'quotes']) {
      const page = (sel: string) => costOf(`{ ${field}(symbol: "NVLX", first: 1) { ${sel} } }`);
      expect(page('totalCount') - page('__typename'), field).toBe(TICK_COUNT_UNITS);
      expect(page('totalCountIsEstimate') - page('__typename'), field).toBe(0);
    }
    expect(costOf('{ ratings(first: 1) { totalCount } }') - costOf('{ ratings(first: 1) { __typename } }')).toBe(0);
  });

  it("charges a tick count only where it is counted: a root list of one symbol, not a watchlist nor a security's list, where it is null", () => {
    for (const field of ['trades', 'quotes']) {
      const diff = (list: string, vars = '', values: Record<string, unknown> = {}) =>
        costOf(`query${vars} { ${list.replace('SEL', 'totalCount')} }`, values) -
        costOf(`query${vars} { ${list.replace('SEL', '__typename')} }`, values);
      expect(diff(`${field}(symbol: "NVLX", first: 1) { SEL }`), field).toBe(TICK_COUNT_UNITS);
      expect(diff(`${field}(symbol: $s, first: 1) { SEL }`, '($s: String)', { s: 'NVLX' }), field).toBe(
        TICK_COUNT_UNITS,
      );
      expect(diff(`${field}(symbols: ["NVLX", "ORBT"], first: 1) { SEL }`), field).toBe(0);
      expect(
        diff(`${field}(symbol: $s, symbols: ["NVLX"], first: 1) { SEL }`, '($s: String)', { s: null }),
        field,
      ).toBe(0);
      expect(diff(`security(symbol: "NVLX") { ${field}(first: 1) { SEL } }`), field).toBe(0);
      // inside a fragment, as in the list it is spread in
      const fragment = `fragment C on ${field === 'trades' ? 'Trade' : 'Quote'}Connection { totalCount }`;
      const root = costOf(`{ ${field}(symbol: "NVLX", first: 1) { ...C } } ${fragment}`);
      const nested = costOf(`{ security(symbol: "NVLX") { ${field}(first: 1) { ...C } } } ${fragment}`);
      const both = costOf(
        `{ a: ${field}(symbol: "NVLX", first: 1) { ...C } security(symbol: "NVLX") { ${field}(first: 1) { ...C } } } ${fragment}`,
      );
      expect([root - nested, both - root - nested], field).toEqual([TICK_COUNT_UNITS - 1, 0]);
    }
    // the walkthrough's page: 27 securities' last trade with a (null) count passes
    expect(
      costOf('{ securities(first: 27) { nodes { symbol trades(first: 1) { totalCount nodes { price } } } } }'),
    ).toBeLessThan(200_000);
  });

  it('prices a chain of fragments each spread twice in linear work, inside a field as at the root', () => {
    // 2^40 expansions if each spread were walked anew; the walk counts its fragment pricings
    const chain = (n: number) =>
      Array.from({ length: n }, (_, i) =>
        i === n - 1
          ? `fragment F${i} on Security { symbol }`
          : `fragment F${i} on Security { ...F${i + 1} ...F${i + 1} }`,
      ).join(' ');
    const inside = costOf(`{ security(symbol: "NVLX") { ...F0 } } ${chain(40)}`);
    const security = costOf('{ security(symbol: "NVLX") { __typename } }') - 1;
    const symbol = costOf('{ security(symbol: "NVLX") { symbol } }') - security;
    expect(inside).toBe(security + 2 ** 39 * symbol);
    expect(costOf(`{ ...Q } fragment Q on Query { security(symbol: "NVLX") { ...F0 } } ${chain(40)}`)).toBe(inside);
  });

  it('multiplies nested sizes, and counts `nodes(ids:)` at the ids sent', () => {
    const trades = costOf('{ trades(symbol: "NVLX", first: 100) { nodes { price } } }');
    const nested = costOf(
      '{ securities(search: "NV", first: 10) { nodes { trades(first: 100) { nodes { price } } } } }',
    );
    expect(nested).toBeGreaterThan(10 * (trades - 1));
    // each item: the object (1) and its __typename (1)
    expect(costOf('query($ids: [ID!]!) { nodes(ids: $ids) { __typename } }', { ids: ['a', 'b', 'c'] })).toBe(3 * 2);
    expect(costOf('{ nodes(ids: ["a"]) { __typename } }')).toBe(2);
  });
});

describe('the budget of work in flight', () => {
  it('admits at once while there is room, then in arrival order as room is released', async () => {
    const budget = new InFlightBudget(10, 1_000);
    const a = (await budget.acquire(6)) as () => void;
    const order: string[] = [];
    const b = Promise.resolve(budget.acquire(6)).then((release) => (order.push('b'), release));
    const c = Promise.resolve(budget.acquire(2)).then((release) => (order.push('c'), release));
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual([]); // c fits, but b came first
    a();
    (await b)();
    (await c)();
    expect(order).toEqual(['b', 'c']);
    expect(budget.used).toBe(0);
  });

  it('answers SERVICE_UNAVAILABLE with Retry-After when the wait passes its limit, and lets the ones behind go', async () => {
    const budget = new InFlightBudget(10, 20);
    const held = (await budget.acquire(10)) as () => void;
    const waited = await Promise.resolve(budget.acquire(1)).then(
      () => null,
      (e: unknown) => e,
    );
    expect(waited).toBeInstanceOf(AppError);
    expect((waited as AppError).code).toBe('SERVICE_UNAVAILABLE');
    expect((waited as AppError).headers['retry-after']).toBe('1');
    held();
    held(); // a second release changes nothing
    expect(budget.used).toBe(0);
  });
});

describe.each(testDatabases())('the budget of work in flight through the app on $name', (tdb) => {
  let h: GraphQLHarness;
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  it('makes a request wait for room in the budget of work in flight, and answers 503 with Retry-After past the wait', async () => {
    const budget = new InFlightBudget(200_000, 50);
    const app = h.appWith({}, { budget });
    const held = (await budget.acquire(200_000)) as () => void;
    const res = await app.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'demo-pro' },
      body: JSON.stringify({ query: '{ trades(symbol: "NVLX", first: 5) { nodes { price } } }' }),
    });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(((await res.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe(
      'SERVICE_UNAVAILABLE',
    );
    held();
    const ok = await app.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'demo-pro' },
      body: JSON.stringify({ query: '{ trades(symbol: "NVLX", first: 5) { nodes { price } } }' }),
    });
    expect(ok.status).toBe(200);
    expect(budget.used).toBe(0);
  });

  it('holds a REST page in the same budget, at its page size times the units of its record', async () => {
    const budget = new InFlightBudget(200_000, 50);
    const app = h.appWith({}, { budget });
    const held = (await budget.acquire(200_000)) as () => void;
    const res = await app.fetch('http://test/stocks/v3/trades/NVLX?limit=5', { headers: { 'x-api-key': 'demo-pro' } });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(await res.json()).toMatchObject({ status: 'ERROR', code: 'SERVICE_UNAVAILABLE' });
    held();
    expect(
      (await app.fetch('http://test/stocks/v3/trades/NVLX?limit=5', { headers: { 'x-api-key': 'demo-pro' } })).status,
    ).toBe(200);
    expect(budget.used).toBe(0);
  });
});
