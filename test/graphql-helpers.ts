import { createApp, type App } from '../src/app.js';
import { openDatabase } from '../src/bootstrap.js';
import type { Db } from '../src/db.js';
import { testConfig, type TestDatabase } from './helpers.js';

export interface GraphQLResult<T = any> {
  status: number;
  data?: T;
  errors?: { message: string; path?: (string | number)[]; extensions?: { code?: string } }[];
}

export interface GraphQLHarness {
  app: App;
  db: Db;
  /** POST /graphql through app.fetch; returns status, data and errors. */
  gql<T = any>(query: string, variables?: Record<string, unknown>): Promise<GraphQLResult<T>>;
  /** SQL statements that ran while `fn` ran. */
  countStatements(fn: () => Promise<unknown>): Promise<number>;
  close(): Promise<void>;
}

/** A fresh database of `tdb`'s kind with the default sample data, and the app over it. */
export async function graphqlHarness(tdb: TestDatabase): Promise<GraphQLHarness> {
  const config = testConfig(await tdb.create(), { sampleData: 'auto' });
  const db = await openDatabase(config);
  const app = createApp({ config, db });
  return {
    app,
    db,
    async gql(query, variables) {
      const res = await app.fetch('http://test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables }),
      });
      return { status: res.status, ...((await res.json()) as object) };
    },
    async countStatements(fn) {
      const before = db.statementCount;
      await fn();
      return db.statementCount - before;
    },
    close: () => db.close(),
  };
}
