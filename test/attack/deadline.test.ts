// Issue 27, "a deadline for every request": each request has REQUEST_TIMEOUT_MS from its arrival,
// whatever path it takes. Past it its statement is cancelled in PostgreSQL, in-process loops stop
// at their next check, its budgets are given back, and it is answered TIMEOUT (REST 503 with
// Retry-After, GraphQL extensions.code) while the server goes on answering everyone else.
// A statement is made slow by a lock this test holds; in-process work by a large master.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, createApp } from '../../src/app.js';
import { openDatabase } from '../../src/bootstrap.js';
import type { Context } from '../../src/context.js';
import { AppError } from '../../src/errors.js';
import { shapeRows } from '../../src/rest/route.js';
import { Deadline, Timeouts } from '../../src/runtime/deadline.js';
import { InFlightBudget } from '../../src/runtime/in-flight.js';
import { currentEngine } from '../../src/services/security-index.js';
import { type GraphQLHarness, gqlWithHeaders, graphqlHarness } from '../graphql/helpers.js';
import { testConfig, testDatabases } from '../helpers.js';
import { rest } from '../rest/helpers.js';

const TRADES = '{ trades(symbol: "NVLX", first: 5) { nodes { price size } } }';
/** Read by the planner (graphql/plan/) in one statement over "Security" and "Trade". */
const PLANNED = '{ security(symbol: "NVLX") { symbol trades(first: 3) { nodes { price size } } } }';

const gql = gqlWithHeaders;

