import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Kind, parse, print, validate, type GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Redis } from 'ioredis';
import type { Caller } from '../auth/caller.js';
import { ROOT } from '../config.js';
import type { Context } from '../context.js';
import { AppError } from '../errors.js';
import { requestError } from './errors.js';

/** The allow-list `npm run persist` writes from operations/*.graphql: SHA-256 (hex) -> document. */
export const PERSISTED_OPERATIONS_FILE = path.join(ROOT, 'persisted-operations.json');

/** The key of a document in the allow-list and in APQ: the SHA-256 of its exact text, in hex. */
export function documentHash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Where the allow-list's documents are written, one named operation per `.graphql` file. */
export const OPERATIONS_DIR = path.join(ROOT, 'operations');

/**
 * The allow-list as `npm run persist` writes it: each document of `dir` checked against `schema`
 * and printed by graphql-js (comments and layout dropped, so the hash is the one Apollo's
 * persisted-queries link computes for the same document), in file-name order.
 */
export function persistedOperationsJson(schema: GraphQLSchema, dir = OPERATIONS_DIR): string {
  const operations: Record<string, string> = {};
  for (const file of fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.graphql'))
    .sort()) {
    const where = path.relative(ROOT, path.join(dir, file));
    const document = parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    const ops = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
    if (ops.length !== 1 || !ops[0]!.name)
      throw new Error(`${where}: a persisted document holds exactly one named operation; got ${ops.length}`);
    const errors = validate(schema, document);
    if (errors.length) throw new Error(`${where}: ${errors.map((e) => e.message).join('; ')}`);
    const text = print(document);
    operations[documentHash(text)] = text;
  }
  return `${JSON.stringify(operations, null, 2)}\n`;
}

/** The allow-list; none when the file does not exist. Every entry's key must be its document's hash. */
export function loadPersistedOperations(file = PERSISTED_OPERATIONS_FILE): ReadonlyMap<string, string> {
  if (!fs.existsSync(file)) return new Map();
  const entries = Object.entries(JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>);
  for (const [hash, text] of entries) {
    if (typeof text !== 'string' || documentHash(text) !== hash) {
      throw new Error(
        `${path.relative(ROOT, file)}: the entry ${hash} is not the SHA-256 of its document; run npm run persist`,
      );
    }
  }
  return new Map(entries as [string, string][]);
}

/** Where documents registered through APQ are kept. Lookups that fail are misses: the client resends the text. */
export interface DocumentStore {
  get(hash: string): Promise<string | undefined>;
  set(hash: string, text: string): Promise<void>;
}

/** How many documents of the largest registrable size the store holds (8 MiB at the default 32 KiB). */
export const APQ_STORE_DOCUMENTS = 256;
/** How long Redis keeps a registered document: a client still using it registers it again, one round trip a day. */
export const APQ_TTL_SECONDS = 24 * 3600;
/** What a stored document costs beside its text (its key, index entry, Redis's own bookkeeping), so that tiny ones count too. */
const ENTRY_OVERHEAD_BYTES = 200;

const entryBytes = (text: string) => Buffer.byteLength(text) + ENTRY_OVERHEAD_BYTES;

/** Least recently used documents go first once they pass `maxBytes` in all. */
export function memoryDocumentStore(maxBytes: number): DocumentStore {
  const documents = new Map<string, string>();
  let bytes = 0;
  return {
    async get(hash) {
      const text = documents.get(hash);
      if (text !== undefined) {
        documents.delete(hash); // to the back of the queue
        documents.set(hash, text);
      }
      return text;
    },
    async set(hash, text) {
      if (documents.has(hash) || entryBytes(text) > maxBytes) return;
      documents.set(hash, text);
      bytes += entryBytes(text);
      for (const [oldest, old] of documents) {
        if (bytes <= maxBytes) break;
        documents.delete(oldest);
        bytes -= entryBytes(old);
      }
    },
  };
}

/** Every stored document as `<hash>:<bytes>`, scored by when it was stored, and their total in bytes. */
const REDIS_INDEX = 'mdg:apq-index';
const REDIS_TOTAL = 'mdg:apq-bytes';

/**
 * Stores one document and keeps the total under the cap, atomically for every instance: entries
 * past their TTL leave the books, then the oldest documents go until the new one fits.
 * KEYS: document, index, total. ARGV: hash, text, ttl (s), now (ms), cap, key prefix, overhead.
 */
