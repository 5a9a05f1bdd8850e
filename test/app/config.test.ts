import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { LARGEST_BODY_BYTES, loadConfig, ROOT } from '../../src/config.js';
import { serverOptions } from '../../src/http/node.js';
import { ConfigError } from '../../src/domain/env-values.js';

describe('configuration', () => {
  it('defaults to port 4000 and the embedded PostgreSQL under ./data', () => {
    const c = loadConfig({});
    expect(c.port).toBe(4000);
    expect(c.database).toEqual({ embedded: `${ROOT}/data` });
    expect(c.sampleData).toBe('auto');
    expect(c.ocr.model).toBe('fast');
    expect(c.auth).toMatchObject({
      apiKeysPerUser: 10,
      corsOrigins: [],
      rateLimits: { free: 60, pro: 600, enterprise: 6000, anonymous: 60 },
    });
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('switches to PostgreSQL on a postgresql:// URL and reads ?schema=', () => {
    const c = loadConfig({ DATABASE_URL: 'postgresql://u@db:5432/market?schema=mirror' });
    expect(c.database).toEqual({ url: 'postgresql://u@db:5432/market', schema: 'mirror', create: true });
  });

  it('creates a missing PostgreSQL database outside production, in production only with DATABASE_CREATE=true', () => {
    const create = (env: Record<string, string>) => {
      const { database } = loadConfig({
        DATABASE_URL: 'postgresql://u@db:5432/market',
        JWT_SECRET: '8UCTIjGuiQNN/DV1Ua/uogaaf4rAPrHwAsizEJdNopCi',
        ...env,
      });
      return 'create' in database && database.create;
    };
    expect([create({}), create({ DATABASE_CREATE: 'false' })]).toEqual([true, false]);
    expect([create({ NODE_ENV: 'production' }), create({ NODE_ENV: 'production', DATABASE_CREATE: 'true' })]).toEqual([
      false,
      true,
    ]);
  });

  it.each([
    [{ PORT: 'abc' }, /PORT must be an integer from 1 to 65535; got "abc"/],
    [{ PORT: '70000' }, /PORT .* got "70000"/],
    [{ DATABASE_URL: 'mysql://x/y' }, /DATABASE_URL must start with postgresql:\/\/; got "mysql:\/\/x\/y"/],
    [
      { DATABASE_URL: 'file:./data/market.db' },
      /DATABASE_URL file: \(SQLite\) is no longer supported: leave DATABASE_URL unset for the embedded PostgreSQL/,
    ],
    [{ DATABASE_URL: 'postgresql://host' }, /must name a host and a database/],
    [{ DATABASE_URL: 'postgresql://h/db?schema=a-b' }, /schema parameter must be an SQL identifier; got "a-b"/],
    [{ DATABASE_CREATE: 'yes' }, /DATABASE_CREATE must be true or false; got "yes"/],
    [{ SAMPLE_DATA: 'some' }, /SAMPLE_DATA must be one of auto, none; got "some"/],
    [{ NODE_ENV: 'staging' }, /NODE_ENV must be one of/],
    [{ REDIS_URL: 'localhost:6379' }, /REDIS_URL must start with redis:\/\//],
    [{ OCR_MODEL: 'legacy' }, /OCR_MODEL must be one of fast, best; got "legacy"/],
    [{ API_KEYS_PER_USER: '0' }, /API_KEYS_PER_USER must be a positive integer; got "0"/],
    [{ RATE_LIMIT_ANONYMOUS: 'lots' }, /RATE_LIMIT_ANONYMOUS must be a positive integer; got "lots"/],
    [{ CORS_ORIGINS: '*' }, /CORS_ORIGINS cannot be \*/],
    [
      { CORS_ORIGINS: 'https://app.example.com/path' },
      /CORS_ORIGINS must be a comma list of origins.*; got "https:\/\/app\.example\.com\/path"/,
    ],
    [
      { JWT_SECRET: ' '.repeat(35) },
      /JWT_SECRET must be random \(at least 32 characters and an estimated 128 bits of entropy\); this one carries about 0 bits/,
    ],
  ])('rejects %j with a message naming the variable and value', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('logs readable lines on a terminal outside production and JSON otherwise; LOG_FORMAT decides when set', () => {
    const format = (env: Record<string, string>, tty: boolean) => loadConfig(env, tty).observability.logFormat;
    expect(format({}, true)).toBe('pretty');
    expect(format({}, false)).toBe('json');
    const production = { NODE_ENV: 'production', JWT_SECRET: randomBytes(32).toString('base64') };
    expect(format(production, true)).toBe('json');
    expect(format({ LOG_FORMAT: 'json' }, true)).toBe('json');
    expect(format({ ...production, LOG_FORMAT: 'pretty' }, false)).toBe('pretty');
    expect(() => format({ LOG_FORMAT: 'text' }, true)).toThrow('LOG_FORMAT must be one of json, pretty; got "text"');
  });

  it('data in: sync reads 64 MiB of an answer and import 16 MiB of a line by default; at most 256 MiB, a positive integer', () => {
    expect(loadConfig({}).ingest).toEqual({ syncMaxBodyBytes: 67_108_864, importMaxLineBytes: 16_777_216 });
    expect(loadConfig({ SYNC_MAX_BODY_BYTES: '1024', IMPORT_MAX_LINE_BYTES: '2048' }).ingest).toEqual({
      syncMaxBodyBytes: 1024,
      importMaxLineBytes: 2048,
    });
    for (const name of ['SYNC_MAX_BODY_BYTES', 'IMPORT_MAX_LINE_BYTES']) {
      expect(() => loadConfig({ [name]: '0' })).toThrow(`${name} must be a positive integer; got "0"`);
      expect(() => loadConfig({ [name]: '268435457' })).toThrow(
        `${name} must be at most 268435456 (256 MiB: what is read is held as one string); got 268435457`,
      );
    }
  });

  it('live subscriptions: 20 and 200 symbols per user, 1000 per instance, 64 KiB unread at most, events kept 7 days (20 M rows) and 100,000 replayed at most by default; anything but a positive integer refused', () => {
    expect(loadConfig({}).subscriptions).toEqual({
      perCaller: 20,
      symbolsPerCaller: 200,
      perInstance: 1000,
      bufferBytes: 65_536,
      replayDepthMs: 7 * 24 * 3600 * 1000,
      replayKeepRows: 20_000_000,
      replayMaxRows: 100_000,
    });
    expect(
      loadConfig({
        SUBSCRIPTIONS_PER_CALLER: '5',
        SUBSCRIPTION_SYMBOLS_PER_CALLER: '30',
        SUBSCRIPTIONS_PER_INSTANCE: '50',
        SUBSCRIPTION_BUFFER_BYTES: '1048576',
        REPLAY_DEPTH_SECONDS: '3600',
        REPLAY_KEEP_ROWS: '1000',
        REPLAY_MAX_ROWS: '10',
      }).subscriptions,
    ).toEqual({
      perCaller: 5,
      symbolsPerCaller: 30,
      perInstance: 50,
      bufferBytes: 1_048_576,
      replayDepthMs: 3_600_000,
      replayKeepRows: 1000,
      replayMaxRows: 10,
    });
    for (const name of [
      'SUBSCRIPTIONS_PER_CALLER',
      'SUBSCRIPTION_SYMBOLS_PER_CALLER',
      'SUBSCRIPTIONS_PER_INSTANCE',
      'SUBSCRIPTION_BUFFER_BYTES',
      'REPLAY_DEPTH_SECONDS',
      'REPLAY_KEEP_ROWS',
      'REPLAY_MAX_ROWS',
    ]) {
      for (const value of ['0', '-1', 'many', '1.5'])
        expect(() => loadConfig({ [name]: value }), `${name}=${value}`).toThrow(
          `${name} must be a positive integer; got ${JSON.stringify(value)}`,
        );
    }
  });

  it('work in flight: 400,000 cost units and 32 MiB of large bodies, a 2 s wait; each must hold the largest single request', () => {
    expect(loadConfig({}).graphql).toMatchObject({
      maxCost: 200_000,
      costInFlight: 400_000,
      costWaitMs: 2_000,
      bodyBytesInFlight: 33_554_432,
    });
    expect(() => loadConfig({ COST_IN_FLIGHT: '100000' })).toThrow(
      'COST_IN_FLIGHT (100000) must be at least GRAPHQL_MAX_COST (200000)',
    );
    expect(loadConfig({ COST_IN_FLIGHT: '100000', GRAPHQL_MAX_COST: '50000' }).graphql.costInFlight).toBe(100_000);
    expect(() => loadConfig({ BODY_BYTES_IN_FLIGHT: '1048576' })).toThrow(
      /^BODY_BYTES_IN_FLIGHT \(1048576\) must be at least 10551296/,
    );
    expect(() => loadConfig({ COST_WAIT_MS: 'soon' })).toThrow('COST_WAIT_MS must be a positive integer; got "soon"');
  });

  it('bodies and sockets: 32 KiB/s after 10 s, 1 MiB per address without a credential (at most a quarter of the bodies in flight), 16 sockets per user and per address', () => {
    expect(loadConfig({}).connections).toEqual({
      minBytesPerSecond: 32_768,
      graceMs: 10_000,
      anonymousBytesPerAddress: 1_048_576,
      socketsPerCaller: 16,
      socketsPerAddress: 16,
    });
    // Node's own timeouts follow: the headers within the grace, the largest body at the pace after it
    expect(serverOptions(loadConfig({}).connections)).toEqual({
      headersTimeout: 10_000,
      requestTimeout: 10_000 + Math.ceil((LARGEST_BODY_BYTES / 32_768) * 1000),
      connectionsCheckingInterval: 1_000,
    });
    expect(() => loadConfig({ ANONYMOUS_BODY_BYTES_PER_ADDRESS: '16777216' })).toThrow(
      'ANONYMOUS_BODY_BYTES_PER_ADDRESS (16777216) must be at most a quarter of BODY_BYTES_IN_FLIGHT (8388608)',
    );
    for (const name of [
      'BODY_MIN_BYTES_PER_SECOND',
      'BODY_GRACE_MS',
      'WS_SOCKETS_PER_CALLER',
      'WS_SOCKETS_PER_ADDRESS',
    ])
      expect(() => loadConfig({ [name]: '0' })).toThrow(`${name} must be a positive integer; got "0"`);
  });

  // two processes of their own, started side by side
  it.concurrent.for([
    ['PORT', 'abc', {}],
    ['DATABASE_URL', 'mysql://x/y', {}],
    // production serves only with PUBLIC_URL (the CLI, which serves nothing, does without)
    ['PUBLIC_URL', '', { NODE_ENV: 'production', JWT_SECRET: randomBytes(32).toString('base64') }],
  ] as const)(
    'the server exits 2 with one line when %s=%s',
    { timeout: 150_000 },
    async ([name, value, more], { expect }) => {
      const r = await new Promise<{ status: number | null; stderr: string }>((resolve) => {
        execFile(
          process.execPath,
          ['--import', 'tsx', 'src/server.ts'],
          // a start under a loaded machine (the whole suite, other work) took 8-30 s: the bound is for a hang, not a speed
          { cwd: ROOT, env: { ...process.env, ...more, [name]: value }, encoding: 'utf8', timeout: 120_000 },
          (e, _out, stderr) => resolve({ status: e ? (typeof e.code === 'number' ? e.code : null) : 0, stderr }),
        );
      });
      expect(r.status).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(`configuration error: ${name}`);
      expect(r.stderr).not.toMatch(/\bat .*\.ts:\d+/); // no stack trace
    },
  );
});
