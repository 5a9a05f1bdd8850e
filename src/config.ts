import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root (where package.json, prisma/ and data/ live). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export type DatabaseConfig =
  | { kind: 'sqlite'; url: string; file: string }
  | { kind: 'postgresql'; url: string; schema: string };

export interface Config {
  nodeEnv: 'development' | 'production' | 'test';
  host: string;
  port: number;
  database: DatabaseConfig;
  /** `auto`: fill an empty database with sample data outside production; `none`: start empty. */
  sampleData: 'auto' | 'none';
  redisUrl: string | undefined;
  dataDir: string;
  auth: AuthConfig;
  ocr: OcrConfig;
  graphql: GraphQLConfig;
  observability: ObservabilityConfig;
  lifecycle: LifecycleConfig;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface ObservabilityConfig {
  /** pino level of the JSON log lines on stdout; `silent` by default under NODE_ENV=test. */
  logLevel: LogLevel;
  /** Bearer token /metrics asks for; unset: open outside production, refused (403) in production. */
  metricsToken: string | undefined;
  /** OTLP/HTTP collector base URL (traces go to <url>/v1/traces); unset: no tracing, no OpenTelemetry loaded. */
  otlpEndpoint: string | undefined;
  /** service.name of the spans. */
  serviceName: string;
}

export interface LifecycleConfig {
  /** On SIGTERM/SIGINT, how long in-flight requests may take before their connections are cut. */
  shutdownTimeoutMs: number;
  /** How long /readyz answers 503 while new connections are still taken (for load balancers that poll it). */
  drainDelayMs: number;
}

/** The record types whose answers the response cache may keep (public reference data). */
export const CACHEABLE_TYPES = ['Logo', 'Security', 'Fundamental', 'EnhancedFundamental', 'BalanceSheet'] as const;
export type CacheableType = (typeof CACHEABLE_TYPES)[number];

export interface GraphQLConfig {
  /** graphql-armor limits: a document past one is refused (400) before anything runs. */
  maxDepth: number;
  maxAliases: number;
  maxTokens: number;
  maxDirectives: number;
  maxCost: number;
  /** Whether __schema and __type may be asked for; off in production unless enabled. */
  introspection: boolean;
  /** Largest /graphql request body; callers entitled to OCR may send a frame-sized one. */
  maxBodyBytes: number;
  /** Only documents of persisted-operations.json run (by hash, documentId or their exact text). */
  persistedOnly: boolean;
  /** Seconds an answer made only of these types is served from the response cache; 0: never. */
  cacheTtlSeconds: Readonly<Record<CacheableType, number>>;
}

export interface OcrConfig {
  /** Tesseract worker threads, started on first use (each ~45 MB; more than the cores is slower). */
  workers: number;
  /** Requests that may wait for a worker; past it, 503 with Retry-After. */
  queueLimit: number;
  /** Per request, waiting included; past it, 503 (a recognition still running is stopped). */
  timeoutMs: number;
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
  /** Requests per minute per API key or user, by tier. */
  rateLimits: Readonly<Record<'free' | 'pro' | 'enterprise', number>>;
  /** Failed-or-not login attempts per 15 minutes, per email and per client address. */
  loginLimits: Readonly<{ perEmail: number; perIp: number }>;
  /** Take the client address from X-Forwarded-For (only behind a proxy that sets it). */
  trustProxy: boolean;
  /** How long an instance remembers who a key or token names (see auth/caller.ts). */
  callerCacheMs: number;
}

/** A configuration mistake: reported as one line and exit code 2, never a stack trace. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}; got ${JSON.stringify(raw)}`);
  }
  return raw as T;
}

function positiveInt(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1) throw new ConfigError(`${name} must be a positive integer; got ${JSON.stringify(raw)}`);
  return Number(raw);
}

function nonNegativeInt(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d{1,9}$/.test(raw)) throw new ConfigError(`${name} must be a non-negative integer; got ${JSON.stringify(raw)}`);
  return Number(raw);
}

/** RESPONSE_CACHE_TTLS: per-type overrides of RESPONSE_CACHE_TTL_SECONDS, like `Logo=3600,Security=300`. */
function cacheTtls(env: Env): Readonly<Record<CacheableType, number>> {
  const base = nonNegativeInt(env, 'RESPONSE_CACHE_TTL_SECONDS', 60);
  const ttls = Object.fromEntries(CACHEABLE_TYPES.map((t) => [t, base])) as Record<CacheableType, number>;
  for (const entry of (env.RESPONSE_CACHE_TTLS ?? '').split(',').filter((e) => e.trim() !== '')) {
    const match = /^\s*([A-Za-z]+)\s*=\s*(\d{1,9})\s*$/.exec(entry);
    if (!match || !(CACHEABLE_TYPES as readonly string[]).includes(match[1]!)) {
      throw new ConfigError(`RESPONSE_CACHE_TTLS must be a comma list of <type>=<seconds> with a type among ${CACHEABLE_TYPES.join(', ')}; got ${JSON.stringify(entry.trim())}`);
    }
    ttls[match[1] as CacheableType] = Number(match[2]);
  }
  return Object.freeze(ttls);
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false; got ${JSON.stringify(raw)}`);
}

function parsePort(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 4000;
  if (!/^\d{1,5}$/.test(raw) || Number(raw) < 1 || Number(raw) > 65535) {
    throw new ConfigError(`PORT must be an integer from 1 to 65535; got ${JSON.stringify(raw)}`);
  }
  return Number(raw);
}

/**
 * Unset: an SQLite file under the data directory. `file:<path>`: that SQLite file (relative paths
 * are relative to the project root). `postgresql://...` (or `postgres://`): PostgreSQL; a
 * `?schema=` parameter selects the schema (default `public`), as with Prisma.
 */
export function parseDatabaseUrl(raw: string | undefined, dataDir: string): DatabaseConfig {
  if (raw === undefined || raw === '') {
    const file = path.join(dataDir, 'market.db');
    return { kind: 'sqlite', url: `file:${file}`, file };
  }
  if (raw.startsWith('file:')) {
    const rest = raw.slice('file:'.length).replace(/^\/\//, '');
    if (rest === '' || rest.includes('?')) {
      throw new ConfigError(`DATABASE_URL file: URL must name a file, like file:./data/market.db; got ${JSON.stringify(raw)}`);
    }
    const file = path.resolve(ROOT, rest);
    return { kind: 'sqlite', url: `file:${file}`, file };
  }
  if (/^postgres(ql)?:\/\//.test(raw)) {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new ConfigError(`DATABASE_URL is not a valid URL: ${JSON.stringify(raw)}`);
    }
    if (!url.hostname || url.pathname.length <= 1) {
      throw new ConfigError(`DATABASE_URL must name a host and a database, like postgresql://user@host:5432/dbname; got ${JSON.stringify(raw)}`);
    }
    const schema = url.searchParams.get('schema') ?? 'public';
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
      throw new ConfigError(`DATABASE_URL schema parameter must be an SQL identifier; got ${JSON.stringify(schema)}`);
    }
    url.searchParams.delete('schema');
    return { kind: 'postgresql', url: url.toString(), schema };
  }
  throw new ConfigError(`DATABASE_URL must start with file: or postgresql://; got ${JSON.stringify(raw)}`);
}

/** Reads and validates the environment once; the result is frozen and passed down explicitly. */
export function loadConfig(env: Env = process.env): Readonly<Config> {
  const dataDir = path.resolve(ROOT, env.DATA_DIR || 'data');
  const nodeEnv = oneOf(env, 'NODE_ENV', ['development', 'production', 'test'] as const, 'development');
  const config: Config = {
    nodeEnv,
    host: env.HOST || '0.0.0.0',
    port: parsePort(env.PORT),
    database: parseDatabaseUrl(env.DATABASE_URL, dataDir),
    sampleData: oneOf(env, 'SAMPLE_DATA', ['auto', 'none'] as const, 'auto'),
    redisUrl: env.REDIS_URL || undefined,
    dataDir,
    auth: Object.freeze({
      jwtSecret: env.JWT_SECRET || undefined,
      cookieSecure: bool(env, 'COOKIE_SECURE', true),
      rateLimits: Object.freeze({
        free: positiveInt(env, 'RATE_LIMIT_FREE', 60),
        pro: positiveInt(env, 'RATE_LIMIT_PRO', 600),
        enterprise: positiveInt(env, 'RATE_LIMIT_ENTERPRISE', 6000),
      }),
      loginLimits: Object.freeze({ perEmail: positiveInt(env, 'LOGIN_LIMIT_PER_EMAIL', 10), perIp: positiveInt(env, 'LOGIN_LIMIT_PER_IP', 100) }),
      trustProxy: bool(env, 'TRUST_PROXY', false),
      callerCacheMs: positiveInt(env, 'AUTH_CACHE_SECONDS', 5) * 1000,
    }),
    ocr: Object.freeze({
      workers: positiveInt(env, 'OCR_WORKERS', os.availableParallelism()),
      queueLimit: positiveInt(env, 'OCR_QUEUE_LIMIT', 32),
      timeoutMs: positiveInt(env, 'OCR_TIMEOUT_MS', 30_000),
      model: oneOf(env, 'OCR_MODEL', OCR_MODELS, 'fast'),
    }),
    // graphql-armor's defaults, but for the cost: armor's 5000 refuses the pages the API promises
    // (1000 balance sheets with every field cost 149,000 by its formula, 5000 trades 130,000), and
    // armor counts `first: $n` as 1, where graphql-guard.ts counts the page size sent
    graphql: Object.freeze({
      maxDepth: positiveInt(env, 'GRAPHQL_MAX_DEPTH', 6),
      maxAliases: positiveInt(env, 'GRAPHQL_MAX_ALIASES', 15),
      maxTokens: positiveInt(env, 'GRAPHQL_MAX_TOKENS', 1000),
      maxDirectives: positiveInt(env, 'GRAPHQL_MAX_DIRECTIVES', 50),
      maxCost: positiveInt(env, 'GRAPHQL_MAX_COST', 200_000),
      introspection: bool(env, 'GRAPHQL_INTROSPECTION', nodeEnv !== 'production'),
      maxBodyBytes: positiveInt(env, 'GRAPHQL_MAX_BODY_BYTES', 1024 * 1024),
      persistedOnly: bool(env, 'GRAPHQL_PERSISTED_ONLY', false),
      cacheTtlSeconds: cacheTtls(env),
    }),
    observability: Object.freeze({
      logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, nodeEnv === 'test' ? 'silent' : 'info'),
      metricsToken: env.METRICS_TOKEN || undefined,
      otlpEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined,
      serviceName: env.OTEL_SERVICE_NAME || 'market-data-gateway',
    }),
    lifecycle: Object.freeze({
      shutdownTimeoutMs: positiveInt(env, 'SHUTDOWN_TIMEOUT_MS', 10_000),
      drainDelayMs: nonNegativeInt(env, 'SHUTDOWN_DRAIN_DELAY_MS', 0),
    }),
  };
  if (config.auth.jwtSecret !== undefined && config.auth.jwtSecret.length < 32) {
    throw new ConfigError(`JWT_SECRET must be at least 32 characters; got ${config.auth.jwtSecret.length}`);
  }
  if (config.nodeEnv === 'production' && config.auth.jwtSecret === undefined) {
    throw new ConfigError('JWT_SECRET is required in production (at least 32 random characters)');
  }
  if (config.observability.metricsToken !== undefined && config.observability.metricsToken.length < 16) {
    throw new ConfigError(`METRICS_TOKEN must be at least 16 characters; got ${config.observability.metricsToken.length}`);
  }
  if (config.observability.otlpEndpoint !== undefined && !/^https?:\/\/[^/]/.test(config.observability.otlpEndpoint)) {
    throw new ConfigError(`OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL; got ${JSON.stringify(config.observability.otlpEndpoint)}`);
  }
  if (config.redisUrl !== undefined && !/^rediss?:\/\//.test(config.redisUrl)) {
    throw new ConfigError(`REDIS_URL must start with redis:// or rediss://; got ${JSON.stringify(config.redisUrl)}`);
  }
  return Object.freeze(config);
}
