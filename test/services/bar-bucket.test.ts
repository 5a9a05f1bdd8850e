// The aggregate rule over one bar without a GROUP BY (combineOne) against the rule's aggregate
// (combine) over a group of that bar alone: the same values, nulls and zero volumes included.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { combine, combineOne } from '../../src/services/bar-bucket.js';
import { testDatabaseUrl } from '../helpers.js';

describe('one bar combined', () => {
  let client: pg.Client;
  beforeAll(async () => {
    client = new pg.Client({ connectionString: testDatabaseUrl() });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
  });

  it('combineOne gives what combine gives of a group of one bar', async () => {
    await client.query(`CREATE TEMP TABLE one_bar ("id" int, "open" float8, "high" float8, "low" float8, "close" float8,
      "volume" float8, "vwap" float8, "trades" int)`);
    // prices null or not, volumes zero or not (or fractional), vwap null or not
    await client.query(`INSERT INTO one_bar
      SELECT i, CASE WHEN i % 5 = 0 THEN NULL ELSE 10 + i * 0.37 END, CASE WHEN i % 7 = 0 THEN NULL ELSE 11 + i * 0.41 END,
        CASE WHEN i % 7 = 0 THEN NULL ELSE 9 + i * 0.13 END, CASE WHEN i % 3 = 0 THEN NULL ELSE 10 + i * 0.29 END,
        CASE WHEN i % 4 = 0 THEN 0 ELSE i * 13.5 END, CASE WHEN i % 6 = 0 THEN NULL ELSE 10 + i * 0.31 END, i % 9
      FROM generate_series(1, 200) i`);
    const grouped = await client.query(`SELECT b."id", ${combine('b."id"')} FROM one_bar b GROUP BY b."id" ORDER BY 1`);
    const single = await client.query(`SELECT b."id", ${combineOne()} FROM one_bar b ORDER BY 1`);
    expect(grouped.rows.length).toBe(200);
    expect(grouped.rows.some((r) => r.vwap === null) && grouped.rows.some((r) => r.open === null)).toBe(true);
    expect(single.rows).toEqual(grouped.rows);
  });
});
