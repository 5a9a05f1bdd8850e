import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Prisma } from '../../generated/prisma/client.js';
import { prefixCounts, setPrefixCountThreshold } from '../../src/services/security-counts.js';
import { SEARCH_TYPES, searchPrefixes, type SearchType } from '../../src/services/security.js';
import { testDatabases } from '../helpers.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { rest } from '../rest/helpers.js';

const PATH = '/search/api/v1/securities';
const q = (params: Record<string, string | number>) =>
  `${PATH}?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))}`;
const prefixOf = (value: string, length: number) => [...value].slice(0, length).join('');

describe('prefixCounts', () => {
  it('gives exactly the prefixes (by code point) that at least the threshold of values start with, with their counts', () => {
    const value = fc
      .array(fc.constantFrom('A', 'B', 'Z', 'é', '😀', '\u{1F600}\u{1F601}'), { maxLength: 6 })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.array(value, { maxLength: 60 }), fc.integer({ min: 1, max: 8 }), (values, threshold) => {
        const want = new Map<string, number>();
        for (const v of values) {
          for (let n = 1; n <= [...v].length; n++) want.set(prefixOf(v, n), (want.get(prefixOf(v, n)) ?? 0) + 1);
        }
        const got = prefixCounts([...values].sort(), threshold);
        expect([...got].sort()).toEqual([...want].filter(([, n]) => n >= threshold).sort());
      }),
    );
  });
});

