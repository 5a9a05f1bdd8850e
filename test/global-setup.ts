import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { type ClusterOptions, openCluster } from '../src/db/embedded.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where this run keeps its seeded template databases (see `createSeeded` in helpers.ts). */
    templateDir: string;
    /** The PostgreSQL database the run's tests make their schemas in: TEST_DATABASE_URL, or the run's embedded cluster. */
    databaseUrl: string;
  }
}

/**
 * Once per `vitest run`: the PostgreSQL server the tests use — TEST_DATABASE_URL's, else an
 * embedded cluster of the run's own (db/embedded.ts, in a temporary directory, stopped and removed
 * afterwards) — and a directory for the seeded template databases that test files copy instead of
 * seeding the sample data again (helpers.ts makes them on first use, under a lock); afterwards it
 * drops them. In watch mode they are dropped before every rerun too, so that a change to the
 * migrations or the sample data reaches the next run.
 */
/**
 * A test cluster is thrown away: no fsync at initdb or after, no waiting for the WAL at commit, no
 * full pages in it. Durability is what these settings give up, and no test asks for it.
 */
export const TEST_CLUSTER: ClusterOptions = {
  initFlags: ['-N'],
  settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' },
};

export default async function setup(project: TestProject) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdg-templates-'));
  let cluster: Awaited<ReturnType<typeof openCluster>> | undefined;
  let clusterDir: string | undefined;
  let databaseUrl = process.env.TEST_DATABASE_URL;
  if (!databaseUrl) {
    clusterDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdg-test-pg-'));
    fs.chmodSync(clusterDir, 0o755); // as root, the cluster's user (postgres) must reach it
    // -N: no fsync at initdb; a test cluster is thrown away
    cluster = await openCluster({ embedded: clusterDir }, () => {}, TEST_CLUSTER);
    const url = new URL(cluster.database.url);
    url.pathname = '/test';
    databaseUrl = url.toString();
    await ensureDatabase(databaseUrl);
  }
  project.provide('templateDir', dir);
  project.provide('databaseUrl', databaseUrl);
  project.onTestsRerun(() => dropTemplates(dir, databaseUrl));
  return async () => {
    try {
      await dropTemplates(dir, databaseUrl);
      fs.rmSync(dir, { recursive: true, force: true });
    } finally {
      await cluster?.release({ force: true });
      if (clusterDir) fs.rmSync(clusterDir, { recursive: true, force: true });
    }
  };
}

/** Creates the database `url` names when it does not exist. */
async function ensureDatabase(url: string): Promise<void> {
  const { createMissingDatabase } = await import('../src/db/pg-create.js');
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
  } catch {
    await createMissingDatabase(pg, { url, schema: 'public', create: true });
  } finally {
    await client.end().catch(() => {});
  }
}

/** The PostgreSQL database of a template: named after the run's directory, so that the teardown finds it even when making it failed half-way. */
export function templateDatabase(dir: string, sampleData: 'auto' | 'none'): string {
  return `tpl_${path.basename(dir).replace(/[^A-Za-z0-9]/g, '_')}_${sampleData}`;
}

async function dropTemplates(dir: string, baseUrl: string): Promise<void> {
  if (fs.readdirSync(dir).some((f) => f.startsWith('postgresql-'))) {
    const client = new pg.Client({ connectionString: baseUrl });
    await client.connect();
    try {
      for (const sampleData of ['auto', 'none'] as const)
        await client.query(`DROP DATABASE IF EXISTS "${templateDatabase(dir, sampleData)}" WITH (FORCE)`);
    } finally {
      await client.end();
    }
  }
  for (const f of fs.readdirSync(dir)) fs.rmSync(path.join(dir, f), { recursive: true, force: true });
}