const STORE_SCRIPT = `
local doc, index, total = KEYS[1], KEYS[2], KEYS[3]
local hash, text, ttl, now, cap, prefix, overhead = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6], tonumber(ARGV[7])
local function forget(member)
  local sep = string.find(member, ':', 1, true)
  redis.call('ZREM', index, member)
  redis.call('DECRBY', total, tonumber(string.sub(member, sep + 1)))
  return string.sub(member, 1, sep - 1)
end
for _, member in ipairs(redis.call('ZRANGEBYSCORE', index, '-inf', now - ttl * 1000)) do forget(member) end
if redis.call('ZCARD', index) == 0 then redis.call('SET', total, 0) end
if redis.call('EXISTS', doc) == 1 then return 0 end
local size = string.len(text) + overhead
while tonumber(redis.call('GET', total) or '0') + size > cap do
  local oldest = redis.call('ZRANGE', index, 0, 0)
  if #oldest == 0 then break end
  redis.call('DEL', prefix .. forget(oldest[1]))
end
redis.call('SET', doc, text, 'EX', ttl)
redis.call('ZADD', index, now, hash .. ':' .. size)
redis.call('INCRBY', total, size)
return 1
`;

/**
 * Shared by every instance through Redis, with a memory store of the same size in front (and in
 * its place while Redis is away). At most `maxBytes` in all there too, oldest out first.
 */
export function redisDocumentStore(
  redis: Redis,
  maxBytes: number,
  local = memoryDocumentStore(maxBytes),
): DocumentStore {
  const prefix = 'mdg:apq:';
  return {
    async get(hash) {
      const text = (await local.get(hash)) ?? (await redis.get(`${prefix}${hash}`).catch(() => null)) ?? undefined;
      if (text !== undefined) await local.set(hash, text);
      return text;
    },
    async set(hash, text) {
      await local.set(hash, text);
      if (entryBytes(text) > maxBytes) return;
      await redis
        .eval(
          STORE_SCRIPT,
          3,
          `${prefix}${hash}`,
          REDIS_INDEX,
          REDIS_TOTAL,
          hash,
          text,
          APQ_TTL_SECONDS,
          Date.now(),
          maxBytes,
          prefix,
          ENTRY_OVERHEAD_BYTES,
        )
        .catch(() => {});
    },
  };
}

const HASH = /^[0-9a-f]{64}$/;

/** `documentId` of the query string; most requests have no query string, and are spared parsing their URL. */
function documentIdParameter(url: string): string | undefined {
  if (!url.includes('?')) return undefined;
  return new URL(url).searchParams.get('documentId') ?? undefined;
}

/** The hash a request names: `documentId` (with or without `sha256:`) or APQ's `extensions.persistedQuery`. */
function requestedHash(
  params: { extensions?: Record<string, unknown>; documentId?: unknown },
  url: string,
): string | undefined {
  const documentId = params.documentId ?? documentIdParameter(url);
  if (documentId !== undefined) {
    const hash = typeof documentId === 'string' ? documentId.replace(/^sha256:/, '') : '';
    if (!HASH.test(hash))
      throw requestError(
        'BAD_REQUEST',
        `documentId must be a SHA-256 in hex (64 characters 0-9a-f), optionally prefixed with sha256:; got ${JSON.stringify(documentId)}`,
      );
    return hash;
  }
  const pq = params.extensions?.persistedQuery as { version?: unknown; sha256Hash?: unknown } | undefined;
  if (pq === undefined || pq === null) return undefined;
  if (typeof pq !== 'object' || pq.version !== 1)
    throw requestError(
      'BAD_REQUEST',
      `extensions.persistedQuery.version must be 1; got ${JSON.stringify(pq?.version)}`,
    );
  if (typeof pq.sha256Hash !== 'string' || !HASH.test(pq.sha256Hash)) {
    throw requestError(
      'BAD_REQUEST',
      `extensions.persistedQuery.sha256Hash must be a SHA-256 in hex (64 characters 0-9a-f); got ${JSON.stringify(pq.sha256Hash)}`,
    );
  }
  return pq.sha256Hash;
}

export interface PersistedDocumentsOptions {
  /** The allow-list (persisted-operations.json). */
  allowList: ReadonlyMap<string, string>;
  /** Where APQ registrations go; unused when `persistedOnly`. */
  store: DocumentStore;
  /** Run only documents of the allow-list, and register none. */
  persistedOnly: boolean;
  /** Largest document a registration may store (APQ_MAX_DOCUMENT_BYTES); a larger one is a 413. */
  maxDocumentBytes: number;
  /** Counts a registration of `bytes` against the caller's budget; throws RATE_LIMITED past it (app.ts). */
  chargeRegistration(ctx: Context, caller: Caller, bytes: number): Promise<void>;
}

