// Live subscriptions keep checking the rights they started with: a key revoked, a user disabled or
// a tier lowered — by the service functions the CLI calls, straight on the database, never through
// this app — ends every subscription field of the schema, over SSE and WebSocket, with a coded
// error event within AUTH_CACHE_SECONDS (1 here); so does a login session that ended. The rights
// of all of an instance's subscriptions are read in a constant number of statements per round.
import {
  getNamedType,
  getNullableType,
  isListType,
  isNonNullType,
  type ExecutionResult,
  type GraphQLField,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { CallerCache } from '../../src/auth/caller.js';
import { isEntitled, lowestTierWith, type Resource } from '../../src/domain/entitlements.js';
import { newsTopic } from '../../src/runtime/events.js';
import type { Sink } from '../../src/graphql/live-group.js';
import { LiveHub } from '../../src/graphql/live.js';
import { createLogger } from '../../src/observability/log.js';
import { schema } from '../../src/schema/index.js';
import {
  createApiKey,
  currentRights,
  disableUser,
  revokeApiKey,
  setUserTier,
  type Tier,
} from '../../src/services/account.js';
import { authHarness, freshUser, type AuthHarness } from '../auth/helpers.js';
import { testDatabases } from '../helpers.js';
import {
  countingBus,
  fetchOf,
  listening,
  sse,
  wsClients,
  type EventStream,
  type WsOperation,
} from './subscription-helpers.js';

const FIELDS = Object.values(schema.getSubscriptionType()!.getFields());

/** The resource a subscription field is entitled by (its Pothos authScopes). */
const resourceOf = (field: GraphQLField<unknown, unknown>): Resource =>
  (field.extensions as { pothosOptions: { authScopes: { entitled: Resource } } }).pothosOptions.authScopes.entitled;

/**
 * The smallest document of a subscription field: its required arguments with a symbol (and
 * `symbol`, of the fields that take it or `symbols`), and `__typename`.
 */
function documentOf(field: GraphQLField<unknown, unknown>): string {
  const args = field.args
    .filter((a) => isNonNullType(a.type) || a.name === 'symbol')
    .map((a) => {
      if (getNamedType(a.type).name !== 'String')
        throw new Error(`no sample value for ${field.name}(${a.name}: ${String(a.type)}): add one here`);
      return `${a.name}: ${isListType(getNullableType(a.type)) ? '["NVLX"]' : '"NVLX"'}`;
    });
  return `subscription { ${field.name}${args.length ? `(${args.join(', ')})` : ''} { __typename } }`;
}

const ended = (message: string | RegExp, code: string) => [
  { event: 'next', data: { errors: [{ message: expect.stringMatching(message), extensions: { code } }] } },
  { event: 'complete', data: '' },
];

describe.each(testDatabases())('live subscriptions re-check their rights on $name', (tdb) => {
  let h: AuthHarness;
  let counted: ReturnType<typeof countingBus>;
  let app: App;
  let server: Awaited<ReturnType<typeof listening>>;
  const ws = wsClients(() => server.url);

  beforeAll(async () => {
    h = await authHarness(tdb, { AUTH_CACHE_SECONDS: '1' });
    counted = countingBus();
    app = createApp({ config: h.config, db: h.db, events: counted.bus });
    server = await listening(app);
  });
  afterAll(async () => {
    await ws.disposeAll();
    await server.close();
    await counted.bus.close();
    await h.close();
    await tdb.cleanup();
  });

  /** A user of `tier` with one key (made as the CLI makes them). */
  async function holder(tier: Tier) {
    const user = await freshUser(h.db, tier);
    const { key, record } = await createApiKey(h.db, user.id, 'live', 10);
    return { user, key, keyId: record.id };
  }

  /** Every subscription field of the schema, over SSE and over one WebSocket connection, all listening. */
  async function subscribeAll(
    key: string,
  ): Promise<{ streams: EventStream[]; ops: WsOperation[]; closed: { code?: number; reason?: string } }> {
    const before = counted.started();
    const streams = await Promise.all(
      FIELDS.map((f) => sse(fetchOf(app), 'http://test', documentOf(f), { 'x-api-key': key })),
    );
    // not lazy: the connection stays open after its operations end, so its own close code is seen
    const { client, closed } = ws.client({ apiKey: key }, undefined, { lazy: false });
    const ops = FIELDS.map((f) => ws.run(client, documentOf(f)));
    await expect.poll(() => counted.started() - before, { timeout: 10_000 }).toBe(2 * FIELDS.length);
    for (const s of streams) expect(s.response.status).toBe(200);
    return { streams, ops, closed };
  }

  it('the schema has subscription fields, each entitled by a resource', () => {
    expect(FIELDS.length).toBeGreaterThan(0);
    for (const f of FIELDS) expect(resourceOf(f), f.name).toBeTruthy();
  });

  it('a key revoked as `apikeys revoke` does: every subscription field ends with UNAUTHENTICATED, then completes; the WebSocket closes with 4401', async () => {
    const { key, keyId } = await holder('enterprise');
    const { streams, ops, closed } = await subscribeAll(key);
    await revokeApiKey(h.db, keyId);
    for (const [i, stream] of streams.entries())
      expect(await stream.rest(), FIELDS[i]!.name).toEqual(
        ended(/^the API key was revoked; this subscription has ended$/, 'UNAUTHENTICATED'),
      );
    await expect.poll(() => ops.every((o) => o.done), { timeout: 10_000 }).toBe(true);
    for (const [i, op] of ops.entries()) {
      expect(op.error, FIELDS[i]!.name).toBeUndefined();
      expect(op.results, FIELDS[i]!.name).toEqual([
        {
          errors: [
            {
              message: 'the API key was revoked; this subscription has ended',
              extensions: { code: 'UNAUTHENTICATED' },
            },
          ],
        },
      ]);
    }
    await expect.poll(() => closed.code, { timeout: 10_000 }).toBe(4401);
    expect(closed.reason).toMatch(/API key was revoked/);
    await expect.poll(() => counted.open(), { timeout: 5_000 }).toBe(0);
  });

  it('a user disabled as `users disable` does: every subscription of each of its keys ends with UNAUTHENTICATED', async () => {
    const { user, key } = await holder('pro');
    const other = (await createApiKey(h.db, user.id, 'second', 10)).key;
    const [first, second] = [await subscribeAll(key), await subscribeAll(other)];
    await disableUser(h.db, user.email);
    for (const { streams, ops, closed } of [first, second]) {
      for (const stream of streams)
        expect(await stream.rest()).toEqual(
          ended(/^the user was disabled; this subscription has ended$/, 'UNAUTHENTICATED'),
        );
      await expect.poll(() => ops.every((o) => o.done), { timeout: 10_000 }).toBe(true);
      for (const op of ops)
        expect(op.results).toEqual([
          { errors: [expect.objectContaining({ extensions: { code: 'UNAUTHENTICATED' } })] },
        ]);
      await expect.poll(() => closed.code, { timeout: 10_000 }).toBe(4401);
    }
  });

  it('a tier lowered as `users set-tier` does: the subscriptions it no longer covers end with FORBIDDEN naming the tier needed; the others go on', async () => {
    const { user, key } = await holder('enterprise');
    const { streams, ops, closed } = await subscribeAll(key);
    await setUserTier(h.db, user.email, 'free');
    const kept = FIELDS.flatMap((f, i) => (isEntitled('free', resourceOf(f)) ? [i] : []));
    for (const [i, field] of FIELDS.entries()) {
      if (kept.includes(i)) continue;
      const resource = resourceOf(field);
      expect(await streams[i]!.rest(), field.name).toEqual(
        ended(
          `^${resource} needs the ${lowestTierWith(resource)} tier or higher; this caller's tier is free$`,
          'FORBIDDEN',
        ),
      );
      await expect.poll(() => ops[i]!.done, { timeout: 10_000 }).toBe(true);
      expect(ops[i]!.results).toEqual([
        {
          errors: [
            {
              message: `${resource} needs the ${lowestTierWith(resource)} tier or higher; this caller's tier is free`,
              extensions: { code: 'FORBIDDEN' },
            },
          ],
        },
      ]);
    }
    // what free still covers (news) is still delivered, on the same connection, which stays open
    expect(kept.map((i) => FIELDS[i]!.name)).toEqual(['newsAdded']);
    const i = kept[0]!;
    await counted.bus.publish(newsTopic('NVLX'), { id: 1 });
    expect(await streams[i]!.next()).toEqual({ data: { newsAdded: { __typename: 'NewsItem' } } });
    await expect.poll(() => ops[i]!.results.length, { timeout: 5_000 }).toBe(1);
    expect(ops[i]!.results[0]).toEqual({ data: { newsAdded: { __typename: 'NewsItem' } } });
    expect(ops[i]!.done).toBe(false);
    expect(closed.code).toBeUndefined();
    await streams[i]!.cancel();
    ops[i]!.dispose();
  });

  it('a login session ended (logout, reuse detection) ends the subscriptions of the access tokens it issued', async () => {
    const user = await freshUser(h.db, 'pro');
    const family = await h.db.prisma.refreshTokenFamily.create({
      data: { userId: user.id, currentJti: 'jti', expiresAt: new Date(Date.now() + 3_600_000) },
    });
    const hub = new LiveHub({
      config: h.config.subscriptions,
      callerCacheMs: h.config.auth.callerCacheMs,
      db: h.db,
      callers: new CallerCache(),
      logger: createLogger('silent'),
    });
    const caller = {
      userId: user.id,
      email: user.email,
      username: user.username,
      tier: user.tier,
      via: 'bearer' as const,
      sessionId: family.id,
    };
    const ends: (string | undefined)[] = [];
    const sink: Sink = {
      deliver: () => true,
      flush: () => true,
      fail: (e) => void ends.push(`${e.code}: ${e.message}`),
      complete: () => void ends.push(undefined),
      delivered: () => undefined,
    };
    const idle: AsyncIterable<ExecutionResult> = {
      [Symbol.asyncIterator]: () => ({
        next: () => new Promise<never>(() => {}),
        return: async () => ({ done: true, value: undefined }),
      }),
    };
    hub.attach(hub.reserve(caller, 'trades', 'k', 1, 'BUFFER'), idle, sink);
    await hub.checkRights();
    expect(ends).toEqual([]);
    await h.db.prisma.refreshTokenFamily.update({ where: { id: family.id }, data: { revokedAt: new Date() } });
    await hub.checkRights();
    expect(ends).toEqual([expect.stringMatching(/^UNAUTHENTICATED: the login session was ended/)]);
    expect(hub.stats).toEqual({ subscriptions: 0, groups: 0 });
  });

  it('one round reads the rights of any number of credentials in 3 statements (users, keys, login sessions): revoked, disabled, ended and expired all count', async () => {
    const users = await Promise.all([freshUser(h.db, 'pro'), freshUser(h.db, 'enterprise'), freshUser(h.db, 'free')]);
    const keys = await Promise.all(users.flatMap((u) => [1, 2, 3].map((n) => createApiKey(h.db, u.id, `k${n}`, 10))));
    const session = (userId: string, revoked: boolean) =>
      h.db.prisma.refreshTokenFamily.create({
        data: {
          userId,
          currentJti: 'jti',
          expiresAt: new Date(Date.now() + 3_600_000),
          revokedAt: revoked ? new Date() : null,
        },
      });
    const [open, loggedOut] = [await session(users[0]!.id, false), await session(users[0]!.id, true)];
    const expired = await h.db.prisma.refreshTokenFamily.create({
      data: { userId: users[1]!.id, currentJti: 'jti', expiresAt: new Date(Date.now() - 1_000) },
    });
    await revokeApiKey(h.db, keys[1]!.record.id);
    await disableUser(h.db, users[2]!.email);
    const credentials = [
      ...keys.map((k) => ({ userId: k.record.userId, apiKeyId: k.record.id })),
      { userId: users[0]!.id, sessionId: open.id },
      { userId: users[0]!.id, sessionId: loggedOut.id },
      { userId: users[1]!.id, sessionId: open.id }, // another user's session
      { userId: users[1]!.id, sessionId: expired.id },
      { userId: 'no-such-user' },
    ];
    const before = h.db.statementCount;
    const rights = await currentRights(h.db, credentials);
    expect(h.db.statementCount - before).toBe(3);
    expect(rights.map((r) => (r.valid ? r.tier : r.reason))).toEqual([
      'pro',
      'the API key was revoked',
      'pro',
      'enterprise',
      'enterprise',
      'enterprise',
      'the user was disabled',
      'the user was disabled',
      'the user was disabled',
      'pro',
      expect.stringMatching(/^the login session was ended/),
      expect.stringMatching(/^the login session was ended/),
      'the login session has expired',
      'the user no longer exists',
    ]);
  });
});
