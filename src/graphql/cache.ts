import { createHash } from 'node:crypto';
import { createRedisCache } from '@envelop/response-cache-redis';
import { useResponseCache, type Cache } from '@graphql-yoga/plugin-response-cache';
import {
  getNamedType,
  isAbstractType,
  isObjectType,
  parse,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  BREAK,
  type ExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Redis } from 'ioredis';
import type { Caller } from '../auth/caller.js';
import { CACHEABLE_TYPES, type GraphQLConfig } from '../config.js';
import { RESOURCES, type CacheableType } from '../resources/index.js';
import type { Context } from '../context.js';
import { stableJson } from './input.js';

/**
 * Types that hold no data of their own beside a cacheable record: its connections, edges and
 * parts (each resource's manifest names its parts: `cacheable`). They neither allow nor forbid
 * caching an answer. Every other type (trades, quotes, bars, ratings, news, the caller's own
 * records ...) has TTL 0: an answer holding one is never cached, and a type added later is not
 * cached until its manifest lists it.
 */
const PARTS_OF_CACHEABLE = new Set([
  'Query',
  'PageInfo',
  ...CACHEABLE_TYPES.flatMap((t) => [`${t}Connection`, `${t}Edge`]),
  ...RESOURCES.flatMap((r) => ('cacheable' in r ? r.cacheable : [])),
]);

/** TTL in milliseconds per type (and per field, for the caller's own) as the response cache takes them. */
export function cacheTtls(
  schema: GraphQLSchema,
  ttlSeconds: Readonly<Record<CacheableType, number>>,
): Record<string, number> {
  const ttls: Record<string, number> = { 'Query.me': 0, 'Query.apiKeys': 0 };
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__') || PARTS_OF_CACHEABLE.has(type.name)) continue;
    const seconds = (ttlSeconds as Readonly<Record<string, number>>)[type.name];
    ttls[type.name] = seconds === undefined ? 0 : seconds * 1000;
  }
  return ttls;
}

/** The largest answer the cache keeps, as JSON text: a larger one is served but not kept. */
export const MAX_CACHED_ANSWER_BYTES = 1024 * 1024;
/** All the answers one instance keeps in memory, as JSON text; the least recently used go first. */
export const MEMORY_CACHE_BYTES = 16 * 1024 * 1024;

const sizeOf = (result: unknown) => JSON.stringify(result).length;

/**
 * The in-memory cache, bounded by the size of what it keeps rather than by a count of answers: a
 * thousand distinct pages of a thousand balance sheets would hold gigabytes. Each answer is
 * measured once, when it is stored (stores are the rare misses).
 */
export function boundedMemoryCache(
  maxBytes = MEMORY_CACHE_BYTES,
  maxEntryBytes = MAX_CACHED_ANSWER_BYTES,
): Cache & { readonly bytes: number } {
  const entries = new Map<string, { result: ExecutionResult; bytes: number; until: number }>();
  let bytes = 0;
  const drop = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    bytes -= entry.bytes;
  };
  return {
    get bytes() {
      return bytes;
    },
    get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.until <= Date.now()) return void drop(key);
      entries.delete(key); // to the back: most recently used
      entries.set(key, entry);
      return entry.result;
    },
    set(key, result, _entities, ttl) {
      const size = sizeOf(result);
      if (size > maxEntryBytes || ttl <= 0) return;
      drop(key);
      entries.set(key, { result, bytes: size, until: Date.now() + ttl });
      bytes += size;
      for (const oldest of entries.keys()) {
        if (bytes <= maxBytes) break;
        drop(oldest);
      }
    },
    // answers expire by TTL only: nothing invalidates reference data by mutation
    invalidate: () => undefined,
  };
}

/** Redis is a cache here: while it is away, every lookup is a miss and nothing is stored; nor is an answer past MAX_CACHED_ANSWER_BYTES. */
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
      if (sizeOf(result) > MAX_CACHED_ANSWER_BYTES) return;
      try {
        await cache.set(key, result, [], ttl);
      } catch {
        // not stored
      }
    },
    invalidate: () => undefined,
  };
}

/** Documents remembered by `cacheableDocuments`; past this many distinct texts it starts over. */
const DOCUMENT_VERDICTS = 1000;

/**
 * Whether an answer to a document could ever be kept: false when it selects a field with TTL 0 by
 * its coordinate (`Query.me`) or by the type it returns (every type outside the cacheable ones,
 * or an interface/union all of whose types are), because such a field puts TTL 0 on the answer
 * whether it returns a record or null. Those documents (a company page with quotes, ratings and
 * news; every mutation) run without the response cache, which would otherwise rewrite the
 * document with `__typename` fields and walk every answer for entities only to keep nothing
 * (~0.15 ms of a company page; bench/RESULTS.md). The one answer this gives up is a null parent
 * hiding the never-cached field (an unknown symbol's page). Nor could an answer be kept that
 * holds no record of a type with a TTL (`{ __typename }`): the cache's TTL is 0 without one.
 * Decided once per document text.
 */
