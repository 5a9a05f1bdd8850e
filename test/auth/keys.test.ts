import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/client.js';
import { createApiKey, findUserByEmail } from '../../src/services/account.js';
import {
  accessCookie,
  authHarness,
  bearer,
  expectGraphQLRequestError,
  freshUser,
  gqlRequest,
  login,
  validateRequest,
  type AuthHarness,
} from './helpers.js';
import { testDatabases } from '../helpers.js';

const CREATE_KEY = 'mutation ($name: String!) { createApiKey(name: $name) { key apiKey { keyId } } }';
const LIST_KEYS = '{ apiKeys { keyId revokedAt } }';
const REVOKE_KEY = 'mutation ($keyId: String!) { revokeApiKey(keyId: $keyId) { keyId revokedAt } }';
const NEEDS_SESSION =
  /^managing API keys needs a logged-in session, not an API key: log in \(POST \/kms\/api\/v1\/auth\/token or the login mutation\) and send the access token/;

/** A failed root field: `data` is null, or for the nullable apiKeys, `{ apiKeys: null }`. */
function fieldError(path: string, code: string, message: RegExp) {
  return {
    data: path === 'apiKeys' ? { apiKeys: null } : null,
    errors: [
      { message: expect.stringMatching(message), path: [path], locations: expect.any(Array), extensions: { code } },
    ],
  };
}

