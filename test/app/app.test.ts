import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { openDatabase } from '../../src/bootstrap.js';
import { ROOT } from '../../src/config.js';
import type { Db } from '../../src/db/client.js';
import { printedSchema } from '../../src/schema/index.js';
import { testConfig, testDatabases } from '../helpers.js';
import { COSTED } from '../graphql/helpers.js';

describe.each(testDatabases())('HTTP shell on $name', (tdb) => {
  let db: Db;
  let app: App;
  beforeAll(async () => {
    // what openDatabase makes of an empty database (migrations, demo accounts), copied from the run's template
    const config = testConfig(await tdb.createSeeded('none'));
    db = await openDatabase(config);
    app = createApp({ config, db });
  });
  afterAll(async () => {
    await db?.close();
    await tdb.cleanup();
  });

  it('GET /healthz answers 200 with a request id', async () => {
    const res = await app.fetch('http://test/healthz');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('GET /readyz answers 200 while the database answers, 503 when it fails or hangs', async () => {
    expect((await app.fetch('http://test/readyz')).status).toBe(200);
    const config = testConfig(await tdb.create());
    for (const broken of [() => Promise.reject(new Error('connection refused')), () => new Promise(() => {})]) {
      const down = { ...db, prisma: { $queryRawUnsafe: broken } } as unknown as Db;
      const res = await createApp({ config, db: down }).fetch('http://test/readyz');
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(await res.json()).toEqual({
        status: 'unavailable',
        reason: 'unavailable',
        message: 'the database does not answer',
      });
    }
  });

  it('an unknown path is a 404 with the error body of docs/rest.md', async () => {
    const res = await app.fetch('http://test/no/such/path', { headers: { 'x-request-id': 'req-123' } });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(await res.json()).toEqual({
      status: 'ERROR',
      code: 'NOT_FOUND',
      message: 'no such path: GET /no/such/path',
      request_id: 'req-123',
    });
  });

  it('serves GraphQL at /graphql', async () => {
    const res = await app.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ serviceInfo { version database } }' }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      data: { serviceInfo: { version: expect.any(String), database: tdb.name } },
      ...COSTED,
    });
  });
});

describe('schema.graphql', () => {
  it('is the printed schema (run `npm run schema` after changing the graph)', () => {
    expect(fs.readFileSync(path.join(ROOT, 'schema.graphql'), 'utf8')).toBe(printedSchema());
  });
});

describe('the graph documents itself', () => {
  it('every type, field and argument of our own has a description', async () => {
    const { schema } = await import('../../src/schema/index.js');
    const { isObjectType, isInputObjectType, isEnumType, isInterfaceType } = await import('graphql');
    const missing: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__')) continue;
      if (
        !type.description &&
        !['Query', 'PageInfo', 'Node', 'Boolean', 'String', 'Int', 'Float', 'ID'].includes(type.name) &&
        !/(Connection|Edge)$/.test(type.name)
      )
        missing.push(type.name);
      if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
        if (type.name === 'PageInfo' || /(Connection|Edge)$/.test(type.name) || type.name === 'Node') continue;
        for (const field of Object.values(type.getFields())) {
          if (!field.description && field.name !== 'id') missing.push(`${type.name}.${field.name}`);
          for (const arg of 'args' in field ? field.args : []) {
            if (!arg.description && !(field.name === 'node' || field.name === 'nodes'))
              missing.push(`${type.name}.${field.name}(${arg.name})`);
          }
        }
      }
      if (isEnumType(type) && type.name !== '__TypeKind') {
        // enum values carry meaning through their names; the enum itself must be described
        if (!type.description) missing.push(type.name);
      }
    }
    expect(missing).toEqual([]);
  });
});
