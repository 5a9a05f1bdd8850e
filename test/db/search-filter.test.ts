import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prisma, type Security } from '../../generated/prisma/client.js';
import { filterSql, orderSql } from '../../src/db/search-filter.js';
import { readSql } from '../../src/db/sql.js';
import { matchesFilter } from '../../src/domain/filter-match.js';
import { parseFilterBy, parseSortBy, type SortTerm } from '../../src/domain/search-syntax.js';
import { Rng } from '../../src/sample/random.js';
import { SECURITY_SEARCH_FIELDS, securityColumnOf } from '../../src/services/security-fields.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { testDatabases } from '../helpers.js';

// The SQL of db/search-filter.ts, held to the JS of domain/filter-match.ts (matchesFilter, and a
// JS sort) over the sample securities plus rows whose fields are null, on each database: every
// filter goes through parseFilterBy from its text, as a client sends it.

type Value = string | number | boolean | null;

function valueOf(row: Security): (field: string) => Value {
  return (field) => {
    const v = row[SECURITY_SEARCH_FIELDS.get(field)!.column as keyof Security];
    return typeof v === 'bigint' ? Number(v) : (v as Value);
  };
}

/** Securities with the nulls the sample data lacks (and a market cap past 2^31, an inactive ETF). */
const EXTRA: Prisma.SecurityCreateInput[] = [
  {
    id: 'BBGSRCHTEST1_XLON',
    symbol: 'NUL1',
    name: 'Null One plc',
    status: 'ACTIVE',
    micCode: 'XLON',
    figi: 'BBGSRCHTEST1',
    exchangeCountry: 'GB',
  },
  {
    id: 'BBGSRCHTEST2_XNAS',
    symbol: 'NUL2',
    name: 'Null Two Inc',
    status: 'INACTIVE',
    micCode: 'XNAS',
    figi: 'BBGSRCHTEST2',
    active: false,
    securityType: 'ETF',
    marketCap: 5_000_000_000n,
  },
  {
    id: 'BBGSRCHTEST3_XNYS',
    symbol: 'NUL3',
    name: 'Null Three Co',
    status: 'ACTIVE',
    micCode: 'XNYS',
    figi: 'BBGSRCHTEST3',
    gics: 'Energy',
    totalEmployees: 0,
    marketCap: 0n,
  },
];

const FILTERED = [
  'exchange_info.mic_code',
  'exchange_info.exchange_country',
  'classification.gics',
  'classification.security_type',
  'classification.market_sector',
  'ticker_meta.active',
  'financials.market_cap',
  'company_info.total_employees',
];

const literal = (v: string | number | boolean) =>
  typeof v === 'string' ? (/^[A-Za-z0-9_.-]+$/.test(v) ? v : `\`${v}\``) : String(v);

/** A random comparison on `field`, its values drawn from what the rows hold (so bounds hit exactly) and a few they do not. */
function comparison(rng: Rng, field: string, rows: readonly Security[]): string {
  const present = [...new Set(rows.map((r) => valueOf(r)(field)).filter((v) => v !== null))] as (
    | string
    | number
    | boolean
  )[];
  const kind = SECURITY_SEARCH_FIELDS.get(field)!.kind;
  const pool =
    kind === 'string' ? [...present, 'NOPE'] : kind === 'boolean' ? [true, false] : [...present, -1, 0.5, 1e15];
  const value = () => {
    const v = rng.pick(pool);
    return typeof v === 'number' && rng.chance(0.3) ? v + rng.pick([-0.5, 0.25, 1]) : v;
  };
  const list = () =>
    Array.from({ length: rng.int(1, 4) }, () => {
      if (kind !== 'number' || rng.chance(0.5)) return literal(value());
      const [a, b] = [value() as number, value() as number].sort((x, y) => x - y);
      return `${a}..${b}`;
    });
  const ops = kind === 'number' ? ['', '=', '!=', '>', '>=', '<', '<=', '[]', '![]'] : ['', '=', '!=', '[]', '!=[]'];
  const op = rng.pick(ops);
  if (op === '[]') return `${field}:[${list().join(', ')}]`;
  if (op.endsWith('[]')) return `${field}:${op.slice(0, -2)}[${list().join(',')}]`;
  return `${field}:${op}${literal(value())}`;
}

function randomFilter(rng: Rng, rows: readonly Security[], depth = 0): string {
  if (depth === 3 || rng.chance(0.4)) return comparison(rng, rng.pick(FILTERED), rows);
  const parts = Array.from({ length: rng.int(2, 3) }, () => randomFilter(rng, rows, depth + 1));
  const joined = parts.join(rng.chance(0.5) ? ' && ' : ' || ');
  return depth === 0 ? joined : `(${joined})`;
}

