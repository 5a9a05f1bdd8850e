import type { Db } from '../db.js';
import { apiKeyPrefix, hashApiKey } from '../auth/apikeys.js';
import { hashPassword } from '../auth/passwords.js';
import type { Tier } from '../generated/prisma/enums.js';

/** The demo accounts of decisions.md: created outside production only, printed at start-up. */
export const DEMO_ACCOUNTS: readonly { email: string; password: string; apiKey: string; tier: Tier }[] = [
  { email: 'free@example.com', password: 'demo-password', apiKey: 'demo-free', tier: 'free' },
  { email: 'pro@example.com', password: 'demo-password', apiKey: 'demo-pro', tier: 'pro' },
  { email: 'enterprise@example.com', password: 'demo-password', apiKey: 'demo-enterprise', tier: 'enterprise' },
];

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
