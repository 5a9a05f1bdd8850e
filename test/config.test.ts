import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, ROOT } from '../src/config.js';

describe('configuration', () => {
  it('defaults to port 4000 and an SQLite file under ./data', () => {
    const c = loadConfig({});
    expect(c.port).toBe(4000);
    expect(c.database.kind).toBe('sqlite');
    expect(c.database.kind === 'sqlite' && c.database.file).toMatch(/\/data\/market\.db$/);
    expect(c.sampleData).toBe('auto');
    expect(c.ocr.model).toBe('fast');
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('switches to PostgreSQL on a postgresql:// URL and reads ?schema=', () => {
    const c = loadConfig({ DATABASE_URL: 'postgresql://u@db:5432/market?schema=mirror' });
    expect(c.database).toEqual({ kind: 'postgresql', url: 'postgresql://u@db:5432/market', schema: 'mirror' });
  });

  it.each([
    [{ PORT: 'abc' }, /PORT must be an integer from 1 to 65535; got "abc"/],
    [{ PORT: '70000' }, /PORT .* got "70000"/],
    [{ DATABASE_URL: 'mysql://x/y' }, /DATABASE_URL must start with file: or postgresql:\/\/; got "mysql:\/\/x\/y"/],
    [{ DATABASE_URL: 'postgresql://host' }, /must name a host and a database/],
    [{ DATABASE_URL: 'postgresql://h/db?schema=a-b' }, /schema parameter must be an SQL identifier; got "a-b"/],
    [{ SAMPLE_DATA: 'some' }, /SAMPLE_DATA must be one of auto, none; got "some"/],
    [{ NODE_ENV: 'staging' }, /NODE_ENV must be one of/],
    [{ REDIS_URL: 'localhost:6379' }, /REDIS_URL must start with redis:\/\//],
    [{ OCR_MODEL: 'legacy' }, /OCR_MODEL must be one of fast, best; got "legacy"/],
  ])('rejects %j with a message naming the variable and value', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  // two processes of their own, started side by side
  it.concurrent.for([
    ['PORT', 'abc'],
    ['DATABASE_URL', 'mysql://x/y'],
  ] as const)('the server exits 2 with one line when %s=%s', async ([name, value], { expect }) => {
    const r = await new Promise<{ status: number | null; stderr: string }>((resolve) => {
      execFile(process.execPath, ['--import', 'tsx', 'src/server.ts'], { cwd: ROOT, env: { ...process.env, [name]: value }, encoding: 'utf8', timeout: 30_000 }, (e, _out, stderr) =>
        resolve({ status: e ? (typeof e.code === 'number' ? e.code : null) : 0, stderr }),
      );
    });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`configuration error: ${name}`);
    expect(r.stderr).not.toMatch(/\bat .*\.ts:\d+/); // no stack trace
  });
});
