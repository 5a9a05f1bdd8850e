import type { Db } from '../db/client.js';
import { apiKeyPrefix, hashApiKey, newApiKey } from '../credentials/apikeys.js';
import { hashPassword } from '../credentials/passwords.js';
import { TIERS } from '../domain/entitlements.js';
import { AppError } from '../errors.js';
import { Prisma, type ApiKey, type User } from '../../generated/prisma/client.js';
import type { Tier } from '../../generated/prisma/enums.js';

export type { ApiKey, Tier, User };

/** The demo accounts (docs/data.md#sample-data): created outside production only, printed at start-up. */
export const DEMO_ACCOUNTS: readonly { email: string; password: string; apiKey: string; tier: Tier }[] = [
  { email: 'free@example.com', password: 'demo-password', apiKey: 'demo-free', tier: 'free' },
  { email: 'pro@example.com', password: 'demo-password', apiKey: 'demo-pro', tier: 'pro' },
  { email: 'enterprise@example.com', password: 'demo-password', apiKey: 'demo-enterprise', tier: 'enterprise' },
];

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;
export const MIN_PASSWORD_LENGTH = 8;

/** Creates any missing demo account and key; leaves existing ones (and their changes) alone. */
export async function ensureDemoAccounts(db: Db): Promise<number> {
  let created = 0;
  for (const demo of DEMO_ACCOUNTS) {
    const hash = hashApiKey(demo.apiKey);
    const existing = await db.prisma.user.findUnique({ where: { email: demo.email }, select: { id: true } });
    if (existing && (await db.prisma.apiKey.findUnique({ where: { hash }, select: { id: true } }))) continue;
    const passwordHash = existing ? '' : await hashPassword(demo.password);
    await db.prisma.$transaction(async (tx) => {
      const user =
        existing ??
        (await tx.user.create({
          data: { email: demo.email, username: demo.email.split('@')[0]!, passwordHash, tier: demo.tier },
          select: { id: true },
        }));
      await tx.apiKey.upsert({
        where: { hash },
        create: { userId: user.id, name: 'demo', prefix: apiKeyPrefix(demo.apiKey), hash },
        update: {},
      });
    });
    created++;
  }
  return created;
}

/**
 * For a production start over a database a development start filled: the demo users are disabled
 * (their sessions revoked) and the demo keys revoked, wherever they are found. Only what is still
 * active is counted, so a second start does and reports nothing.
 */
