import { randomUUID } from 'node:crypto';
import type { Db } from '../db/client.js';
import type { User } from '../../generated/prisma/client.js';
import { AppError } from '../errors.js';
import { REFRESH_TOKEN_SECONDS } from '../credentials/tokens.js';

/**
 * Refresh-token families (RFC 9700 §4.14): a login starts a family; each refresh exchanges the
 * family's current token for a new one; presenting any older token of the family means it was
 * stolen or replayed, so the whole family is revoked and its newest token stops working too.
 */
export async function startSession(db: Db, userId: string): Promise<{ family: string; jti: string }> {
  const jti = randomUUID();
  const family = await db.prisma.refreshTokenFamily.create({
    data: { userId, currentJti: jti, expiresAt: new Date(Date.now() + REFRESH_TOKEN_SECONDS * 1000) },
  });
  return { family: family.id, jti };
}

const REVOKED = 'the refresh token is no longer valid: log in again';

/** Exchanges the family's current jti for a new one; any other jti revokes the family. */
export async function rotateSession(
  db: Db,
  familyId: string,
  presentedJti: string,
): Promise<{ userId: string; jti: string }> {
  const family = await db.prisma.refreshTokenFamily.findUnique({ where: { id: familyId } });
  if (!family || family.revokedAt || family.expiresAt.getTime() <= Date.now())
    throw new AppError('UNAUTHENTICATED', REVOKED);
  const jti = randomUUID();
  // conditional on the jti still being current: of two concurrent refreshes with one token, one wins
  const { count } = await db.prisma.refreshTokenFamily.updateMany({
    where: { id: familyId, currentJti: presentedJti, revokedAt: null },
    data: { currentJti: jti },
  });
  if (count === 1) return { userId: family.userId, jti };
  await revokeSession(db, familyId);
  throw new AppError('UNAUTHENTICATED', 'this refresh token was already used: the session is revoked; log in again');
}

export async function revokeSession(db: Db, familyId: string): Promise<void> {
  await db.prisma.refreshTokenFamily.updateMany({
    where: { id: familyId, revokedAt: null },
    data: { revokedAt: new Date() },
  });
}

/** The user of a session that is neither revoked nor expired, and not disabled; null otherwise. */
export async function findActiveSession(db: Db, familyId: string): Promise<User | null> {
  const family = await db.prisma.refreshTokenFamily.findUnique({ where: { id: familyId }, include: { user: true } });
  if (!family || family.revokedAt || family.expiresAt.getTime() <= Date.now() || family.user.disabled) return null;
  return family.user;
}
