import { createHash } from 'node:crypto';
import { createRedisCache } from '@envelop/response-cache-redis';
import { createInMemoryCache, useResponseCache, type Cache } from '@graphql-yoga/plugin-response-cache';
import { isObjectType, type GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Redis } from 'ioredis';
import type { Caller } from './auth/caller.js';
import { CACHEABLE_TYPES, type CacheableType, type GraphQLConfig } from './config.js';
import type { Context } from './context.js';

/**
 * Types that hold no data of their own beside a cacheable record: its connections, edges and
 * parts. They neither allow nor forbid caching an answer. Every other type (trades, quotes,
 * bars, ratings, news, the caller's own records ...) has TTL 0: an answer holding one is never
 * cached, and a type added later is not cached until it is listed here or in CACHEABLE_TYPES.
 */
const PARTS_OF_CACHEABLE = new Set([
  'Query', 'PageInfo',
  ...CACHEABLE_TYPES.flatMap((t) => [`${t}Connection`, `${t}Edge`]),
  'LogoImage', 'LogoPng', 'LogoSecurityInfo',
  'SecurityClassification', 'SecurityIdentifiers', 'SecurityFinancials', 'ExchangeInfo', 'CompanyInfo', 'Address', 'TickerMeta',
  'FundamentalBalanceSheet', 'FundamentalCashFlow', 'FundamentalIncomeStatement',
  'DerivedMetrics', 'WorkingCapitalDays', 'RiskFactors', 'MostNegativeRisk', 'Mdna', 'LitigationMentions',
]);

/** TTL in milliseconds per type (and per field, for the caller's own) as the response cache takes them. */
export function cacheTtls(schema: GraphQLSchema, ttlSeconds: Readonly<Record<CacheableType, number>>): Record<string, number> {
  const ttls: Record<string, number> = { 'Query.me': 0, 'Query.apiKeys': 0 };
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__') || PARTS_OF_CACHEABLE.has(type.name)) continue;
    const seconds = (ttlSeconds as Readonly<Record<string, number>>)[type.name];
    ttls[type.name] = seconds === undefined ? 0 : seconds * 1000;
  }
  return ttls;
}

/** Redis is a cache here: while it is away, every lookup is a miss and nothing is stored. */
function failSoft(cache: Cache): Cache {
  return {
    get: async (key) => {
      try {
        return await cache.get(key);
      } catch {
        return undefined;
      }
    },
    // no entity index: answers expire by TTL only (nothing invalidates reference data by mutation),
    // and the library's per-type sets would grow in Redis forever
    set: async (key, result, _entities, ttl) => {
      try {
        await cache.set(key, result, [], ttl);
      } catch {
        // not stored
      }
    },
    invalidate: () => undefined,
  };
}

/** The caller, from the Yoga server context ({ ctx }) or the execution context it grew into. */
const callerOf = (context: unknown): Caller | null => (context as { ctx?: Context }).ctx?.caller ?? null;

/**
 * The response cache (@graphql-yoga/plugin-response-cache) for public reference data: an answer
 * made only of logos, securities, fundamentals and balance sheets (and their parts) is kept for
 * their TTL, per document, variables and caller tier, so a caller never gets an answer made for
 * another tier. Answers with errors are never kept. In memory, or in Redis (shared by every
 * instance) when there is one. Only authenticated HTTP requests use it; app.ts authenticates and
 * counts the rate limit before Yoga runs, so a cached answer costs the same budget.
 */
export function responseCachePlugins({ config, schema, redis }: { config: Pick<GraphQLConfig, 'cacheTtlSeconds'>; schema: GraphQLSchema; redis?: Redis | undefined }): Plugin[] {
  if (Object.values(config.cacheTtlSeconds).every((s) => s === 0)) return [];
  // the response cache's own execution hook needs what its HTTP hook (onParams) computed: requests
  // that did not come through HTTP (WebSocket operations) do not use it
  const overHttp = new WeakSet<object>();
  const cache = redis ? failSoft(createRedisCache({ redis })) : createInMemoryCache({ max: 1000 });
  return [
    {
      onParams({ context }) {
        overHttp.add(context);
      },
    },
    useResponseCache<object>({
      session: (_request, context) => callerOf(context)?.tier ?? null,
      enabled: (_request, context) => overHttp.has(context) && callerOf(context) !== null,
      cache,
      ttl: 0, // an answer without a cacheable type is not kept
      ttlPerSchemaCoordinate: cacheTtls(schema, config.cacheTtlSeconds),
      invalidateViaMutation: false,
      includeExtensionMetadata: false,
      // a namespace of its own in a Redis shared with rate limits, pub/sub and APQ
      buildResponseCacheKey: ({ documentString, operationName, variableValues, sessionId }) =>
        `mdg:gql-cache:${createHash('sha256').update(JSON.stringify([documentString, operationName ?? null, variableValues ?? {}, sessionId ?? null])).digest('hex')}`,
    }),
  ];
}