export async function disableDemoAccounts(db: Db): Promise<{ users: number; keys: number }> {
  const now = new Date();
  return db.prisma.$transaction(async (tx) => {
    const emails = DEMO_ACCOUNTS.map((d) => d.email);
    const keys = await tx.apiKey.updateMany({
      where: { hash: { in: DEMO_ACCOUNTS.map((d) => hashApiKey(d.apiKey)) }, revokedAt: null },
      data: { revokedAt: now },
    });
    const users = await tx.user.updateMany({
      where: { email: { in: emails }, disabled: false },
      data: { disabled: true },
    });
    await tx.refreshTokenFamily.updateMany({
      where: { user: { email: { in: emails } }, revokedAt: null },
      data: { revokedAt: now },
    });
    return { users: users.count, keys: keys.count };
  });
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export async function createUser(
  db: Db,
  input: { email: string; password: string; tier: Tier; username?: string | undefined },
): Promise<User> {
  const email = normalizeEmail(input.email);
  if (!EMAIL.test(email))
    throw new AppError(
      'BAD_REQUEST',
      `email must be an address like name@example.com; got ${JSON.stringify(input.email)}`,
    );
  if (input.password.length < MIN_PASSWORD_LENGTH)
    throw new AppError(
      'BAD_REQUEST',
      `password must have at least ${MIN_PASSWORD_LENGTH} characters; got ${input.password.length}`,
    );
  if (!TIERS.includes(input.tier))
    throw new AppError('BAD_REQUEST', `tier must be one of ${TIERS.join(', ')}; got ${JSON.stringify(input.tier)}`);
  try {
    return await db.prisma.user.create({
      data: {
        email,
        username: input.username ?? email.split('@')[0]!,
        passwordHash: await hashPassword(input.password),
        tier: input.tier,
      },
    });
  } catch (e) {
    if (e instanceof Prisma.PrismaClientKnownRequestError && e.code === 'P2002')
      throw new AppError('BAD_REQUEST', `a user with email ${email} exists already`);
    throw e;
  }
}

export function findUserByEmail(db: Db, email: string): Promise<User | null> {
  return db.prisma.user.findUnique({ where: { email: normalizeEmail(email) } });
}

export function findUserById(db: Db, id: string): Promise<User | null> {
  return db.prisma.user.findUnique({ where: { id } });
}

async function updateUser(db: Db, email: string, data: Prisma.UserUpdateInput): Promise<User> {
  const user = await findUserByEmail(db, email);
  if (!user) throw new AppError('NOT_FOUND', `no user with email ${JSON.stringify(email)}`);
  return db.prisma.user.update({ where: { id: user.id }, data });
}

export function setUserTier(db: Db, email: string, tier: Tier): Promise<User> {
  if (!TIERS.includes(tier))
    throw new AppError('BAD_REQUEST', `tier must be one of ${TIERS.join(', ')}; got ${JSON.stringify(tier)}`);
  return updateUser(db, email, { tier });
}

/** A disabled user can neither log in nor use tokens or keys issued before. */
export async function disableUser(db: Db, email: string, disabled = true): Promise<User> {
  const user = await updateUser(db, email, { disabled });
  if (disabled)
    await db.prisma.refreshTokenFamily.updateMany({
      where: { userId: user.id, revokedAt: null },
      data: { revokedAt: new Date() },
    });
  return user;
}

/**
 * Creates a key for a user, unless they hold `maxActive` unrevoked keys already; the key itself is
 * returned here only, and only its hash is stored.
 */
export async function createApiKey(
  db: Db,
  userId: string,
  name: string,
  maxActive: number,
): Promise<{ key: string; record: ApiKey }> {
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > 100)
    throw new AppError('BAD_REQUEST', `name must be 1 to 100 characters; got ${trimmed.length}`);
  const key = newApiKey();
  const record = await db.prisma.$transaction(async (tx) => {
    // written first, so concurrent creations for one user run one after another (the row lock);
    // each then counts what the one before made
    const user = await tx.user.updateMany({ where: { id: userId }, data: { updatedAt: new Date() } });
    if (user.count === 0) throw new AppError('NOT_FOUND', `no user with id ${JSON.stringify(userId)}`);
    const active = await tx.apiKey.count({ where: { userId, revokedAt: null } });
    if (active >= maxActive) {
      throw new AppError(
        'API_KEY_LIMIT_REACHED',
        `this user has ${active} active API key${active === 1 ? '' : 's'}, the most API_KEYS_PER_USER allows (${maxActive}); revoke one before creating another`,
      );
    }
    return tx.apiKey.create({ data: { userId, name: trimmed, prefix: apiKeyPrefix(key), hash: hashApiKey(key) } });
  });
  return { key, record };
}

/** Keys one listing of a user's keys shows at most: every active key (a few), then the most recently revoked. */
export const MAX_LISTED_API_KEYS = 100;

