import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { corsOrigins, parsePort, parsePublicUrl } from './domain/env-addresses.js';
import { bool, ConfigError, nonNegativeInt, oneOf, positiveInt, type Env } from './domain/env-values.js';
import { connectionConfig, ingestConfig, type ConnectionConfig, type IngestConfig } from './domain/sending-limits.js';
import {
  lifecycleConfig,
  subscriptionConfig,
  type LifecycleConfig,
  type SubscriptionConfig,
} from './domain/serving-config.js';

export type { LifecycleConfig, SubscriptionConfig } from './domain/serving-config.js';

export type { ConnectionConfig, IngestConfig } from './domain/sending-limits.js';
export { IMPORT_MAX_LINE_BYTES, SYNC_MAX_BODY_BYTES } from './domain/sending-limits.js';
import { checkSecret, SECRET_RULE } from './domain/secret-entropy.js';
import { RESOURCES, type CacheableType } from './resources/index.js';

/** The project root (where package.json, prisma/ and data/ live). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** A PostgreSQL database: the server and database of `url`, the tables in `schema`; `create`: DATABASE_CREATE. */
export type DatabaseConfig = { url: string; schema: string; create: boolean };
/** DATABASE_URL unset: the embedded cluster under this data directory (db/embedded.ts), started by whoever opens it. */
export type EmbeddedDatabase = { embedded: string };
export type DatabaseSetting = DatabaseConfig | EmbeddedDatabase;