describe.each(testDatabases())('exact search counts on $name', (tdb) => {
  /** Low enough that the sample master (about 50 securities) has prefixes above it. */
  const THRESHOLD = 4;
  let h: GraphQLHarness;
  beforeAll(async () => {
    h = await graphqlHarness(tdb);
    setPrefixCountThreshold(h.db, THRESHOLD);
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  const version = async () =>
    BigInt(
      (
        await h.db.prisma.$queryRawUnsafe<{ version: bigint | number }[]>(
          'SELECT "version" FROM "SecurityMasterVersion" WHERE "id" = 1',
        )
      )[0]!.version,
    );
  /** Counted in SQL directly, without the search's range: how many values of `column` start with `prefix`. */
  const countStartingWith = async (column: string, prefix: string) => {
    const where = Prisma.sql`substr(${Prisma.raw(`"${column}"`)}, 1, ${Prisma.raw(String([...prefix].length))}) = ${prefix}`;
    const [row] = await h.db.prisma.$queryRaw<{ n: bigint | number }[]>(
      Prisma.sql`SELECT COUNT(*) AS "n" FROM "Security" WHERE ${where}`,
    );
    return Number(row!.n);
  };
  const countAll = async () =>
    Number(
      (await h.db.prisma.$queryRawUnsafe<{ n: bigint | number }[]>('SELECT COUNT(*) AS "n" FROM "Security"'))[0]!.n,
    );
  /** A search through REST, and whether it counted in SQL (rather than answering from the summary). */
  const search = async (type: SearchType, query: string) => {
    const statements: string[] = [];
    const stop = h.db.onStatement((sql) => statements.push(sql));
    try {
      const r = await rest(h, q({ search: query, search_type: type, per_page: 1 }));
      expect(r.status, `${type} ${query}: ${r.text}`).toBe(200);
      return {
        found: r.body.data.found as number,
        outOf: r.body.data.out_of as number,
        counted: statements.some((s) => /COUNT\(/i.test(s)),
      };
    } finally {
      stop();
    }
  };
  /** How many values of `column` start with one of the beginnings a search matches (searchPrefixes: disjoint, so the counts add up). */
  const countMatching = async (type: SearchType, query: string) => {
    let n = 0;
    for (const prefix of searchPrefixes(type, query)) n += await countStartingWith(SEARCH_TYPES[type], prefix);
    return n;
  };

  it('the database bumps the version on every insert, update and delete of a security, by whatever writer', async () => {
    const v0 = await version();
    const id = 'BBG00VERSN01_XTST';
    await h.db.prisma.$executeRawUnsafe(
      `INSERT INTO "Security" ("id", "symbol", "name", "status", "micCode", "figi", "updatedAt") VALUES ('${id}', 'VERSN', 'Version Test', 'ACTIVE', 'XTST', 'BBG00VERSN01', '2026-01-01T00:00:00.000Z')`,
    );
    const v1 = await version();
    expect(v1).toBeGreaterThan(v0);
    await h.db.prisma.$executeRawUnsafe(`UPDATE "Security" SET "name" = 'Version Test 2' WHERE "id" = '${id}'`);
    const v2 = await version();
    expect(v2).toBeGreaterThan(v1);
    await h.db.prisma.security.updateMany({ where: { id }, data: { name: 'Version Test 3' } });
    const v3 = await version();
    expect(v3).toBeGreaterThan(v2);
    await h.db.prisma.$executeRawUnsafe(`DELETE FROM "Security" WHERE "id" = '${id}'`);
    const v4 = await version();
    expect(v4).toBeGreaterThan(v3);
    // writes to other tables leave it alone
    await h.db.prisma.$executeRawUnsafe(`UPDATE "Logo" SET "companyName" = "companyName"`);
    expect(await version()).toBe(v4);
  });

  it('PostgreSQL: TRUNCATE bumps the version too', async () => {
    const before = await version();
    const rollback = new Error('rollback');
    let inside: bigint | undefined;
    await expect(
      h.db.prisma.$transaction(async (tx) => {
        await tx.$executeRawUnsafe('TRUNCATE "Security" CASCADE'); // rows of other tables reference it
        inside = BigInt(
          (
            await tx.$queryRawUnsafe<{ version: bigint }[]>(
              'SELECT "version" FROM "SecurityMasterVersion" WHERE "id" = 1',
            )
          )[0]!.version,
        );
        throw rollback;
      }),
    ).rejects.toBe(rollback);
    expect(inside).toBeGreaterThan(before);
    expect(await countAll()).toBeGreaterThan(0);
  });

  it('found and out_of equal a COUNT in SQL for every 1- and 2-character prefix of every search column, and for absent ones', async () => {
    const total = await countAll();
    const securities = await h.db.prisma.security.findMany();
    let fromSummary = 0;
    let compared = 0;
    for (const [type, column] of Object.entries(SEARCH_TYPES) as [SearchType, (typeof SEARCH_TYPES)[SearchType]][]) {
      const values = securities.map((s) => s[column]).filter((v): v is string => typeof v === 'string' && v !== '');
      const prefixes = new Set([
        ...values.flatMap((v) => [prefixOf(v, 1), prefixOf(v, 2)]),
        // a CIK without leading zeros: several beginnings, some from the summary, the narrow ones counted
        ...(type === 'identifiers.cik'
          ? values.flatMap((v) => [1, 2].map((n) => prefixOf(v.replace(/^0+/, ''), n)))
          : []),
        ...values.slice(0, 3),
        'Q',
        'ZZ',
        '9Q',
        'é',
        '😀',
      ]);
      for (const prefix of prefixes) {
        const query = prefix.toLowerCase();
        const want = await countMatching(type, query);
        const got = await search(type, query);
        expect(got.found, `${type} ${query}`).toBe(want);
        expect(got.outOf, `${type} ${query}`).toBe(total);
        // a prefix matched by at least the threshold is in the summary: no COUNT of its many rows
        if (searchPrefixes(type, query).length === 1 && want >= THRESHOLD)
          expect(got.counted, `${type} ${query} (${want} matches) counted in SQL`).toBe(false);
        if (!got.counted) fromSummary++;
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(200);
    expect(fromSummary).toBeGreaterThan(20);
  });

  it('after a write by raw SQL (as another process would), the next search counts exactly, and a later one is answered from a rebuilt summary', async () => {
    const type = 'exchange_info.exchange_country';
    const [us, u, total] = [
      await countStartingWith('exchangeCountry', 'US'),
      await countStartingWith('exchangeCountry', 'U'),
      await countAll(),
    ];
    expect(us).toBeGreaterThanOrEqual(THRESHOLD);
    expect(await search(type, 'US')).toEqual({ found: us, outOf: total, counted: false });
    const moved = (await h.db.prisma.security.findFirst({ where: { exchangeCountry: 'US' }, orderBy: { id: 'asc' } }))!;
    const before = await version();
    await h.db.prisma.$executeRawUnsafe(`UPDATE "Security" SET "exchangeCountry" = 'CA' WHERE "id" = '${moved.id}'`);
    await h.db.prisma.$executeRawUnsafe(
      `INSERT INTO "Security" ("id", "symbol", "name", "status", "micCode", "figi", "updatedAt", "exchangeCountry") VALUES ('BBG00COUNT01_XTST', 'COUNT', 'Count Test', 'ACTIVE', 'XTST', 'BBG00COUNT01', '2026-01-01T00:00:00.000Z', 'UK')`,
    );
    try {
      expect(await version()).toBeGreaterThan(before);
      // the summary is older than the master: this search counts in SQL, exactly
      expect(await search(type, 'US')).toEqual({ found: us - 1, outOf: total + 1, counted: true });
      expect((await search(type, 'U')).found).toBe(u); // one US fewer, one UK more
      // and one soon after is answered by the summary rebuilt meanwhile, as exact
      await vi.waitFor(
        async () => expect(await search(type, 'US')).toEqual({ found: us - 1, outOf: total + 1, counted: false }),
        { timeout: 10_000, interval: 20 },
      );
    } finally {
      await h.db.prisma.$executeRawUnsafe(`UPDATE "Security" SET "exchangeCountry" = 'US' WHERE "id" = '${moved.id}'`);
      await h.db.prisma.$executeRawUnsafe(`DELETE FROM "Security" WHERE "id" = 'BBG00COUNT01_XTST'`);
    }
    expect(await search(type, 'US')).toMatchObject({ found: us, outOf: total });
    await vi.waitFor(
      async () => expect(await search(type, 'US')).toEqual({ found: us, outOf: total, counted: false }),
      { timeout: 10_000, interval: 20 },
    );
  });

  it('stays exact when a value holds the character a column’s values are joined with (that column is counted in SQL)', async () => {
    const s = (await h.db.prisma.security.findFirst({ where: { opol: { not: null } }, orderBy: { id: 'asc' } }))!;
    const opol = s.opol!;
    await h.db.prisma.security.update({ where: { id: s.id }, data: { opol: `${opol}\x1fX` } });
    try {
      // once the summary is rebuilt at the new version (exchange_country answered from it)
      await vi.waitFor(async () => expect((await search('exchange_info.exchange_country', 'US')).counted).toBe(false), {
        timeout: 10_000,
        interval: 20,
      });
      for (const prefix of [prefixOf(opol, 1), prefixOf(opol, 2), opol, `${opol}\x1f`]) {
        expect((await search('identifiers.opol', prefix)).found, prefix).toBe(await countStartingWith('opol', prefix));
      }
    } finally {
      await h.db.prisma.security.update({ where: { id: s.id }, data: { opol } });
    }
  });
});
