import { builder } from '../builder.js';
import { TIERS, tierSummary } from '../domain/entitlements.js';
import type { Tier } from '../../generated/prisma/enums.js';
import type { Caller } from '../auth/caller.js';
import {
  createApiKey,
  listApiKeys,
  MAX_LISTED_API_KEYS,
  revokeApiKey,
  type ApiKey as ApiKeyRow,
} from '../services/account.js';
import { listOf } from './common.js';

export const TierEnum = builder.enumType('Tier', {
  description: 'A licensing tier: what a user and their API keys may use.',
  values: Object.fromEntries(
    TIERS.map((tier) => [tier.toUpperCase(), { value: tier, description: tierSummary(tier) }]),
  ) as Record<Uppercase<Tier>, { value: Tier; description: string }>,
});

export const Me = builder.objectRef<Caller>('Me').implement({
  description: 'The caller of this request (what the REST validate route answers).',
  fields: (t) => ({
    userId: t.exposeString('userId', { description: 'The user id (REST field `user_id`).' }),
    email: t.exposeString('email', { description: 'Email address.' }),
    username: t.exposeString('username', { description: 'User name.' }),
    tier: t.field({ type: TierEnum, description: 'Licensing tier.', resolve: (c) => c.tier }),
    licensingTierId: t.exposeString('tier', {
      description: 'Licensing tier id (REST field `licensing_tier_id` of the validate endpoint).',
    }),
    authenticatedBy: t.exposeString('via', {
      description: 'How this request proved who it is: apikey, bearer or cookie.',
    }),
  }),
});

export const ApiKey = builder.objectRef<ApiKeyRow>('ApiKey').implement({
  description: 'An API key of the caller. The key itself is shown once, when it is created; only its hash is kept.',
  fields: (t) => ({
    keyId: t.exposeString('id', { description: 'The key id, for revoking it.' }),
    name: t.exposeString('name', { description: 'A name for telling keys apart.' }),
    prefix: t.exposeString('prefix', { description: 'The first characters of the key.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the key was created.' }),
    lastUsedAt: t.expose('lastUsedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When the key was last used (to the minute).',
    }),
    revokedAt: t.expose('revokedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When the key was revoked; null while it works.',
    }),
  }),
});

const CreatedApiKey = builder.objectRef<{ key: string; record: ApiKeyRow }>('CreatedApiKey').implement({
  description: 'A new API key. `key` is shown this once: store it now.',
  fields: (t) => ({
    key: t.exposeString('key', { description: 'The key to send as the apikey parameter or X-API-Key header.' }),
    apiKey: t.field({ type: ApiKey, description: 'The key record.', resolve: (k) => k.record }),
  }),
});

builder.queryFields((t) => ({
  me: t.field({
    type: Me,
    nullable: true,
    description: 'The caller of this request; null without credentials.',
    resolve: (_root, _args, ctx) => ctx.caller,
  }),
  apiKeys: t.field({
    type: [ApiKey],
    extensions: listOf(MAX_LISTED_API_KEYS),
    nullable: true,
    authScopes: { session: true },
    description:
      "The caller's API keys, revoked ones included, oldest first. Needs a logged-in session (an access token), not an API key.",
    resolve: (_root, _args, ctx) => listApiKeys(ctx.db, ctx.caller!.userId),
  }),
}));

builder.mutationFields((t) => ({
  createApiKey: t.field({
    type: CreatedApiKey,
    authScopes: { session: true },
    description:
      'Creates an API key for the caller. Needs a logged-in session (an access token), not an API key; a user holds at most API_KEYS_PER_USER unrevoked keys (API_KEY_LIMIT_REACHED).',
    args: { name: t.arg.string({ required: true, description: 'A name for the key (1 to 100 characters).' }) },
    resolve: (_root, args, ctx) => createApiKey(ctx.db, ctx.caller!.userId, args.name, ctx.config.auth.apiKeysPerUser),
  }),
  revokeApiKey: t.field({
    type: ApiKey,
    authScopes: { session: true },
    description:
      "Revokes one of the caller's API keys; it stops working at once. Needs a logged-in session (an access token), not an API key.",
    args: { keyId: t.arg.string({ required: true, description: 'The key id (ApiKey.keyId).' }) },
    resolve: async (_root, args, ctx) => {
      const key = await revokeApiKey(ctx.db, args.keyId, ctx.caller!.userId);
      ctx.callers.forgetUser(key.userId);
      return key;
    },
  }),
}));