export interface Config {
  /** The gateway's version (package.json): the OpenAPI document, serviceInfo, metrics and traces say it. */
  version: string;
  nodeEnv: 'development' | 'production' | 'test';
  host: string;
  port: number;
  /**
   * Each GraphQL operation and REST request's time budget from its arrival; past it its statements
   * are cancelled and it is answered 503 TIMEOUT (runtime/deadline.ts, docs/operations.md#deadlines).
   */
  requestTimeoutMs: number;
  database: DatabaseSetting;
  /** `auto`: fill an empty database with sample data outside production; `none`: start empty. */
  sampleData: 'auto' | 'none';
  redisUrl: string | undefined;
  /** Where clients reach the service (an http(s) origin, optionally with a path prefix, no trailing slash): the base of every
   *  absolute link it writes (REST next_url). Required in production; elsewhere unset means the request's own Host (X-Forwarded-* with TRUST_PROXY). */
  publicUrl: string | undefined;
  dataDir: string;
  auth: AuthConfig;
  ocr: OcrConfig;
  graphql: GraphQLConfig;
  observability: ObservabilityConfig;
  lifecycle: LifecycleConfig;
  subscriptions: SubscriptionConfig;
  ingest: IngestConfig;
  connections: ConnectionConfig;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface ObservabilityConfig {
  /** pino level of the log lines on stdout; `silent` by default under NODE_ENV=test. */
  logLevel: LogLevel;
  /** `pretty` (one readable line each) by default on a terminal outside production; `json` otherwise, for collectors. */
  logFormat: LogFormat;
  /** Bearer token /metrics asks for; unset: open outside production, refused (403) in production. */
  metricsToken: string | undefined;
  /** OTLP/HTTP collector base URL (traces go to <url>/v1/traces); unset: no tracing, no OpenTelemetry loaded. */
  otlpEndpoint: string | undefined;
  /** service.name of the spans. */
  serviceName: string;
}

/**
 * The record types whose answers the response cache may keep (public reference data): those of
 * the resources whose manifest says `cacheable`, in the order the price list names them.
 */
export const CACHEABLE_TYPES: readonly CacheableType[] = RESOURCES.filter((r) => 'cacheable' in r)
  .sort((a, b) => a.entitlements[0]!.listed - b.entitlements[0]!.listed)
  .flatMap((r) => r.entitlements.flatMap((e) => e.types as readonly CacheableType[]));

export interface GraphQLConfig {
  /** graphql-armor limits: a document past one is refused (400) before anything runs. */
  maxDepth: number;
  maxAliases: number;
  maxTokens: number;
  maxDirectives: number;
  maxCost: number;
  /** Cost units (src/graphql/cost.ts) the instance runs at once, GraphQL operations and REST pages together (src/runtime/in-flight.ts). */
  costInFlight: number;
  /** How long a request may wait for room in `costInFlight` (or `bodyBytesInFlight`) before it is answered 503. */
  costWaitMs: number;
  /** Bytes of large request bodies (over 64 KiB: OCR frames) an instance reads and holds at once. */
  bodyBytesInFlight: number;
  /** Whether __schema and __type may be asked for; off in production unless enabled. */
  introspection: boolean;
  /** Largest /graphql request body; callers entitled to OCR may send a frame-sized one. */
  maxBodyBytes: number;
  /** Only documents of persisted-operations.json run (by hash, documentId or their exact text). */
  persistedOnly: boolean;
  /** PostgreSQL: queries made wholly of fields graphql/plan/ knows are read in one statement, without resolvers. */
  planned: boolean;
  /** POST /graphql with a small JSON body is served without the fetch adapter (http/direct.ts). */
  direct: boolean;
  /** /graphql serves the graph as an Apollo Federation 2 subgraph (`_service`, `_entities`) for a supergraph's router. */
  subgraph: boolean;
  /** Largest document APQ registers (UTF-8 bytes); the store holds 256 of that size in all. */
  apqMaxDocumentBytes: number;
  /** Seconds an answer made only of these types is served from the response cache; 0: never. */
  cacheTtlSeconds: Readonly<Record<CacheableType, number>>;
}

export interface OcrConfig {
  /** Tesseract worker threads, started on first use (each ~45 MB; more than the cores is slower). */
  workers: number;
  /** Requests that may wait for a worker; past it, 503 with Retry-After. */
  queueLimit: number;
  /** How long a request may wait for a worker; past it, 503 with Retry-After. */
  queueTimeoutMs: number;
  /** The work on one request once it has a worker (starting it, and every pass); past it, 503 and the worker is replaced. */
  timeoutMs: number;
  /** Pixels of images queued or being read; past it 503 with Retry-After at once, unless none is in flight (any image within the input limit can be read). */
  maxPixelsInFlight: number;
  /** Which English model: 'fast' (tessdata_fast, as the tesseract CLI ships) or 'best' (best_int). */
  model: OcrModel;
}

export const OCR_MODELS = ['fast', 'best'] as const;
export type OcrModel = (typeof OCR_MODELS)[number];

export interface AuthConfig {
  /** HS256 signing secret; unset outside production means "generate one under the data dir". */
  jwtSecret: string | undefined;
  /** `Secure` on the session cookies; COOKIE_SECURE=false for plain-HTTP local use. */
  cookieSecure: boolean;
  /**
   * Requests per minute: per user by tier (all of a user's keys and sessions draw on one budget),
   * and per client address for requests that end without a valid caller (`anonymous`).
   */
  rateLimits: Readonly<Record<'free' | 'pro' | 'enterprise' | 'anonymous', number>>;
  /** Failed-or-not login attempts per 15 minutes, per email and per client address. */
  loginLimits: Readonly<{ perEmail: number; perIp: number }>;
  /** Take the client address from X-Forwarded-For (only behind a proxy that sets it). */
  trustProxy: boolean;
  /** How long an instance remembers who a key or token names (see auth/caller.ts). */
  callerCacheMs: number;
  /** Active (unrevoked) API keys a user may hold; creating one more is refused (API_KEY_LIMIT_REACHED). */
  apiKeysPerUser: number;
  /**
   * Origins (scheme://host[:port]) whose pages may call the API with the user's cookies: they get
   * CORS grants with credentials (auth/cors.ts). Empty: same origin only, no CORS headers at all.
   */
  corsOrigins: readonly string[];
}

/** The largest body any request may send: an OCR frame (10 MiB) and the JSON around it. */
export const LARGEST_BODY_BYTES = 10 * 1024 * 1024 + 64 * 1024;

/** What callers without a credential hold of BODY_BYTES_IN_FLIGHT together: a quarter, so the rest is theirs who showed who they are. */
export const anonymousBodyShare = (bodyBytesInFlight: number): number => Math.floor(bodyBytesInFlight / 4);

/** RESPONSE_CACHE_TTLS: per-type overrides of RESPONSE_CACHE_TTL_SECONDS, like `Logo=3600,Security=300`. */
function cacheTtls(env: Env): Readonly<Record<CacheableType, number>> {
  const base = nonNegativeInt(env, 'RESPONSE_CACHE_TTL_SECONDS', 60);
  const ttls = Object.fromEntries(CACHEABLE_TYPES.map((t) => [t, base])) as Record<CacheableType, number>;
  for (const entry of (env.RESPONSE_CACHE_TTLS ?? '').split(',').filter((e) => e.trim() !== '')) {
    const match = /^\s*([A-Za-z]+)\s*=\s*(\d{1,9})\s*$/.exec(entry);
    if (!match || !(CACHEABLE_TYPES as readonly string[]).includes(match[1]!)) {
      throw new ConfigError(
        `RESPONSE_CACHE_TTLS must be a comma list of <type>=<seconds> with a type among ${CACHEABLE_TYPES.join(', ')}; got ${JSON.stringify(entry.trim())}`,
      );
    }
    ttls[match[1] as CacheableType] = Number(match[2]);
  }
  return Object.freeze(ttls);
}

/**
 * What serving needs beyond loadConfig (the CLI does not serve): in production, PUBLIC_URL, since
 * a link built from a request's Host header would point wherever the request says.
 */
export function checkServingConfig(config: Pick<Config, 'nodeEnv' | 'publicUrl'>): void {
  if (config.nodeEnv === 'production' && config.publicUrl === undefined) {
    throw new ConfigError(
      'PUBLIC_URL is required in production: the address clients reach this service at (e.g. https://api.example.com), from which next_url links are built',
    );
  }
}

/**
 * Unset: the embedded PostgreSQL cluster under the data directory. `postgresql://...` (or
 * `postgres://`): that server; a `?schema=` parameter selects the schema (default `public`);
 * `create`: DATABASE_CREATE.
 */
export function parseDatabaseUrl(raw: string | undefined, dataDir: string, create = false): DatabaseSetting {
  if (raw === undefined || raw === '') return { embedded: dataDir };
  if (raw.startsWith('file:')) {
    throw new ConfigError(
      `DATABASE_URL file: (SQLite) is no longer supported: leave DATABASE_URL unset for the embedded PostgreSQL, or give a postgresql:// URL (docs/operations.md "The embedded database"); got ${JSON.stringify(raw)}`,
    );
  }
  if (/^postgres(ql)?:\/\//.test(raw)) return parsePostgresUrl(raw, create);
  throw new ConfigError(`DATABASE_URL must start with postgresql://; got ${JSON.stringify(raw)}`);
}

/** A `postgresql://` URL (with an optional `?schema=`) as a DatabaseConfig. */
export function parsePostgresUrl(raw: string, create = false): DatabaseConfig {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`DATABASE_URL is not a valid URL: ${JSON.stringify(raw)}`);
  }
  if (!url.hostname || url.pathname.length <= 1) {
    throw new ConfigError(
      `DATABASE_URL must name a host and a database, like postgresql://user@host:5432/dbname; got ${JSON.stringify(raw)}`,
    );
  }
  const schema = url.searchParams.get('schema') ?? 'public';
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
    throw new ConfigError(`DATABASE_URL schema parameter must be an SQL identifier; got ${JSON.stringify(schema)}`);
  }
  url.searchParams.delete('schema');
  return { url: url.toString(), schema, create };
}