export function cacheableDocuments(
  schema: GraphQLSchema,
  ttls: Readonly<Record<string, number>>,
): (query: string | undefined) => boolean {
  const verdicts = new Map<string, boolean>();
  const neverCached = (typeName: string) => {
    const type = schema.getType(typeName);
    if (type && isAbstractType(type)) return schema.getPossibleTypes(type).every((t) => ttls[t.name] === 0);
    return ttls[typeName] === 0;
  };
  const mayBeCached = (typeName: string) => {
    const type = schema.getType(typeName);
    if (type && isAbstractType(type)) return schema.getPossibleTypes(type).some((t) => (ttls[t.name] ?? 0) > 0);
    return (ttls[typeName] ?? 0) > 0;
  };
  const judge = (query: string): boolean => {
    let document;
    try {
      document = parse(query, { noLocation: true });
    } catch {
      return true; // Yoga answers the syntax error; nothing to decide here
    }
    const typeInfo = new TypeInfo(schema);
    let cacheable = true;
    let keepsOne = false;
    visit(
      document,
      visitWithTypeInfo(typeInfo, {
        OperationDefinition(node) {
          if (node.operation !== 'query') {
            cacheable = false;
            return BREAK;
          }
          return undefined;
        },
        Field(node) {
          const parent = typeInfo.getParentType();
          const type = typeInfo.getType();
          if (
            (parent && ttls[`${parent.name}.${node.name.value}`] === 0) ||
            (type && neverCached(getNamedType(type).name))
          ) {
            cacheable = false;
            return BREAK;
          }
          if (type && mayBeCached(getNamedType(type).name)) keepsOne = true;
          return undefined;
        },
      }),
    );
    return cacheable && keepsOne;
  };
  return (query) => {
    if (query === undefined) return true;
    let verdict = verdicts.get(query);
    if (verdict === undefined) {
      verdict = judge(query);
      if (verdicts.size >= DOCUMENT_VERDICTS) verdicts.clear();
      verdicts.set(query, verdict);
    }
    return verdict;
  };
}

/** The caller, from the Yoga server context ({ ctx }) or the execution context it grew into. */
const callerOf = (context: unknown): Caller | null => (context as { ctx?: Context }).ctx?.caller ?? null;

/**
 * The response cache (@graphql-yoga/plugin-response-cache) for public reference data: an answer
 * made only of logos, securities, fundamentals and balance sheets (and their parts) is kept for
 * their TTL, per document, variables and caller tier, so a caller never gets an answer made for
 * another tier. Answers with errors are never kept. In memory, or in Redis (shared by every
 * instance) when there is one. Only authenticated HTTP requests use it; graphql/http.ts authenticates and
 * counts the rate limit before Yoga runs, so a cached answer costs the same budget.
 */
export function responseCachePlugins({
  config,
  schema,
  redis,
}: {
  config: Pick<GraphQLConfig, 'cacheTtlSeconds'>;
  schema: GraphQLSchema;
  redis?: Redis | undefined;
}): Plugin[] {
  if (Object.values(config.cacheTtlSeconds).every((s) => s === 0)) return [];
  // the response cache's own execution hook needs what its HTTP hook (onParams) computed: requests
  // that did not come through HTTP (WebSocket operations) do not use it
  // (with the document text it asked, for cacheableDocuments)
  const overHttp = new WeakMap<object, string | undefined>();
  const cache = redis ? failSoft(createRedisCache({ redis })) : boundedMemoryCache();
  const ttls = cacheTtls(schema, config.cacheTtlSeconds);
  const cacheable = cacheableDocuments(schema, ttls);
  return [
    {
      onParams({ context, params }) {
        overHttp.set(context, params.query);
      },
    },
    useResponseCache<object>({
      session: (_request, context) => callerOf(context)?.tier ?? null,
      enabled: (_request, context) =>
        overHttp.has(context) && callerOf(context) !== null && cacheable(overHttp.get(context)),
      cache,
      ttl: 0, // an answer without a cacheable type is not kept
      ttlPerSchemaCoordinate: ttls,
      invalidateViaMutation: false,
      includeExtensionMetadata: false,
      // a namespace of its own in a Redis shared with rate limits, pub/sub and APQ
      // the plugin asks for a key before `enabled`: a document that is never cached needs none;
      // variables are written without recursion, so no nesting that arrives overflows the stack
      buildResponseCacheKey: ({ documentString, operationName, variableValues, sessionId }) =>
        cacheable(documentString)
          ? `mdg:gql-cache:${createHash('sha256')
              .update(JSON.stringify([documentString, operationName ?? null, sessionId ?? null]))
              .update(stableJson(variableValues ?? {}))
              .digest('hex')}`
          : 'mdg:gql-cache:never',
    }),
  ];
}
