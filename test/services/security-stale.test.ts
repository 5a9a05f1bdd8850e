// Issue 27, "rebuilds coalesce": while the security master is read again whole (after a delete), a
// search is answered by the engine read before, says how stale the answer is (X-Search-Stale-Ms on
// REST and GraphQL alike), and past the bound (MAX_STALE_MS, a test's smaller one here) waits for
// the read instead. The read is held back by a lock this test takes on "SecurityMetrics", which the
// whole read needs and the page's rows ("Security") do not.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_STALE_HEADER } from '../../src/context.js';
import { currentEngine, setSearchCapacity } from '../../src/services/security-index.js';
import { type GraphQLHarness, gqlWithHeaders, graphqlHarness } from '../graphql/helpers.js';
import { testDatabases } from '../helpers.js';
import { rest } from '../rest/helpers.js';

const RANKED_REST =
  '/search/api/v1/securities?search=*&search_type=symbol&sort_by=financials.market_cap:desc&per_page=1';
const RANKED_GQL = '{ securities(orderBy: [{ field: MARKET_CAP, direction: DESC }], first: 1) { totalCount } }';

describe.each(testDatabases())('a search while the master is read again, on $name', (tdb) => {
  let h: GraphQLHarness;
  let admin: pg.Client;

  beforeAll(async () => {
    h = await graphqlHarness(tdb);
    admin = new pg.Client({ connectionString: h.db.database.url });
    await admin.connect();
  });
  afterAll(async () => {
    setSearchCapacity(h.db, 100_000);
    await admin?.end();
    await h?.close();
    await tdb.cleanup();
  });

  it('answers from the engine before, saying how stale, then waits past the bound', async () => {
    setSearchCapacity(h.db, 100_000, 1_500);
    await currentEngine(h.db);
    const current = await rest(h, RANKED_REST);
    expect(current.status, current.text).toBe(200);
    expect(current.headers.get(SEARCH_STALE_HEADER)).toBeNull();
    const before = current.body.data.found as number;
    const [gone] = await h.db.prisma.security.findMany({ orderBy: { id: 'desc' }, take: 1 });
    await h.db.prisma.security.delete({ where: { id: gone!.id } }); // a new epoch: the next search reads the master whole
    await admin.query('BEGIN');
    let released = false;
    try {
      await admin.query(`LOCK TABLE "${h.db.database.schema}"."SecurityMetrics" IN ACCESS EXCLUSIVE MODE`);
      const stale = await rest(h, RANKED_REST);
      expect(stale.status, stale.text).toBe(200);
      expect(stale.body.data.found).toBe(before); // the engine before the delete
      const restAge = Number(stale.headers.get(SEARCH_STALE_HEADER));
      expect(restAge).toBeGreaterThanOrEqual(1);
      const g = await gqlWithHeaders(h.app, RANKED_GQL);
      expect(g.errors).toBeUndefined();
      expect(g.data.securities.totalCount).toBe(before);
      expect(Number(g.headers.get(SEARCH_STALE_HEADER))).toBeGreaterThanOrEqual(restAge);
      // past the bound a search waits for the read: it is answered once the lock goes, current
      await new Promise((r) => setTimeout(r, 1_600));
      let settled = false;
      const waiting = rest(h, RANKED_REST).finally(() => (settled = true));
      await new Promise((r) => setTimeout(r, 300));
      expect(settled).toBe(false);
      await admin.query('ROLLBACK');
      released = true;
      const after = await waiting;
      expect(after.status, after.text).toBe(200);
      expect(after.body.data.found).toBe(before - 1);
      expect(after.headers.get(SEARCH_STALE_HEADER)).toBeNull();
    } finally {
      if (!released) await admin.query('ROLLBACK');
    }
  });
});
