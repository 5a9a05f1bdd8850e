import { execFile } from 'node:child_process';
import { afterAll, describe, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { ROOT, type DatabaseConfig } from '../../src/config.js';
import { createDb } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { DEFAULT_SAMPLE, plannedMarketRows } from '../../src/sample/generate.js';
import { databaseUrlOf, testConfig, testDatabases } from '../helpers.js';

/**
 * `npm run cli -- ARGS` as its own process, with `input` on stdin. Asynchronous, so that the
 * processes of different tests (each spends ~1 s of CPU loading the app) overlap on a second core.
 */
function cli(
  database: DatabaseConfig,
  args: string[],
  input?: string,
  env: Record<string, string> = {},
): Promise<{ status: number | null; out: string; err: string }> {
  const url = databaseUrlOf(database);
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['--import', 'tsx', 'src/cli.ts', ...args],
      {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: url, NODE_ENV: 'test', ...env },
        encoding: 'utf8',
        // a hung process is killed; a slow one on a loaded machine is not (SLOW below)
        timeout: 240_000,
      },
      (e, out, err) => resolve({ status: e ? (typeof e.code === 'number' ? e.code : null) : 0, out, err }),
    );
    child.stdin!.on('error', () => {}); // a child that exits without reading its stdin
    child.stdin!.end(input ?? '');
  });
}

/**
 * A test runs several CLI processes one after another, each loading the app (seconds of CPU on a
 * loaded machine): a bound for a machine shared with other work, not a measure of speed.
 */
const SLOW = { timeout: 300_000 };

