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
  request(userId: string, tier: Tier, points?: number): Promise<void>;
  /** Counts one request from this address that has no valid caller (none, or a wrong credential). */
  anonymous(ip: string): Promise<void>;
  /** Throws RATE_LIMITED, counting nothing, when this address has spent its anonymous budget. */
  checkAnonymous(ip: string): Promise<void>;
  /** Counts one login attempt for this email and this client address. */
  login(email: string, ip: string): Promise<void>;
}

const LOGIN_WINDOW_SECONDS = 15 * 60;

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
  const counted = async (limit: string, attempt: Promise<void>): Promise<void> => {
    try {
      await attempt;
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
  const make = (keyPrefix: string, points: number, duration: number): RateLimiterAbstract =>
    redis
      ? new RateLimiterRedis({
          storeClient: redis,
          keyPrefix: `mdg:rl:${keyPrefix}`,
          points,
          duration,
          insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration }),
        })
      : new RateLimiterMemory({ keyPrefix, points, duration });
  const perTier: Record<Tier, RateLimiterAbstract> = {
    free: make('free', config.rateLimits.free, 60),
    pro: make('pro', config.rateLimits.pro, 60),
    enterprise: make('enterprise', config.rateLimits.enterprise, 60),
  };
  const perAddress = make('anonymous', config.rateLimits.anonymous, 60);
  const perEmail = make('login-email', config.loginLimits.perEmail, LOGIN_WINDOW_SECONDS);
  const perIp = make('login-ip', config.loginLimits.perIp, LOGIN_WINDOW_SECONDS);

  const limited = (res: RateLimiterRes, what: string) => {
    const seconds = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
    return new AppError('RATE_LIMITED', `${what}; try again in ${seconds} s`, { 'retry-after': String(seconds) });
  };

  async function consume(limiter: RateLimiterAbstract, key: string, what: string, points = 1): Promise<void> {
    try {
      await limiter.consume(key, points);
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e; // the store failed: not the caller's fault
      throw limited(e, what);
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
      const res = await perAddress.get(ip);
      if (res && res.consumedPoints >= config.rateLimits.anonymous) throw limited(res, anonymousSpent);
    },
    login: async (email, ip) => {
      await consume(perIp, ip, 'too many login attempts from this address');
      await consume(perEmail, email, 'too many login attempts for this account');
    },
  };
}