function jsOrder(rows: readonly Security[], sort: readonly SortTerm[], score: (s: Security) => number): string[] {
  const cmp = (a: Value, b: Value) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1);
  return [...rows]
    .sort((x, y) => {
      for (const { field, order } of sort) {
        const [a, b] = field === '_text_match' ? [score(x), score(y)] : [valueOf(x)(field), valueOf(y)(field)];
        const c = a === null || b === null ? cmp(a, b) : order === 'asc' ? cmp(a, b) : cmp(b, a);
        if (c) return c;
      }
      return x.id < y.id ? -1 : 1;
    })
    .map((r) => r.id);
}

describe.each(testDatabases())('filterSql and orderSql on $name', (tdb) => {
  let h: GraphQLHarness;
  let rows: Security[];
  const idsWhere = async (where: Prisma.Sql) =>
    (await h.db.prisma.$queryRaw<{ id: string }[]>`SELECT "id" FROM "Security" WHERE ${where} ORDER BY "id"`).map(
      (r) => r.id,
    );
  const oracle = (text: string) =>
    rows
      .filter((r) => matchesFilter(parseFilterBy(text, SECURITY_SEARCH_FIELDS), valueOf(r)))
      .map((r) => r.id)
      .sort();

  beforeAll(async () => {
    h = await graphqlHarness(tdb);
    for (const data of EXTRA) await h.db.prisma.security.create({ data });
    rows = await h.db.prisma.security.findMany({ orderBy: { id: 'asc' } });
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  it('selects the ids matchesFilter keeps, for 60 seeded random filters over eight fields', async () => {
    const rng = new Rng('search-filter-test');
    let partial = 0;
    for (let i = 0; i < 60; i++) {
      const text = randomFilter(rng, rows);
      const expected = oracle(text);
      expect(await idsWhere(filterSql(parseFilterBy(text, SECURITY_SEARCH_FIELDS), securityColumnOf)), text).toEqual(
        expected,
      );
      if (expected.length > 0 && expected.length < rows.length) partial++;
    }
    expect(partial).toBeGreaterThanOrEqual(20); // most filters split the rows: the comparison can fail
  });

  it('agrees on the cases the types make hard: decimals and 2^31+ on integer columns, nulls under !=, booleans, backticks', async () => {
    const cases = [
      'financials.market_cap:>1.5 && financials.market_cap:<4999999999.5',
      'financials.market_cap:[0.5..5000000000]',
      'company_info.total_employees:<3000000000 && company_info.total_employees:!=0.5',
      'company_info.total_employees:[-0.5..0.5, 3000000000]',
      'financials.market_cap:!=[0, 5000000000] || classification.gics:!=Energy',
      'exchange_info.exchange_country:!=US',
      'ticker_meta.active:false',
      'ticker_meta.active:!=[true]',
      'classification.gics:[`Health Care`, `Information Technology`] && classification.security_type:`Common Stock`',
    ];
    for (const text of cases) {
      const where = filterSql(parseFilterBy(text, SECURITY_SEARCH_FIELDS), securityColumnOf);
      const expected = oracle(text);
      expect(expected.length, text).toBeGreaterThan(0);
      expect(await idsWhere(where), text).toEqual(expected);
      // and through Db.read, the driver-level path of the hot reads
      const viaRead = await readSql<{ id: string }>(
        h.db,
        Prisma.sql`SELECT "id" FROM "Security" WHERE ${where} ORDER BY "id"`,
      );
      expect(
        viaRead.map((r) => r.id),
        text,
      ).toEqual(expected);
    }
    expect(oracle('exchange_info.exchange_country:!=US')).not.toContain('BBGSRCHTEST2_XNAS'); // its country is null
  });

  it('orders as a JS sort does: each direction, nulls last in both, then the caller’s tie-breaker', async () => {
    const rng = new Rng('search-order-test');
    const sortable = ['symbol', 'name', 'financials.market_cap', 'company_info.total_employees', '_text_match'];
    const score = (s: Security) => s.name.length % 7;
    for (let i = 0; i < 20; i++) {
      const text = rng
        .sample(sortable, rng.int(1, 3))
        .map((f) => `${f}:${rng.pick(['asc', 'desc'])}`)
        .join(',');
      const sort = parseSortBy(text, SECURITY_SEARCH_FIELDS);
      const order = orderSql(sort, securityColumnOf, Prisma.sql`(LENGTH("name") % 7)`);
      const ids = (
        await h.db.prisma.$queryRaw<{ id: string }[]>`SELECT "id" FROM "Security" ORDER BY ${order}, "id"`
      ).map((r) => r.id);
      expect(ids, text).toEqual(jsOrder(rows, sort, score));
    }
  });

  it('leaves _text_match out without a score, and makes nothing of an empty sort', async () => {
    const sort = parseSortBy('_text_match:desc,financials.market_cap:desc', SECURITY_SEARCH_FIELDS);
    const ids = (
      await h.db.prisma.$queryRaw<
        { id: string }[]
      >`SELECT "id" FROM "Security" ORDER BY ${orderSql(sort, securityColumnOf)}, "id"`
    ).map((r) => r.id);
    expect(ids).toEqual(jsOrder(rows, sort.slice(1), () => 0));
    expect(orderSql([], securityColumnOf)).toBe(Prisma.empty);
  });
});