describe.each(testDatabases())('who may manage API keys, and how many, on $name', (tdb) => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await authHarness(tdb, { API_KEYS_PER_USER: '3' });
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  it('an API key cannot create, list or revoke keys (FORBIDDEN, saying to log in); a Bearer token or the cookie can', async () => {
    const u = await freshUser(h.db, 'free');
    const { access } = await login(h.app, u.email, u.password);
    const first = (await gqlRequest(h.app, CREATE_KEY, bearer(access), { name: 'first' })).body.data.createApiKey;
    for (const key of [first.key, 'demo-free']) {
      for (const headers of [{ 'x-api-key': key }, {}] as Record<string, string>[]) {
        const path = Object.keys(headers).length ? '/graphql' : `/graphql?apikey=${key}`;
        expect((await gqlRequest(h.app, CREATE_KEY, headers, { name: 'minted by a key' }, path)).body).toEqual(
          fieldError('createApiKey', 'FORBIDDEN', NEEDS_SESSION),
        );
        expect((await gqlRequest(h.app, LIST_KEYS, headers, undefined, path)).body).toEqual(
          fieldError('apiKeys', 'FORBIDDEN', NEEDS_SESSION),
        );
        expect((await gqlRequest(h.app, REVOKE_KEY, headers, { keyId: first.apiKey.keyId }, path)).body).toEqual(
          fieldError('revokeApiKey', 'FORBIDDEN', NEEDS_SESSION),
        );
      }
    }
    expect(await h.db.prisma.apiKey.count({ where: { userId: u.id } })).toBe(1);
    expect((await h.db.prisma.apiKey.findUniqueOrThrow({ where: { id: first.apiKey.keyId } })).revokedAt).toBeNull();
    const byCookie = await gqlRequest(h.app, CREATE_KEY, accessCookie(access), { name: 'by cookie' });
    expect(byCookie.body.data.createApiKey.key).toMatch(/^mdg_/);
    expect((await gqlRequest(h.app, LIST_KEYS, bearer(access))).body.data.apiKeys).toHaveLength(2);
  });

  it('a key minted from demo-free cannot revoke demo-free (the finding): there is no such key, and demo-free keeps working', async () => {
    const freeUser = (await findUserByEmail(h.db, 'free@example.com'))!;
    const demoKeyId = (await h.db.prisma.apiKey.findFirstOrThrow({ where: { userId: freeUser.id, name: 'demo' } })).id;
    const minted = await gqlRequest(h.app, CREATE_KEY, { 'x-api-key': 'demo-free' }, { name: 'minted' });
    expect(minted.body).toEqual(fieldError('createApiKey', 'FORBIDDEN', NEEDS_SESSION));
    const revoked = await gqlRequest(h.app, REVOKE_KEY, { 'x-api-key': 'demo-free' }, { keyId: demoKeyId });
    expect(revoked.body).toEqual(fieldError('revokeApiKey', 'FORBIDDEN', NEEDS_SESSION));
    expect(await h.db.prisma.apiKey.count({ where: { userId: freeUser.id } })).toBe(1);
    expect((await validateRequest(h.app, { 'x-api-key': 'demo-free' })).status).toBe(200);
  });

  it(`API_KEYS_PER_USER active keys at most: the next is API_KEY_LIMIT_REACHED; revoked keys make room`, async () => {
    const u = await freshUser(h.db, 'pro');
    const session = bearer((await login(h.app, u.email, u.password)).access);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await gqlRequest(h.app, CREATE_KEY, session, { name: `k${i}` })).body.data.createApiKey.apiKey.keyId);
    const over = await gqlRequest(h.app, CREATE_KEY, session, { name: 'one too many' });
    expect(over.status).toBe(200);
    expect(over.body).toEqual(
      fieldError(
        'createApiKey',
        'API_KEY_LIMIT_REACHED',
        /^this user has 3 active API keys, the most API_KEYS_PER_USER allows \(3\); revoke one before creating another$/,
      ),
    );
    expect((await gqlRequest(h.app, REVOKE_KEY, session, { keyId: ids[0] })).body.data.revokeApiKey.revokedAt).toEqual(
      expect.any(String),
    );
    expect((await gqlRequest(h.app, CREATE_KEY, session, { name: 'in its place' })).body.data.createApiKey.key).toMatch(
      /^mdg_/,
    );
    expect(
      (await gqlRequest(h.app, CREATE_KEY, session, { name: 'again too many' })).body.errors[0].extensions.code,
    ).toBe('API_KEY_LIMIT_REACHED');
    expect(await h.db.prisma.apiKey.count({ where: { userId: u.id, revokedAt: null } })).toBe(3);
  });

  // other instances are database clients of their own
  it('concurrent creations never pass the cap: 24 at once, through GraphQL (and from two other database clients)', async () => {
    const u = await freshUser(h.db, 'pro');
    const session = bearer((await login(h.app, u.email, u.password)).access);
    const others = await Promise.all([createDb(h.config.database), createDb(h.config.database)]);
    const http = others.length ? 8 : 24;
    try {
      const attempts = await Promise.all([
        ...Array.from({ length: http }, (_, i) =>
          gqlRequest(h.app, CREATE_KEY, session, { name: `http ${i}` }).then(
            (r) => r.body.errors?.[0].extensions.code ?? 'created',
          ),
        ),
        ...others.flatMap((db, d) =>
          Array.from({ length: 8 }, (_, i) =>
            createApiKey(db, u.id, `db${d} ${i}`, 3).then(
              () => 'created',
              (e: { code?: string }) => e.code ?? String(e),
            ),
          ),
        ),
      ]);
      expect(attempts.filter((a) => a === 'created')).toHaveLength(3);
      expect(attempts.filter((a) => a !== 'created')).toEqual(Array(21).fill('API_KEY_LIMIT_REACHED'));
      expect(await h.db.prisma.apiKey.count({ where: { userId: u.id, revokedAt: null } })).toBe(3);
    } finally {
      await Promise.all(others.map((db) => db.close()));
    }
  });

  it('without credentials key management is UNAUTHENTICATED; with a wrong key the whole request is 401', async () => {
    const anon = await gqlRequest(h.app, CREATE_KEY, {}, { name: 'x' });
    expect(anon.body).toEqual(fieldError('createApiKey', 'UNAUTHENTICATED', /authentication required/));
    expectGraphQLRequestError(
      await gqlRequest(h.app, LIST_KEYS, { 'x-api-key': 'not-a-key' }),
      401,
      'UNAUTHENTICATED',
      'the API key is not valid',
    );
  });
});
