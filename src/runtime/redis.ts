import { Redis } from 'ioredis';

/**
 * The shared Redis client, when REDIS_URL is set. Commands fail fast while Redis is away (no
 * offline queue that would hold requests), and the client reconnects by itself.
 */
export function createRedis(url: string): Redis {
  const redis = new Redis(url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    lazyConnect: false,
    connectTimeout: 2_000,
  });
  // errors surface on the commands; an 'error' event without a listener would crash the process
  redis.on('error', () => {});
  return redis;
}