/**
 * The OCR pool's limits, measured on one core (bench/RESULTS.md, "OCR burst"): a 40 MP page of
 * ~1,000 words reads in ~5 s per pass and an 8.4 MP magazine page in ~4 s, so 30 s of work covers
 * both passes of any such page on a shared core; 20 s of waiting plus 30 s of work answers before
 * a proxy's usual 60 s. The pixel budget holds two frames at the 40 MP input limit per worker, one
 * being read and one waiting: at ~0.5 s per megapixel the waiting one starts within ~20 s.
 */
function ocrConfig(env: Env): Readonly<OcrConfig> {
  const workers = positiveInt(env, 'OCR_WORKERS', os.availableParallelism());
  return Object.freeze({
    workers,
    queueLimit: positiveInt(env, 'OCR_QUEUE_LIMIT', 32),
    queueTimeoutMs: positiveInt(env, 'OCR_QUEUE_TIMEOUT_MS', 20_000),
    timeoutMs: positiveInt(env, 'OCR_TIMEOUT_MS', 30_000),
    maxPixelsInFlight: positiveInt(env, 'OCR_MAX_PIXELS_IN_FLIGHT', workers * 80_000_000),
    model: oneOf(env, 'OCR_MODEL', OCR_MODELS, 'fast'),
  });
}

