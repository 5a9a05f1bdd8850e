import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { AuthConfig } from '../config.js';
import { AppError } from '../errors.js';
import type { Tier } from '../../generated/prisma/enums.js';

/**
 * Request budgets per caller and tier, and login-attempt budgets per email and per client address.
 * In memory by default; in Redis when a client is given, so that every instance draws on one budget.
 */
export interface RateLimits {
  /** Counts one request of a caller (an API key, or a user for token callers). */
  request(callerKey: string, tier: Tier): Promise<void>;
  /** Counts one login attempt for this email and this client address. */
  login(email: string, ip: string): Promise<void>;
}

const LOGIN_WINDOW_SECONDS = 15 * 60;

export function createRateLimits(config: AuthConfig, redis?: Redis): RateLimits {
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
  const perEmail = make('login-email', config.loginLimits.perEmail, LOGIN_WINDOW_SECONDS);
  const perIp = make('login-ip', config.loginLimits.perIp, LOGIN_WINDOW_SECONDS);

  async function consume(limiter: RateLimiterAbstract, key: string, what: string): Promise<void> {
    try {
      await limiter.consume(key);
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e; // the store failed: not the caller's fault
      const seconds = Math.max(1, Math.ceil(e.msBeforeNext / 1000));
      throw new AppError('RATE_LIMITED', `${what}; try again in ${seconds} s`, { 'retry-after': String(seconds) });
    }
  }

  return {
    request: (callerKey, tier) => consume(perTier[tier], callerKey, `rate limit of ${config.rateLimits[tier]} requests per minute for the ${tier} tier reached`),
    login: async (email, ip) => {
      await consume(perIp, ip, 'too many login attempts from this address');
      await consume(perEmail, email, 'too many login attempts for this account');
    },
  };
}