export async function listApiKeys(db: Db, userId?: string): Promise<(ApiKey & { user: { email: string } })[]> {
  if (userId !== undefined) {
    // active keys first (oldest first), then the newest revoked ones; in the order of creation
    const keys = await db.prisma.apiKey.findMany({
      where: { userId },
      include: { user: { select: { email: true } } },
      orderBy: [{ revokedAt: { sort: 'desc', nulls: 'first' } }, { createdAt: 'asc' }, { id: 'asc' }],
      take: MAX_LISTED_API_KEYS,
    });
    return keys.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
  }
  return db.prisma.apiKey.findMany({
    where: {},
    include: { user: { select: { email: true } } },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
}

/** Revokes a key; with `ownerId`, only if that user owns it (a stranger's key id is "not found"). */
export async function revokeApiKey(db: Db, id: string, ownerId?: string): Promise<ApiKey> {
  const key = await db.prisma.apiKey.findUnique({ where: { id } });
  if (!key || (ownerId !== undefined && key.userId !== ownerId))
    throw new AppError('NOT_FOUND', `no API key with id ${JSON.stringify(id)}`);
  if (key.revokedAt) return key;
  return db.prisma.apiKey.update({ where: { id }, data: { revokedAt: new Date() } });
}

/** The key and its owner for a presented key, by hash; revoked keys and disabled owners count as none. */
export async function findActiveApiKey(db: Db, presented: string): Promise<(ApiKey & { user: User }) | null> {
  const key = await db.prisma.apiKey.findUnique({ where: { hash: hashApiKey(presented) }, include: { user: true } });
  if (!key || key.revokedAt || key.user.disabled) return null;
  return key;
}

/** Records use at most once a minute per key, so busy keys do not write on every request. */
export async function touchApiKey(db: Db, key: ApiKey): Promise<void> {
  const now = new Date();
  if (key.lastUsedAt && now.getTime() - key.lastUsedAt.getTime() < 60_000) return;
  await db.prisma.apiKey.update({ where: { id: key.id }, data: { lastUsedAt: now } });
}

/** What a live operation was authorized with: its user, and the key or login session it came by. */
export interface Credential {
  userId: string;
  apiKeyId?: string | undefined;
  sessionId?: string | undefined;
}

/** A credential's rights now: its user's tier, or why it no longer counts. */
export type Rights = { valid: true; tier: Tier } | { valid: false; reason: string };

/**
 * The rights of many credentials at once, in their order: one statement per kind of record asked
 * about (users, keys, sessions), whatever their number. What graphql/live.ts checks every few
 * seconds for all live subscriptions of an instance, so a change made anywhere (the CLI, another
 * instance) is seen.
 */
export async function currentRights(db: Db, credentials: readonly Credential[]): Promise<Rights[]> {
  const ids = (pick: (c: Credential) => string | undefined) => [
    ...new Set(credentials.map(pick).filter((id): id is string => id !== undefined)),
  ];
  const [userIds, keyIds, sessionIds] = [ids((c) => c.userId), ids((c) => c.apiKeyId), ids((c) => c.sessionId)];
  const [users, keys, sessions] = await Promise.all([
    userIds.length
      ? db.prisma.user.findMany({ where: { id: { in: userIds } }, select: { id: true, tier: true, disabled: true } })
      : [],
    keyIds.length
      ? db.prisma.apiKey.findMany({
          where: { id: { in: keyIds } },
          select: { id: true, userId: true, revokedAt: true },
        })
      : [],
    sessionIds.length
      ? db.prisma.refreshTokenFamily.findMany({
          where: { id: { in: sessionIds } },
          select: { id: true, userId: true, revokedAt: true, expiresAt: true },
        })
      : [],
  ]);
  const userById = new Map(users.map((u) => [u.id, u]));
  const keyById = new Map(keys.map((k) => [k.id, k]));
  const sessionById = new Map(sessions.map((s) => [s.id, s]));
  return credentials.map((c): Rights => {
    const user = userById.get(c.userId);
    if (!user) return { valid: false, reason: 'the user no longer exists' };
    if (user.disabled) return { valid: false, reason: 'the user was disabled' };
    if (c.apiKeyId !== undefined) {
      const key = keyById.get(c.apiKeyId);
      if (!key || key.userId !== c.userId || key.revokedAt) return { valid: false, reason: 'the API key was revoked' };
    }
    if (c.sessionId !== undefined) {
      const session = sessionById.get(c.sessionId);
      if (!session || session.userId !== c.userId || session.revokedAt)
        return { valid: false, reason: 'the login session was ended (logout or a reused refresh token)' };
      if (session.expiresAt.getTime() <= Date.now()) return { valid: false, reason: 'the login session has expired' };
    }
    return { valid: true, tier: user.tier };
  });
}
