import type { Db } from '../db.js';
import { apiKeyPrefix, hashApiKey, newApiKey } from '../auth/apikeys.js';
import { hashPassword } from '../auth/passwords.js';
import { AppError } from '../errors.js';
import { Prisma, type ApiKey, type User } from '../../generated/prisma/client.js';
import type { Tier } from '../../generated/prisma/enums.js';

export type { ApiKey, Tier, User };

/** The demo accounts of decisions.md: created outside production only, printed at start-up. */
export const DEMO_ACCOUNTS: readonly { email: string; password: string; apiKey: string; tier: Tier }[] = [
  { email: 'free@example.com', password: 'demo-password', apiKey: 'demo-free', tier: 'free' },
  { email: 'pro@example.com', password: 'demo-password', apiKey: 'demo-pro', tier: 'pro' },
  { email: 'enterprise@example.com', password: 'demo-password', apiKey: 'demo-enterprise', tier: 'enterprise' },
];

export const TIERS: readonly Tier[] = ['free', 'pro', 'enterprise'];
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

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export async function createUser(db: Db, input: { email: string; password: string; tier: Tier; username?: string | undefined }): Promise<User> {
  const email = normalizeEmail(input.email);
  if (!EMAIL.test(email)) throw new AppError('BAD_REQUEST', `email must be an address like name@example.com; got ${JSON.stringify(input.email)}`);
  if (input.password.length < MIN_PASSWORD_LENGTH) throw new AppError('BAD_REQUEST', `password must have at least ${MIN_PASSWORD_LENGTH} characters; got ${input.password.length}`);
  if (!TIERS.includes(input.tier)) throw new AppError('BAD_REQUEST', `tier must be one of ${TIERS.join(', ')}; got ${JSON.stringify(input.tier)}`);
  try {
    return await db.prisma.user.create({
      data: { email, username: input.username ?? email.split('@')[0]!, passwordHash: await hashPassword(input.password), tier: input.tier },
    });
  } catch (e) {
    if (e instanceof Prisma.PrismaClientKnownRequestError && e.code === 'P2002') throw new AppError('BAD_REQUEST', `a user with email ${email} exists already`);
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
  if (!TIERS.includes(tier)) throw new AppError('BAD_REQUEST', `tier must be one of ${TIERS.join(', ')}; got ${JSON.stringify(tier)}`);
  return updateUser(db, email, { tier });
}

/** A disabled user can neither log in nor use tokens or keys issued before. */
export async function disableUser(db: Db, email: string, disabled = true): Promise<User> {
  const user = await updateUser(db, email, { disabled });
  if (disabled) await db.prisma.refreshTokenFamily.updateMany({ where: { userId: user.id, revokedAt: null }, data: { revokedAt: new Date() } });
  return user;
}

/** Creates a key for a user; the key itself is returned here only, and only its hash is stored. */
export async function createApiKey(db: Db, userId: string, name: string): Promise<{ key: string; record: ApiKey }> {
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > 100) throw new AppError('BAD_REQUEST', `name must be 1 to 100 characters; got ${trimmed.length}`);
  const key = newApiKey();
  const record = await db.prisma.apiKey.create({ data: { userId, name: trimmed, prefix: apiKeyPrefix(key), hash: hashApiKey(key) } });
  return { key, record };
}

export function listApiKeys(db: Db, userId?: string): Promise<(ApiKey & { user: { email: string } })[]> {
  return db.prisma.apiKey.findMany({
    where: userId ? { userId } : {},
    include: { user: { select: { email: true } } },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
}

/** Revokes a key; with `ownerId`, only if that user owns it (a stranger's key id is "not found"). */
export async function revokeApiKey(db: Db, id: string, ownerId?: string): Promise<ApiKey> {
  const key = await db.prisma.apiKey.findUnique({ where: { id } });
  if (!key || (ownerId !== undefined && key.userId !== ownerId)) throw new AppError('NOT_FOUND', `no API key with id ${JSON.stringify(id)}`);
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