const NEEDS_CREDENTIAL =
  'automatic persisted queries need a credential (an API key or an access token) to register a document; without one, send the query itself, without extensions.persistedQuery';
const NOT_ALLOWED =
  'this server runs only the documents of its allow-list (persisted-operations.json): send one by extensions.persistedQuery.sha256Hash or documentId';

/**
 * Persisted documents. A request may name its document by hash instead of sending it:
 * `documentId`, or Apollo's automatic persisted queries (APQ, `extensions.persistedQuery
 * {version: 1, sha256Hash}`), over POST and GET. The allow-list is looked up first, then the APQ
 * store; a hash found in neither is PERSISTED_QUERY_NOT_FOUND, upon which an APQ client sends the
 * text with its hash: the hash is checked and the document stored once it has validated.
 *
 * Only an authenticated caller registers, a document of at most `maxDocumentBytes`, paying for it
 * from its budget. Without a credential, a hash that is not already known is
 * PERSISTED_QUERY_NOT_SUPPORTED: Apollo's link then sends the query itself from there on.
 *
 * With `persistedOnly`, only documents of the allow-list run, however they are sent (the check is
 * at parse time, so it holds for WebSocket operations too) and nothing is registered.
 */
export function usePersistedDocuments({
  allowList,
  store,
  persistedOnly,
  maxDocumentBytes,
  chargeRegistration,
}: PersistedDocumentsOptions): Plugin {
  const allowedTexts = new Set(allowList.values());
  const registrations = new WeakMap<object, { hash: string; text: string }>();

  /** The registrant, once it may store `text`: authenticated, within the size, within its budget. */
  async function admitRegistration(context: object, text: string): Promise<void> {
    const ctx = (context as { ctx?: Context }).ctx;
    const caller = ctx?.caller;
    if (!ctx || !caller) throw requestError('PERSISTED_QUERY_NOT_SUPPORTED', NEEDS_CREDENTIAL);
    const bytes = Buffer.byteLength(text);
    if (bytes > maxDocumentBytes) {
      throw requestError(
        'PAYLOAD_TOO_LARGE',
        `a document registered for automatic persisted queries is at most ${maxDocumentBytes} bytes; this one has ${bytes}: send it without extensions.persistedQuery`,
      );
    }
    try {
      await chargeRegistration(ctx, caller, bytes);
    } catch (e) {
      if (e instanceof AppError) throw requestError(e.code, e.message, undefined, e.headers);
      throw e;
    }
  }

  return {
    async onParams({ params, request, context, setParams }) {
      const { documentId, ...rest } = params as typeof params & { documentId?: unknown };
      const hash = requestedHash({ ...params, documentId }, request.url);
      if (hash === undefined) return;
      if (params.query) {
        const actual = documentHash(params.query);
        if (actual !== hash)
          throw requestError(
            'PERSISTED_QUERY_HASH_MISMATCH',
            `the hash sent (${hash}) is not the SHA-256 of the query sent (${actual})`,
          );
        if (persistedOnly && !allowList.has(hash))
          throw requestError(
            'PERSISTED_QUERY_NOT_ALLOWED',
            `${NOT_ALLOWED}; the document sent (${hash}) is not one of them`,
          );
        if (!allowList.has(hash)) {
          await admitRegistration(context, params.query);
          registrations.set(context, { hash, text: params.query });
        }
        setParams(rest);
        return;
      }
      const text = allowList.get(hash) ?? (persistedOnly ? undefined : await store.get(hash));
      if (text === undefined) {
        if (persistedOnly)
          throw requestError('PERSISTED_QUERY_NOT_ALLOWED', `${NOT_ALLOWED}; ${hash} is not one of them`);
        // it could not register the text anyway; Apollo's link then sends queries whole
        if (!(context as { ctx?: Context }).ctx?.caller)
          throw requestError('PERSISTED_QUERY_NOT_SUPPORTED', NEEDS_CREDENTIAL);
        // Apollo Client recognises this message (older versions only the message, not the code)
        throw requestError('PERSISTED_QUERY_NOT_FOUND', 'PersistedQueryNotFound');
      }
      setParams({ ...rest, query: text });
    },
    onParse({ params }) {
      if (!persistedOnly) return;
      const text = typeof params.source === 'string' ? params.source : params.source.body;
      if (!allowedTexts.has(text))
        throw requestError('PERSISTED_QUERY_NOT_ALLOWED', `${NOT_ALLOWED}; the document sent is not one of them`);
    },
    onValidate({ context }) {
      const registration = registrations.get(context);
      if (!registration) return;
      return ({ valid }) => {
        if (valid) void store.set(registration.hash, registration.text); // the stores never reject
      };
    },
  };
}
