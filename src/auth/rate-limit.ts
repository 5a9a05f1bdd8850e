import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { AuthConfig } from '../config.js';
import { AppError } from '../errors.js';
import type { MetricRegistrar } from '../observability/metrics.js';
import type { Tier } from '../../generated/prisma/enums.js';

/**
 * Request budgets per user and tier, per client address for requests without a valid caller, and
 * login-attempt budgets per email and per client address. In memory by default; in Redis when a
 * client is given, so that every instance draws on one budget.
 */
export interface RateLimits {
  /** Counts one request of a user (all their keys and sessions draw on one budget); `points` for one that costs more (an APQ registration). */
  request(userId: string, tier: Tier, points?: number): Promise<Pacing>;
  /** Counts one request from this address that has no valid caller (none, or a wrong credential). */
  anonymous(ip: string): Promise<Pacing>;
  /** Throws RATE_LIMITED, counting nothing, when this address has spent its anonymous budget. */
  checkAnonymous(ip: string): Promise<void>;
  /** Counts one login attempt for this email and this client address. */
  login(email: string, ip: string): Promise<void>;
}

const LOGIN_WINDOW_SECONDS = 15 * 60;

/** Where a budget stands after a request drew on it: what its answer's RateLimit fields say. */
export interface Pacing {
  /** Requests the budget allows in a window. */
  limit: number;
  /** Requests left in this window. */
  remaining: number;
  /** Seconds until the window ends and the budget is whole again (at least 1). */
  reset: number;
  /** The window, in seconds. */
  window: number;
}

/**
 * The RateLimit fields of draft-ietf-httpapi-ratelimit-headers-06, the draft's last form with a
 * field each (later drafts fold them into one `RateLimit` field): docs/rest.md#rate-limits.
 */
export function pacingHeaders(p: Pacing): Record<string, string> {
  return {
    'ratelimit-limit': String(p.limit),
    'ratelimit-remaining': String(p.remaining),
    'ratelimit-reset': String(p.reset),
    'ratelimit-policy': `${p.limit};w=${p.window}`,
  };
}

/** One budget: its limiter, in memory or in Redis, and what it allows. */
interface Budget {
  limiter: RateLimiterAbstract;
  points: number;
  window: number;
}

/**
 * Where `budget` stands by the limiter's answer, a request let through or refused: one computation
 * whichever limiter answered (memory, Redis, or the memory one standing in for an unreachable Redis).
 */
function pacingOf(res: RateLimiterRes, { points, window }: Budget): Pacing {
  return {
    limit: points,
    remaining: Math.max(0, points - res.consumedPoints),
    reset: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
    window,
  };
}

/** With `metrics`, the 429s each budget gives are counted there (mdg_rate_limit_rejections_total). */
export function createRateLimits(config: AuthConfig, redis?: Redis, metrics?: MetricRegistrar): RateLimits {
  const limits = budgets(config, redis);
  if (!metrics) return limits;
  const rejections: Record<string, number> = {};
  metrics.counter(
    {
      name: 'mdg_rate_limit_rejections_total',
      help: 'Requests and login attempts refused with 429, by budget (tier, anonymous per address, or login)',
      label: 'limit',
    },
    () => rejections,
  );
  const counted = async <T>(limit: string, attempt: Promise<T>): Promise<T> => {
    try {
      return await attempt;
    } catch (e) {
      if (e instanceof AppError && e.code === 'RATE_LIMITED') rejections[limit] = (rejections[limit] ?? 0) + 1;
      throw e;
    }
  };
  return {
    request: (userId, tier, points) => counted(tier, limits.request(userId, tier, points)),
    anonymous: (ip) => counted('anonymous', limits.anonymous(ip)),
    checkAnonymous: (ip) => counted('anonymous', limits.checkAnonymous(ip)),
    login: (email, ip) => counted('login', limits.login(email, ip)),
  };
}

function budgets(config: AuthConfig, redis?: Redis): RateLimits {
  // With Redis, a memory limiter stands in while Redis is unreachable: budgets go per instance
  // for that time instead of every request failing.
  const make = (keyPrefix: string, points: number, window: number): Budget => ({
    limiter: redis
      ? new RateLimiterRedis({
          storeClient: redis,
          keyPrefix: `mdg:rl:${keyPrefix}`,
          points,
          duration: window,
          insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration: window }),
        })
      : new RateLimiterMemory({ keyPrefix, points, duration: window }),
    points,
    window,
  });
  const perTier: Record<Tier, Budget> = {
    free: make('free', config.rateLimits.free, 60),
    pro: make('pro', config.rateLimits.pro, 60),
    enterprise: make('enterprise', config.rateLimits.enterprise, 60),
  };
  const perAddress = make('anonymous', config.rateLimits.anonymous, 60);
  const perEmail = make('login-email', config.loginLimits.perEmail, LOGIN_WINDOW_SECONDS);
  const perIp = make('login-ip', config.loginLimits.perIp, LOGIN_WINDOW_SECONDS);

  // Retry-After and RateLimit-Reset agree: both are the seconds until the window ends
  const limited = (res: RateLimiterRes, budget: Budget, what: string) => {
    const pacing = pacingOf(res, budget);
    return new AppError('RATE_LIMITED', `${what}; try again in ${pacing.reset} s`, {
      'retry-after': String(pacing.reset),
      ...pacingHeaders(pacing),
    });
  };

  async function consume(budget: Budget, key: string, what: string, points = 1): Promise<Pacing> {
    try {
      return pacingOf(await budget.limiter.consume(key, points), budget);
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e; // the store failed: not the caller's fault
      throw limited(e, budget, what);
    }
  }

  const anonymousSpent = `rate limit of ${config.rateLimits.anonymous} requests per minute without valid credentials reached for this address`;
  return {
    request: (userId, tier, points = 1) =>
      consume(
        perTier[tier],
        `user:${userId}`,
        `rate limit of ${config.rateLimits[tier]} requests per minute for the ${tier} tier reached`,
        points,
      ),
    anonymous: (ip) => consume(perAddress, ip, anonymousSpent),
    checkAnonymous: async (ip) => {
      const res = await perAddress.limiter.get(ip);
      if (res && res.consumedPoints >= perAddress.points) throw limited(res, perAddress, anonymousSpent);
    },
    login: async (email, ip) => {
      await consume(perIp, ip, 'too many login attempts from this address');
      await consume(perEmail, email, 'too many login attempts for this account');
    },
  };
}