// Each test has a database of its own, so the tests (and both databases) run side by side.
describe.concurrent.each(testDatabases())('CLI users and apikeys on $name', (tdb) => {
  afterAll(() => tdb.cleanup());

  it(
    'creates a user and a key that works once, lists it without the key, revokes it, and disables users',
    SLOW,
    async ({ expect }) => {
      const database = await tdb.create();
      const created = await cli(
        database,
        ['users', 'create', '--email', 'Ops@Example.com', '--password-stdin', '--tier', 'pro'],
        'correct horse battery\n',
      );
      expect(created.err).toBe('');
      expect(created.out).toMatch(/created user ops@example\.com \(id [0-9a-f-]{36}, tier pro\)/);

      const key = await cli(database, ['apikeys', 'create', '--user', 'ops@example.com', '--name', 'laptop']);
      const plain = /key \(shown once, store it now\): (\S+)/.exec(key.out)?.[1];
      const id = /created API key ([0-9a-f-]{36})/.exec(key.out)?.[1];
      expect(plain).toMatch(/^mdg_/);

      const list = await cli(database, ['apikeys', 'list', '--user', 'ops@example.com']);
      expect(list.out).toContain(id);
      expect(list.out).toContain('active');
      expect(list.out).not.toContain(plain);

      const db = await createDb(database);
      try {
        const stored = await db.prisma.apiKey.findUniqueOrThrow({ where: { id: id! } });
        expect(JSON.stringify(stored)).not.toContain(plain!.slice(8));
        const ask = async () => {
          const app = createApp({ config: testConfig(database), db }); // a fresh app: no cached callers
          const res = await app.fetch('http://t/graphql', {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-api-key': plain! },
            body: '{"query":"{ me { email tier } }"}',
          });
          return { status: res.status, body: (await res.json()) as any };
        };
        expect((await ask()).body.data.me).toEqual({ email: 'ops@example.com', tier: 'PRO' });

        expect(
          (await cli(database, ['users', 'set-tier', '--email', 'ops@example.com', '--tier', 'enterprise'])).out,
        ).toContain('is now on the enterprise tier');
        expect((await ask()).body.data.me.tier).toBe('ENTERPRISE');

        expect((await cli(database, ['apikeys', 'revoke', '--id', id!])).out).toContain(`revoked API key ${id}`);
        expect((await ask()).status).toBe(401);
      } finally {
        await db.close();
      }

      expect((await cli(database, ['users', 'disable', '--email', 'ops@example.com'])).out).toContain('is disabled');
    },
  );

  it(
    'reports usage mistakes with exit code 2 and failures with exit code 1, naming what was wrong',
    SLOW,
    async ({ expect }) => {
      const database = await tdb.create();
      const badTier = await cli(database, [
        'users',
        'create',
        '--email',
        'a@b.co',
        '--password',
        'longenough',
        '--tier',
        'gold',
      ]);
      expect(badTier.status).toBe(2);
      expect(badTier.err).toContain('--tier must be one of free, pro, enterprise; got "gold"');
      // none of these changes the database (the first one migrated it): they may run at once
      const [missing, nobody, short, unknown, prototype] = await Promise.all([
        cli(database, ['apikeys', 'create', '--user', 'a@b.co']),
        cli(database, ['users', 'disable', '--email', 'nobody@b.co']),
        cli(database, ['users', 'create', '--email', 'a@b.co', '--password', 'short', '--tier', 'free']),
        cli(database, ['frobnicate']),
        // a name every object answers to is no command either
        cli(database, ['constructor']),
      ]);
      expect(missing.status).toBe(2);
      expect(missing.err).toContain('--name is required');
      expect(nobody.status).toBe(1);
      expect(nobody.err).toContain('no user with email "nobody@b.co"');
      expect(short.status).toBe(1);
      expect(short.err).toContain('password must have at least 8 characters');
      expect(unknown.status).toBe(2);
      expect(unknown.err).toContain('unknown command "frobnicate"');
      expect(prototype.status).toBe(2);
      expect(prototype.err).toContain('unknown command "constructor"');
      for (const ask of [['--help'], ['-h'], ['help'], ['import', '--help'], ['users', 'create', '-h']]) {
        const help = await cli(database, ask);
        expect([help.status, help.err], ask.join(' ')).toEqual([0, '']);
        expect(help.out, ask.join(' ')).toContain('users create');
      }
    },
  );

  it('seed: a line per phase with its rows and rate on stderr, the counts on stdout', SLOW, async ({ expect }) => {
    const database = await tdb.create();
    const run = await cli(database, ['seed', '--scale', '2']);
    expect(run.status, run.err).toBe(0);
    expect(run.err).toMatch(/^seeding reference: done in [\d.]+ s$/m);
    // the rows the sample plans at scale 2 (sample/generate.ts): its listings that ended have none
    const planned = plannedMarketRows({ ...DEFAULT_SAMPLE, scale: 2 });
    const [trades, quotes] = [planned.trades, planned.quotes].map((n) => n.toLocaleString('en-US'));
    expect(run.err).toMatch(new RegExp(`^seeding trades: ${trades} rows in [\\d.]+ s \\([\\d,]+ rows/s\\)$`, 'm'));
    expect(run.err).toMatch(new RegExp(`^seeding quotes: ${quotes} rows in [\\d.]+ s \\([\\d,]+ rows/s\\)$`, 'm'));
    expect(run.out).toMatch(
      new RegExp(
        `^seeded \\(\\{"scale":2,"seed":42,"securities":50\\}\\): 50 securities, .*, ${trades} trades, ${quotes} quotes, [\\d,]+ bars, 51 snapshots in [\\d.]+ s$`,
        'm',
      ),
    );
  });

  it(
    'keeps to API_KEYS_PER_USER too, also when two processes (instances) create keys at once',
    SLOW,
    async ({ expect }) => {
      const database = await tdb.create();
      await migrate(database);
      const db = await createDb(database);
      try {
        await db.prisma.user.create({
          data: { email: 'cap@example.com', username: 'cap', passwordHash: '', tier: 'free' },
        });
        const runs = await Promise.all(
          [1, 2].map((i) =>
            cli(database, ['apikeys', 'create', '--user', 'cap@example.com', '--name', `k${i}`], undefined, {
              API_KEYS_PER_USER: '1',
            }),
          ),
        );
        expect(runs.map((r) => r.status).sort()).toEqual([0, 1]);
        expect(runs.find((r) => r.status === 1)!.err.trim()).toBe(
          'error: cap@example.com has 1 active API key, the most API_KEYS_PER_USER allows (1); revoke one before creating another (apikeys list --user cap@example.com; apikeys revoke --id KEY_ID)',
        );
        expect(await db.prisma.apiKey.count({ where: { user: { email: 'cap@example.com' }, revokedAt: null } })).toBe(
          1,
        );
      } finally {
        await db.close();
      }
    },
  );
});
