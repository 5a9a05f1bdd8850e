import { expect } from 'vitest';
import { createApp, type App, type AppDeps } from '../../src/app.js';
import { openDatabase } from '../../src/bootstrap.js';
import type { CostExtension } from '../../src/graphql/guard.js';
import type { Db } from '../../src/db/client.js';
import type { OcrPool } from '../../src/ocr/pool.js';
import { testConfig, type TestDatabase } from '../helpers.js';

export interface GraphQLResult<T = any> {
  status: number;
  data?: T;
  errors?: { message: string; path?: (string | number)[]; extensions?: { code?: string } }[];
  /** What the answer cost (src/graphql/guard.ts), on every answer that passed validation. */
  extensions?: { cost?: CostExtension };
}

export interface GraphQLHarness {
  app: App;
  db: Db;
  /** POST /graphql through app.fetch as the enterprise demo key (or with `headers`); returns status, data and errors. */
  gql<T = any>(
    query: string,
    variables?: Record<string, unknown>,
    headers?: Record<string, string>,
  ): Promise<GraphQLResult<T>>;
  /** Another app over the same database, with more env knobs (and other deps, e.g. a Redis client). */
  appWith(env: Record<string, string>, deps?: Partial<Omit<AppDeps, 'config' | 'db'>>): App;
  /** SQL statements that ran while `fn` ran. */
  countStatements(fn: () => Promise<unknown>): Promise<number>;
  /**
   * SQL statements `fn` costs when it runs a second time: on PostgreSQL a request's reads of one
   * turn go out as one statement once each has run alone, which teaches Db.read its columns
   * (db/pg-read.ts); the first run sends them one by one.
   */
  countWarmStatements(fn: () => Promise<unknown>): Promise<number>;
  close(): Promise<void>;
}

/** A fresh database of `tdb`'s kind with the default sample data, and the app over it (with `ocr` as its OCR pool, if given). */
export async function graphqlHarness(
  tdb: TestDatabase,
  env: Record<string, string> = {},
  ocr?: OcrPool,
): Promise<GraphQLHarness> {
  // limits high enough that suites making hundreds of requests with one key never meet them
  // a long caller cache: statement counts then measure the query alone, never the key lookup
  // a copy of the run's seeded template: the rows openDatabase would seed, without seeding again
  const database = await tdb.createSeeded();
  // and the anonymous budget too: with Redis, the address 'unknown' of app.fetch is one budget
  // shared by every test file of the run, whatever another file spent of it
  const knobs = {
    RATE_LIMIT_ENTERPRISE: '1000000',
    RATE_LIMIT_ANONYMOUS: '1000000',
    AUTH_CACHE_SECONDS: '3600',
    ...env,
  };
  const config = testConfig(database, { sampleData: 'auto' }, knobs);
  const db = await openDatabase(config);
  const app = createApp({ config, db, ...(ocr ? { ocr } : {}) });
  const harness: GraphQLHarness = {
    app,
    db,
    appWith: (more, deps = {}) =>
      createApp({ config: testConfig(database, { sampleData: 'auto' }, { ...knobs, ...more }), db, ...deps }),
    async gql(query, variables, headers = { 'x-api-key': 'demo-enterprise' }) {
      const res = await app.fetch('http://test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ query, variables }),
      });
      return { status: res.status, ...((await res.json()) as object) };
    },
    async countStatements(fn) {
      const before = db.statementCount;
      await fn();
      return db.statementCount - before;
    },
    async countWarmStatements(fn) {
      await fn();
      return harness.countStatements(fn);
    },
    close: () => db.close(),
  };
  await harness.gql('{ me { userId } }'); // the demo key's lookup, done before anything is counted
  return harness;
}

/**
 * What an executed answer carries besides its data: its cost (src/graphql/guard.ts), here any
 * numbers (test/graphql/cost-answers.test.ts counts them): `toEqual({ data, ...COSTED })`.
 */
/** A GraphQL request to `app` with the enterprise demo key: its body, status and headers. */
export async function gqlWithHeaders(app: App, query: string) {
  const res = await app.fetch('http://test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'demo-enterprise' },
    body: JSON.stringify({ query }),
  });
  return { ...((await res.json()) as { data?: any; errors?: any[] }), status: res.status, headers: res.headers };
}

export const COSTED = { extensions: { cost: { requested: expect.any(Number), limit: expect.any(Number) } } };

/** The result is exactly one BAD_USER_INPUT error whose message matches or mentions each of `expected`. */
export function expectBadUserInput(result: GraphQLResult, ...expected: (string | RegExp)[]): void {
  expect(result.errors).toHaveLength(1);
  expect(result.errors![0]!.extensions?.code).toBe('BAD_USER_INPUT');
  for (const e of expected) {
    if (typeof e === 'string') expect(result.errors![0]!.message).toContain(e);
    else expect(result.errors![0]!.message).toMatch(e);
  }
}
