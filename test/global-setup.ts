import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where this run keeps its seeded template databases (see `createSeeded` in helpers.ts). */
    templateDir: string;
  }
}

/**
 * Once per `vitest run`: a directory for the seeded template databases that test files copy
 * instead of seeding the sample data again (helpers.ts makes them on first use, under a lock);
 * afterwards it drops them. In watch mode they are dropped before every rerun too, so that a
 * change to the migrations or the sample data reaches the next run.
 */
export default function setup(project: TestProject) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdg-templates-'));
  project.provide('templateDir', dir);
  project.onTestsRerun(() => dropTemplates(dir));
  return async () => {
    await dropTemplates(dir);
    fs.rmSync(dir, { recursive: true, force: true });
  };
}

/** The PostgreSQL schema of a template: named after the run's directory, so that the teardown finds it even when making it failed half-way. */
export function templateSchema(dir: string, sampleData: 'auto' | 'none'): string {
  return `tpl_${path.basename(dir).replace(/[^A-Za-z0-9]/g, '_')}_${sampleData}`;
}

async function dropTemplates(dir: string): Promise<void> {
  const baseUrl = process.env.TEST_DATABASE_URL;
  if (baseUrl && fs.readdirSync(dir).some((f) => f.startsWith('postgresql-'))) {
    const client = new pg.Client({ connectionString: baseUrl });
    await client.connect();
    try {
      for (const sampleData of ['auto', 'none'] as const) await client.query(`DROP SCHEMA IF EXISTS "${templateSchema(dir, sampleData)}" CASCADE`);
    } finally {
      await client.end();
    }
  }
  for (const f of fs.readdirSync(dir)) fs.rmSync(path.join(dir, f), { recursive: true, force: true });
}