/** Reads and validates the environment once (and whether a person reads stdout, for LOG_FORMAT); the result is frozen and passed down explicitly. */
export function loadConfig(env: Env = process.env, stdoutIsTTY = Boolean(process.stdout.isTTY)): Readonly<Config> {
  const dataDir = path.resolve(ROOT, env.DATA_DIR || 'data');
  const nodeEnv = oneOf(env, 'NODE_ENV', ['development', 'production', 'test'] as const, 'development');
  const config: Config = {
    version: (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version,
    nodeEnv,
    host: env.HOST || '0.0.0.0',
    port: parsePort(env.PORT),
    // a page of 5000 trades or a search with facets over 50,000 securities answers in well under a
    // second (bench/RESULTS.md); 10 s is a stall, not a large request, and matches SHUTDOWN_TIMEOUT_MS
    requestTimeoutMs: positiveInt(env, 'REQUEST_TIMEOUT_MS', 10_000),
    // outside production `npm start` just works; production creates no database unless told to
    database: parseDatabaseUrl(env.DATABASE_URL, dataDir, bool(env, 'DATABASE_CREATE', nodeEnv !== 'production')),
    sampleData: oneOf(env, 'SAMPLE_DATA', ['auto', 'none'] as const, 'auto'),
    redisUrl: env.REDIS_URL || undefined,
    publicUrl: parsePublicUrl(env.PUBLIC_URL),
    dataDir,
    auth: authConfig(env),
    ocr: ocrConfig(env),
    graphql: graphqlConfig(env, nodeEnv),
    observability: observabilityConfig(env, nodeEnv, stdoutIsTTY),
    lifecycle: lifecycleConfig(env),
    subscriptions: subscriptionConfig(env),
    ingest: ingestConfig(env),
    connections: connectionConfig(env),
  };
  checkTogether(config);
  return Object.freeze(config);
}

function authConfig(env: Env): Readonly<AuthConfig> {
  return Object.freeze({
    jwtSecret: env.JWT_SECRET || undefined,
    cookieSecure: bool(env, 'COOKIE_SECURE', true),
    rateLimits: Object.freeze({
      free: positiveInt(env, 'RATE_LIMIT_FREE', 60),
      pro: positiveInt(env, 'RATE_LIMIT_PRO', 600),
      enterprise: positiveInt(env, 'RATE_LIMIT_ENTERPRISE', 6000),
      // what a free key gets: enough for a login page and its refreshes, not for guessing keys
      anonymous: positiveInt(env, 'RATE_LIMIT_ANONYMOUS', 60),
    }),
    loginLimits: Object.freeze({
      perEmail: positiveInt(env, 'LOGIN_LIMIT_PER_EMAIL', 10),
      perIp: positiveInt(env, 'LOGIN_LIMIT_PER_IP', 100),
    }),
    trustProxy: bool(env, 'TRUST_PROXY', false),
    callerCacheMs: positiveInt(env, 'AUTH_CACHE_SECONDS', 5) * 1000,
    apiKeysPerUser: positiveInt(env, 'API_KEYS_PER_USER', 10),
    corsOrigins: corsOrigins(env.CORS_ORIGINS),
  });
}

// graphql-armor's defaults, but for the cost: armor's 5000 refuses the pages the API promises (1000 balance sheets with
// every field cost 149,000 by its formula, 5000 trades 130,000), and armor counts `first: $n` as 1, where graphql/guard.ts counts the page size sent
function graphqlConfig(env: Env, nodeEnv: Config['nodeEnv']): Readonly<GraphQLConfig> {
  return Object.freeze({
    maxDepth: positiveInt(env, 'GRAPHQL_MAX_DEPTH', 6),
    maxAliases: positiveInt(env, 'GRAPHQL_MAX_ALIASES', 15),
    maxTokens: positiveInt(env, 'GRAPHQL_MAX_TOKENS', 1000),
    maxDirectives: positiveInt(env, 'GRAPHQL_MAX_DIRECTIVES', 50),
    maxCost: positiveInt(env, 'GRAPHQL_MAX_COST', 200_000),
    costInFlight: positiveInt(env, 'COST_IN_FLIGHT', 400_000),
    costWaitMs: positiveInt(env, 'COST_WAIT_MS', 2_000),
    bodyBytesInFlight: positiveInt(env, 'BODY_BYTES_IN_FLIGHT', 32 * 1024 * 1024),
    introspection: bool(env, 'GRAPHQL_INTROSPECTION', nodeEnv !== 'production'),
    maxBodyBytes: positiveInt(env, 'GRAPHQL_MAX_BODY_BYTES', 1024 * 1024),
    persistedOnly: bool(env, 'GRAPHQL_PERSISTED_ONLY', false),
    planned: bool(env, 'GRAPHQL_PLANNED', true),
    direct: bool(env, 'GRAPHQL_DIRECT', true),
    subgraph: bool(env, 'GRAPHQL_SUBGRAPH', false),
    // a document at GRAPHQL_MAX_TOKENS (1000) prints in ~8 KB (the allow-list's: 6-8 bytes a token); 32 KiB leaves room for indentation and comments, not for padding
    apqMaxDocumentBytes: positiveInt(env, 'APQ_MAX_DOCUMENT_BYTES', 32 * 1024),
    cacheTtlSeconds: cacheTtls(env),
  });
}

function observabilityConfig(
  env: Env,
  nodeEnv: Config['nodeEnv'],
  stdoutIsTTY: boolean,
): Readonly<ObservabilityConfig> {
  return Object.freeze({
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, nodeEnv === 'test' ? 'silent' : 'info'),
    logFormat: oneOf(env, 'LOG_FORMAT', LOG_FORMATS, stdoutIsTTY && nodeEnv !== 'production' ? 'pretty' : 'json'),
    metricsToken: env.METRICS_TOKEN || undefined,
    otlpEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined,
    serviceName: env.OTEL_SERVICE_NAME || 'market-data-gateway',
  });
}

