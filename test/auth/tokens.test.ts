import { createHmac, generateKeyPairSync, randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_ENDED } from '../../src/auth/caller.js';
import { findUserByEmail } from '../../src/services/account.js';
import {
  accessCookie,
  authHarness,
  bearer,
  expectGraphQLRequestError,
  expectRestError,
  gqlRequest,
  login,
  refreshRequest,
  validateRequest,
  type AuthHarness,
} from './helpers.js';
import { TEST_JWT_SECRET, testDatabases } from '../helpers.js';

/** Tokens are crafted here with jsonwebtoken and by hand (base64url), never with the app's signer. */
const ISS = 'market-data-gateway';
const b64url = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

function hmac(alg: 'HS256' | 'HS384' | 'HS512', input: string, secret = TEST_JWT_SECRET): string {
  return createHmac(`sha${alg.slice(2)}`, secret)
    .update(input)
    .digest('base64url');
}

/** A token assembled by hand: header and payload as given, HMAC-signed unless `signature` is given. */
function handToken(header: Record<string, unknown>, payload: Record<string, unknown>, signature?: string): string {
  const input = `${b64url(header)}.${b64url(payload)}`;
  return `${input}.${signature ?? hmac(header.alg as 'HS256', input)}`;
}

describe.each(testDatabases())('JWT rules on $name', (tdb) => {
  let h: AuthHarness;
  let userId: string;
  let sessionId: string;
  let claims: Record<string, unknown>;
  beforeAll(async () => {
    // hundreds of refused tokens from one client address, on purpose: the budget of requests
    // without a valid caller (tested in auth/rate-limit.test.ts) would answer most of them with 429
    h = await authHarness(tdb, { RATE_LIMIT_ANONYMOUS: '100000' });
    userId = (await findUserByEmail(h.db, 'pro@example.com'))!.id;
    // a real session for crafted tokens to name: access tokens are valid only while theirs is
    sessionId = (jwt.decode((await login(h.app, 'pro@example.com')).access) as jwt.JwtPayload).sid;
  });
  afterAll(async () => {
    await h?.close();
    await tdb.cleanup();
  });

  /** Valid access claims for the pro demo user in a live session, good for the next hour. */
  function accessClaims(extra: Record<string, unknown> = {}): Record<string, unknown> {
    const now = Math.floor(Date.now() / 1000);
    claims = {
      token_use: 'access',
      sub: userId,
      sid: sessionId,
      jti: randomUUID(),
      iss: ISS,
      aud: ISS,
      iat: now,
      exp: now + 3600,
      ...extra,
    };
    return claims;
  }

  const VALIDATED = () => ({ user_id: userId, email: 'pro@example.com', username: 'pro', licensing_tier_id: 'pro' });

  async function expectAccepted(token: string) {
    const r = await validateRequest(h.app, bearer(token));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual(VALIDATED());
  }

  async function expectRefused(token: string, message: string | RegExp = 'the access token is not valid') {
    expectRestError(await validateRequest(h.app, bearer(token)), 401, 'UNAUTHENTICATED', message);
    expectRestError(await validateRequest(h.app, accessCookie(token)), 401, 'UNAUTHENTICATED', message);
    expectGraphQLRequestError(
      await gqlRequest(h.app, '{ me { email } }', bearer(token)),
      401,
      'UNAUTHENTICATED',
      message,
    );
  }

  it('controls: tokens crafted here with the right secret and claims are accepted (so refusals below are for the reason named)', async () => {
    await expectAccepted(jwt.sign(accessClaims(), TEST_JWT_SECRET, { algorithm: 'HS256' }));
    await expectAccepted(handToken({ alg: 'HS256', typ: 'JWT' }, accessClaims()));
    const r = await gqlRequest(
      h.app,
      '{ me { email authenticatedBy } }',
      bearer(handToken({ alg: 'HS256', typ: 'JWT' }, accessClaims())),
    );
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: { me: { email: 'pro@example.com', authenticatedBy: 'bearer' } } });
  });

  it('alg none (unsigned) is refused, in any spelling', async () => {
    for (const alg of ['none', 'None', 'NONE', 'nOnE']) {
      await expectRefused(handToken({ alg, typ: 'JWT' }, accessClaims(), ''));
    }
    // a none header with the valid HS256 signature kept
    const good = handToken({ alg: 'HS256', typ: 'JWT' }, accessClaims());
    const sig = good.split('.')[2]!;
    await expectRefused(handToken({ alg: 'none', typ: 'JWT' }, claims, sig));
    // jsonwebtoken's own unsigned token
    await expectRefused(jwt.sign(accessClaims(), '', { algorithm: 'none' }));
  });

  it('other algorithms are refused even when signed with the right secret (HS384, HS512)', async () => {
    await expectRefused(jwt.sign(accessClaims(), TEST_JWT_SECRET, { algorithm: 'HS384' }));
    await expectRefused(jwt.sign(accessClaims(), TEST_JWT_SECRET, { algorithm: 'HS512' }));
    await expectRefused(handToken({ alg: 'HS512', typ: 'JWT' }, accessClaims()));
    // a header claiming HS512 over an HS256 signature
    const input = `${b64url({ alg: 'HS512', typ: 'JWT' })}.${b64url(accessClaims())}`;
    await expectRefused(`${input}.${hmac('HS256', input)}`);
  });

  it('public-key algorithms are refused: a real RS256 token, and RS256/ES256 headers over an HMAC signature', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    await expectRefused(jwt.sign(accessClaims(), privateKey, { algorithm: 'RS256' }));
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    for (const alg of ['RS256', 'ES256', 'PS256']) {
      const input = `${b64url({ alg, typ: 'JWT' })}.${b64url(accessClaims())}`;
      await expectRefused(`${input}.${hmac('HS256', input)}`);
      await expectRefused(`${input}.${createHmac('sha256', pem).update(input).digest('base64url')}`);
    }
  });

  it('a token signed with another secret is refused', async () => {
    await expectRefused(
      jwt.sign(accessClaims(), 'another-secret-another-secret-another-secret', { algorithm: 'HS256' }),
    );
    await expectRefused(jwt.sign(accessClaims(), TEST_JWT_SECRET.slice(0, -1), { algorithm: 'HS256' }));
  });

  it('an expired token is refused with a message saying it has expired', async () => {
    const now = Math.floor(Date.now() / 1000);
    await expectRefused(
      jwt.sign(accessClaims({ iat: now - 7200, exp: now - 60 }), TEST_JWT_SECRET, { algorithm: 'HS256' }),
      'the access token has expired',
    );
    await expectRefused(
      handToken({ alg: 'HS256', typ: 'JWT' }, accessClaims({ exp: now - 1 })),
      'the access token has expired',
    );
  });

  it('a token without exp, signed with the real secret, is refused (it would never expire)', async () => {
    const { exp: _exp, ...noExp } = accessClaims();
    await expectRefused(handToken({ alg: 'HS256', typ: 'JWT' }, noExp));
    await expectRefused(jwt.sign(noExp, TEST_JWT_SECRET, { algorithm: 'HS256' }));
    await expectRefused(
      handToken({ alg: 'HS256', typ: 'JWT' }, accessClaims({ exp: String(Math.floor(Date.now() / 1000) + 3600) })),
    );
    // and a refresh token without exp is no refresh token
    const { exp: _rexp, ...refreshNoExp } = accessClaims({ token_use: 'refresh', fam: sessionId });
    expectRestError(
      await refreshRequest(h.app, handToken({ alg: 'HS256', typ: 'JWT' }, refreshNoExp)),
      401,
      'UNAUTHENTICATED',
      'the refresh token is not valid',
    );
  });

  it("a token without sid (its session), or naming a session that is not its user's or does not exist, is refused", async () => {
    const { sid: _sid, ...noSid } = accessClaims();
    await expectRefused(handToken({ alg: 'HS256', typ: 'JWT' }, noSid));
    await expectRefused(handToken({ alg: 'HS256', typ: 'JWT' }, accessClaims({ sid: 42 })));
    await expectRefused(handToken({ alg: 'HS256', typ: 'JWT' }, accessClaims({ sid: randomUUID() })), SESSION_ENDED);
    const freeSession = (jwt.decode((await login(h.app, 'free@example.com')).access) as jwt.JwtPayload).sid;
    await expectRefused(handToken({ alg: 'HS256', typ: 'JWT' }, accessClaims({ sid: freeSession })), SESSION_ENDED);
  });

  it('a tampered payload (another sub, a raised exp) keeping the signature is refused', async () => {
    const other = (await findUserByEmail(h.db, 'enterprise@example.com'))!.id;
    const token = handToken({ alg: 'HS256', typ: 'JWT' }, accessClaims());
    await expectAccepted(token);
    const [header, , sig] = token.split('.');
    await expectRefused(`${header}.${b64url({ ...claims, sub: other })}.${sig}`);
    await expectRefused(`${header}.${b64url({ ...claims, exp: (claims.exp as number) + 86400 })}.${sig}`);
    // a signature with one character changed
    const flipped = sig!.slice(0, 10) + (sig![10] === 'A' ? 'B' : 'A') + sig!.slice(11);
    await expectRefused(`${header}.${b64url(claims)}.${flipped}`);
  });

  it('a wrong or missing issuer or audience is refused', async () => {
    await expectRefused(handToken({ alg: 'HS256', typ: 'JWT' }, accessClaims({ iss: 'someone-else' })));
    await expectRefused(handToken({ alg: 'HS256', typ: 'JWT' }, accessClaims({ aud: 'someone-else' })));
    const { iss: _iss, ...noIss } = accessClaims();
    await expectRefused(handToken({ alg: 'HS256', typ: 'JWT' }, noIss));
    const { aud: _aud, ...noAud } = accessClaims();
    await expectRefused(handToken({ alg: 'HS256', typ: 'JWT' }, noAud));
  });

  it('token_use must be "access": missing, refresh or anything else is refused as a Bearer/cookie token', async () => {
    const { token_use: _use, ...noUse } = accessClaims();
    await expectRefused(handToken({ alg: 'HS256', typ: 'JWT' }, noUse));
    await expectRefused(
      handToken({ alg: 'HS256', typ: 'JWT' }, accessClaims({ token_use: 'refresh', fam: randomUUID() })),
    );
    await expectRefused(handToken({ alg: 'HS256', typ: 'JWT' }, accessClaims({ token_use: 'id' })));
    // sub and jti are required too
    const { sub: _sub, ...noSub } = accessClaims();
    await expectRefused(handToken({ alg: 'HS256', typ: 'JWT' }, noSub));
    const { jti: _jti, ...noJti } = accessClaims();
    await expectRefused(handToken({ alg: 'HS256', typ: 'JWT' }, noJti));
  });

  it('a real refresh token used as a Bearer token (or access cookie) is refused', async () => {
    const { refresh } = await login(h.app, 'pro@example.com');
    await expectRefused(refresh);
  });

  it('a real access token used as the refresh cookie is refused, and so are crafted refresh tokens without a family', async () => {
    const { access } = await login(h.app, 'pro@example.com');
    expectRestError(await refreshRequest(h.app, access), 401, 'UNAUTHENTICATED', 'the refresh token is not valid');
    const noFamily = handToken({ alg: 'HS256', typ: 'JWT' }, accessClaims({ token_use: 'refresh' }));
    expectRestError(await refreshRequest(h.app, noFamily), 401, 'UNAUTHENTICATED', 'the refresh token is not valid');
    // a well-signed refresh token naming a family that does not exist
    const unknownFamily = handToken(
      { alg: 'HS256', typ: 'JWT' },
      accessClaims({ token_use: 'refresh', fam: randomUUID() }),
    );
    expectRestError(await refreshRequest(h.app, unknownFamily), 401, 'UNAUTHENTICATED', /no longer valid/);
    const r = await gqlRequest(h.app, 'mutation { refreshSession { message } }', {
      cookie: `DT_REFRESH_TOKEN=${access}`,
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      data: null,
      errors: [
        {
          message: 'the refresh token is not valid',
          path: ['refreshSession'],
          locations: expect.any(Array),
          extensions: { code: 'UNAUTHENTICATED' },
        },
      ],
    });
  });

  it('a refresh token whose sub is not the owner of its family is refused and revokes the family', async () => {
    const { refresh } = await login(h.app, 'pro@example.com');
    const real = jwt.decode(refresh) as Record<string, unknown>;
    const other = (await findUserByEmail(h.db, 'free@example.com'))!.id;
    // only someone holding the secret could do this; the server must still not mix users up
    const forged = jwt.sign({ ...real, sub: other }, TEST_JWT_SECRET, { algorithm: 'HS256' });
    expectRestError(await refreshRequest(h.app, forged), 401, 'UNAUTHENTICATED', /no longer valid/);
    expectRestError(await refreshRequest(h.app, refresh), 401, 'UNAUTHENTICATED', /no longer valid|already used/);
  });

  it('garbage in the Bearer header or cookie is refused, never a 500', async () => {
    // without a dot a Bearer value is no token: it is looked up as an API key (auth/caller.ts)
    expectRestError(await validateRequest(h.app, bearer('x')), 401, 'UNAUTHENTICATED', 'the API key is not valid');
    expectRestError(
      await validateRequest(h.app, accessCookie('x')),
      401,
      'UNAUTHENTICATED',
      'the access token is not valid',
    );
    for (const token of ['a.b.c', 'eyJhbGciOiJIUzI1NiJ9..', '...', 'eyJ.eyJ.eyJ', `${b64url('{')}.${b64url('{')}.x`]) {
      await expectRefused(token);
    }
  });
});