describe.each(testDatabases())('request deadlines on $name', (tdb) => {
  let h: GraphQLHarness;
  /** The test's own connection: it holds the locks, and reads pg_stat_activity. */
  let admin: pg.Client;

  beforeAll(async () => {
    h = await graphqlHarness(tdb);
    admin = new pg.Client({ connectionString: h.db.database.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await h?.close();
    await tdb.cleanup();
  });

  /** An app over the same database whose requests have `ms` each, with budgets the test reads. */
  function appWithin(ms: number, env: Record<string, string> = {}) {
    const budget = new InFlightBudget(400_000, 2_000);
    const bodies = new InFlightBudget(32 * 1024 * 1024, 2_000, 'large request bodies in flight');
    const app = h.appWith({ REQUEST_TIMEOUT_MS: String(ms), ...env }, { budget, bodies });
    return { app, budget, bodies };
  }

  /** Runs `fn` while this test holds an exclusive lock on `table` of the harness's schema: every read of it waits. */
  async function whileLocked<T>(table: string, fn: () => Promise<T>): Promise<T> {
    await admin.query('BEGIN');
    try {
      await admin.query(`LOCK TABLE "${h.db.database.schema}"."${table}" IN ACCESS EXCLUSIVE MODE`);
      const out = await fn();
      // still locked: the statement did not end because the lock went away
      await expectNoStatementLeft(table);
      return out;
    } finally {
      await admin.query('ROLLBACK');
    }
  }

  /** PostgreSQL cancels the waiting statement (its statement_timeout); polled, since the server takes its time to tell. */
  async function expectNoStatementLeft(table: string): Promise<void> {
    const waiting = async () =>
      (
        await admin.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock' AND query LIKE $1`,
          [`%"${table}"%`],
        )
      ).rows[0]!.n;
    for (const started = Date.now(); (await waiting()) > 0 && Date.now() - started < 10_000; )
      await new Promise((r) => setTimeout(r, 20));
    expect(await waiting()).toBe(0);
  }

  const timeoutsOf = async (app: App) => {
    const text = await (await app.fetch('http://test/metrics')).text();
    return [...text.matchAll(/^mdg_request_timeouts_total\{at="(\w+)"\} (\d+)$/gm)]
      .filter((m) => m[2] !== '0')
      .map((m) => `${m[1]}=${m[2]}`);
  };

  it('REST: a statement waiting past the deadline is cancelled in PostgreSQL and answered 503 TIMEOUT with Retry-After', async () => {
    const { app, budget, bodies } = appWithin(300);
    await rest({ app }, '/stocks/v3/trades/NVLX?limit=5'); // the key's lookup and the statement's columns, before the lock
    const r = await whileLocked('Trade', () => rest({ app }, '/stocks/v3/trades/NVLX?limit=5'));
    expect(r.status, r.text).toBe(503);
    expect(r.body.code).toBe('TIMEOUT');
    expect(r.body.message).toMatch(/time limit of 300 ms while reading the database/);
    expect(r.headers.get('retry-after')).toBe('1');
    expect([budget.used, bodies.used]).toEqual([0, 0]);
    expect(await timeoutsOf(app)).toEqual(['sql=1']);
    // the same connections answer the next request
    const after = await rest({ app }, '/stocks/v3/trades/NVLX?limit=5');
    expect(after.status).toBe(200);
    expect(after.body.results.length).toBeGreaterThan(0);
  });

  it('GraphQL, planned: the plan times out rather than handing the query to graphql-js', async () => {
    const { app, budget } = appWithin(300);
    expect((await gql(app, PLANNED)).errors).toBeUndefined();
    const r = await whileLocked('Trade', async () => {
      // others go on meanwhile: a probe, and a query that reads no locked table
      const [answer, health, me] = await Promise.all([
        gql(app, PLANNED),
        app.fetch('http://test/healthz'),
        gql(app, '{ me { userId } }'),
      ]);
      expect(health.status).toBe(200);
      expect(me.errors).toBeUndefined();
      return answer;
    });
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('1');
    expect(r.errors?.map((e) => e.extensions.code)).toEqual(['TIMEOUT']);
    expect(r.data ?? null).toBeNull();
    expect(budget.used).toBe(0);
    const metrics = await (await app.fetch('http://test/metrics')).text();
    // planned every time: never handed to graphql-js (only `me` is not plannable)
    expect(metrics).toMatch(/^mdg_fallback_total\{path="planner",reason="not_plannable"\} 1$/m);
    expect(metrics).toMatch(/^mdg_fallback_total\{path="planner",reason="error"\} 0$/m);
    expect(await timeoutsOf(app)).toEqual(['sql=1']);
  });

  it('GraphQL, resolvers: the field that read too long is a TIMEOUT error, the request 503', async () => {
    const { app, budget } = appWithin(300, { GRAPHQL_PLANNED: 'false' });
    expect((await gql(app, TRADES)).errors).toBeUndefined();
    const r = await whileLocked('Trade', () => gql(app, TRADES));
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('1');
    expect(r.errors?.map((e) => [e.extensions.code, e.path])).toEqual([['TIMEOUT', ['trades']]]);
    expect(budget.used).toBe(0);
    expect((await gql(app, TRADES)).errors).toBeUndefined();
  });

  it("a Prisma statement (a key's lookup) runs under the server's statement_timeout: TIMEOUT, not a stalled request", async () => {
    // a server whose connections carry a short statement_timeout, as REQUEST_TIMEOUT_MS sets it (db/client.ts)
    const config = testConfig(h.db.database, {}, { REQUEST_TIMEOUT_MS: '300' });
    const db = await openDatabase(config);
    try {
      const app = createApp({ config, db });
      const r = await whileLocked('ApiKey', () => gql(app, '{ me { userId } }'));
      expect(r.status).toBe(503);
      expect(r.headers.get('retry-after')).toBe('1');
      expect(r.errors?.map((e) => e.extensions.code)).toEqual(['TIMEOUT']);
      expect(await timeoutsOf(app)).toEqual(['sql=1']);
      expect((await gql(app, '{ me { userId } }')).errors).toBeUndefined();
    } finally {
      await db.close();
    }
  });
});

describe('a REST page past its deadline', () => {
  it('stops shaping rows at its next check, counted once under "page"', () => {
    const timeouts = new Timeouts();
    const ctx = { deadline: new Deadline(0, timeouts) } as Context;
    let shaped = 0;
    let thrown: unknown;
    try {
      shapeRows(
        ctx,
        Array.from({ length: 5_000 }, (_, i) => i),
        (i) => {
          shaped++;
          return { i };
        },
      );
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect((thrown as AppError).code).toBe('TIMEOUT');
    expect(shaped).toBeLessThan(5_000);
    expect(timeouts.counts.page).toBe(1);
  });
});

/** Securities this file adds to the sample master: enough that a search with facets over all of them takes many slices. */
const LARGE_MASTER = 20_000;
const FACETS = 'facets(fields: [MIC_CODE, SECTOR, ACTIVE, MARKET_CAP]) { field counts { value count } }';
/** One alias of a search that goes through the whole master: a typo'd word every name holds, a metric sort, and facets. */
const HEAVY = (i: number) =>
  `s${i}: securities(query: "holdngs", orderBy: [{ field: PE_RATIO }, { field: MARKET_CAP, direction: DESC }], first: 5) { totalCount nodes { symbol } ${FACETS} }`;

describe.each(testDatabases())('request deadlines over a large master on $name', (tdb) => {
  let h: GraphQLHarness;

  beforeAll(async () => {
    h = await graphqlHarness(tdb);
    const admin = new pg.Client({ connectionString: h.db.database.url });
    await admin.connect();
    try {
      await admin.query(
        `INSERT INTO "${h.db.database.schema}"."Security" ("id", "symbol", "name", "status", "micCode", "figi", "marketCap", "updatedAt")
         SELECT 'large-' || g, 'LG' || g, 'Large Holdings ' || g, 'active', (ARRAY['XNAS', 'XNYS', 'ARCX'])[1 + g % 3], 'BBGLARGE' || g, g * 1000, now()
         FROM generate_series(1, $1::int) g`,
        [LARGE_MASTER],
      );
    } finally {
      await admin.end();
    }
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  // the cost limit raised past what 15 heavy aliases cost (75 search passes, domain/limits.ts): this
  // is the deadline's test, of work the cost analysis would admit on a larger limit
  function appWithin(ms: number) {
    const budget = new InFlightBudget(1_000_000, 2_000);
    const limits = { REQUEST_TIMEOUT_MS: String(ms), GRAPHQL_MAX_COST: '1000000', COST_IN_FLIGHT: '1000000' };
    return { app: h.appWith(limits, { budget }), budget };
  }

  it('a search waiting for the engine to read the master times out at its deadline; the read goes on, and serves the next one', async () => {
    const { app, budget } = appWithin(50);
    const r = await gql(app, '{ securities(query: "large", first: 1) { totalCount } }');
    expect(r.status).toBe(503);
    expect(r.errors?.map((e) => e.extensions.code)).toEqual(['TIMEOUT']);
    expect(r.errors?.[0].message).toMatch(/while (waiting for the search engine|reading the database)/);
    expect(budget.used).toBe(0);
    // meanwhile the server answers: the build is cut in slices
    expect((await app.fetch('http://test/healthz')).status).toBe(200);
    await currentEngine(h.db);
    const again = await h.gql('{ securities(query: "large", first: 1) { totalCount } }');
    expect(again.errors).toBeUndefined();
    expect(again.data.securities.totalCount).toBe(LARGE_MASTER);
  });

  it('GraphQL: aliases of a search with a metric sort and facets over the whole master stop at the deadline while others are answered', async () => {
    await currentEngine(h.db);
    // 40 ms: a quiet machine answered all 15 aliases in 174 ms, so 300 ms was a budget it could meet
    const { app, budget } = appWithin(40);
    const heavy = gql(app, `{ ${Array.from({ length: 15 }, (_, i) => HEAVY(i)).join(' ')} }`);
    // a probe and a small query (under the default deadline: a loaded machine may take 300 ms for
    // any request) are answered while the heavy request runs: the engine works in slices
    const [health, small] = await Promise.all([
      app.fetch('http://test/healthz'),
      gql(h.app, '{ security(symbol: "NVLX") { symbol } }'),
    ]);
    expect([health.status, small.errors]).toEqual([200, undefined]);
    const r = await heavy;
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('1');
    expect(r.errors?.length).toBeGreaterThan(0);
    expect(new Set(r.errors?.map((e) => e.extensions.code))).toEqual(new Set(['TIMEOUT']));
    expect(budget.used).toBe(0);
    const metrics = await (await app.fetch('http://test/metrics')).text();
    const timeouts = [...metrics.matchAll(/^mdg_request_timeouts_total\{at="\w+"\} (\d+)$/gm)].map((m) => Number(m[1]));
    expect(timeouts.reduce((a, b) => a + b, 0)).toBe(1);
  });

  it('REST: a deep page of a metric sort with facets past its deadline answers 503 TIMEOUT, with Retry-After', async () => {
    await currentEngine(h.db);
    // 1 ms: a quiet machine answered this page in 49 ms, so a budget it could meet is no test
    const { app, budget } = appWithin(1);
    const r = await rest(
      { app },
      '/search/api/v1/securities?q=holdngs&search_type=name&sort_by=metrics.pe_ratio:asc,financials.market_cap:desc&facet_by=exchange_info.mic_code,financials.market_cap&page=400&per_page=25',
    );
    expect(r.status, r.text).toBe(503);
    expect(r.body).toMatchObject({ status: 'ERROR', code: 'TIMEOUT' });
    expect(r.headers.get('retry-after')).toBe('1');
    expect(budget.used).toBe(0);
    expect((await app.fetch('http://test/healthz')).status).toBe(200);
    const other = await rest(h, '/search/api/v1/securities?q=large&search_type=name&per_page=1');
    expect(other.body.data.found).toBe(LARGE_MASTER);
  });
});