/** The rules that tie one setting to another, or to the environment as a whole. */
function checkTogether(config: Config): void {
  if (config.auth.jwtSecret !== undefined) checkSecret(config.auth.jwtSecret);
  if (config.nodeEnv === 'production' && config.auth.jwtSecret === undefined) {
    throw new ConfigError(
      `JWT_SECRET is required in production (${SECRET_RULE}; generate one with: openssl rand -base64 32)`,
    );
  }
  if (config.graphql.bodyBytesInFlight < LARGEST_BODY_BYTES) {
    throw new ConfigError(
      `BODY_BYTES_IN_FLIGHT (${config.graphql.bodyBytesInFlight}) must be at least ${LARGEST_BODY_BYTES}: the largest body (an OCR frame in its JSON) must fit`,
    );
  }
  const anonymousShare = anonymousBodyShare(config.graphql.bodyBytesInFlight);
  if (config.connections.anonymousBytesPerAddress > anonymousShare) {
    throw new ConfigError(
      `ANONYMOUS_BODY_BYTES_PER_ADDRESS (${config.connections.anonymousBytesPerAddress}) must be at most a quarter of BODY_BYTES_IN_FLIGHT (${anonymousShare}), what callers without a credential hold together`,
    );
  }
  if (config.graphql.costInFlight < config.graphql.maxCost) {
    throw new ConfigError(
      `COST_IN_FLIGHT (${config.graphql.costInFlight}) must be at least GRAPHQL_MAX_COST (${config.graphql.maxCost}): the largest admissible request must fit`,
    );
  }
  if (config.graphql.apqMaxDocumentBytes > 1024 * 1024) {
    throw new ConfigError(
      `APQ_MAX_DOCUMENT_BYTES must be at most 1048576 (the APQ store holds 256 documents of that size); got ${config.graphql.apqMaxDocumentBytes}`,
    );
  }
  if (config.observability.metricsToken !== undefined && config.observability.metricsToken.length < 16) {
    throw new ConfigError(
      `METRICS_TOKEN must be at least 16 characters; got ${config.observability.metricsToken.length}`,
    );
  }
  if (config.observability.otlpEndpoint !== undefined && !/^https?:\/\/[^/]/.test(config.observability.otlpEndpoint)) {
    throw new ConfigError(
      `OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL; got ${JSON.stringify(config.observability.otlpEndpoint)}`,
    );
  }
  if (config.redisUrl !== undefined && !/^rediss?:\/\//.test(config.redisUrl)) {
    throw new ConfigError(`REDIS_URL must start with redis:// or rediss://; got ${JSON.stringify(config.redisUrl)}`);
  }
}
