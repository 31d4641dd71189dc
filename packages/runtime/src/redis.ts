import { Redis } from 'ioredis';
import type { Logger } from 'pino';

/** How long a request waits on Redis before treating it as unavailable. */
export const REQUEST_REDIS_TIMEOUT_MS = 500;

const lastErrors = new WeakMap<Redis, Error>();

function watched(redis: Redis, role: string, logger: Logger): Redis {
  // Without a listener ioredis prints every reconnect failure to stderr; with one, the
  // reason is logged once per outage and kept for /readyz.
  redis.on('error', (err: Error) => {
    if (!lastErrors.has(redis)) logger.warn({ err: { message: err.message }, redis: role }, 'redis unreachable; reconnecting');
    lastErrors.set(redis, err);
  });
  redis.on('ready', () => {
    if (lastErrors.delete(redis)) logger.info({ redis: role }, 'redis reachable again');
  });
  return redis;
}

/**
 * Redis for the request path (rate limits, replay guard, readiness). While Redis is away a
 * command fails at once instead of waiting in ioredis's offline queue, and a connected Redis
 * that stalls fails a command after `timeoutMs`. So a request never hangs on Redis: the rate
 * limiter lets it through and the replay guard answers 503. (Before the first connection
 * /readyz is not ready, so a balancer sends no traffic yet.)
 */
export function requestRedis(url: string, logger: Logger, timeoutMs = REQUEST_REDIS_TIMEOUT_MS): Redis {
  // Auto-pipelining sends the commands concurrent requests issue in one tick as one write:
  // under load, one syscall for many rate-limit checks instead of one each.
  return watched(new Redis(url, { enableOfflineQueue: false, commandTimeout: timeoutMs, maxRetriesPerRequest: 1, enableAutoPipelining: true }), 'requests', logger);
}

/**
 * Redis for BullMQ queues and workers. BullMQ waits out outages itself and needs commands that
 * never give up (`maxRetriesPerRequest: null`); its work is never on a request's critical path.
 */
export function queueRedis(url: string, logger: Logger): Redis {
  return watched(new Redis(url, { maxRetriesPerRequest: null }), 'queues', logger);
}

/** Readiness check: says why Redis is unreachable (e.g. ECONNREFUSED) rather than timing out. */
export async function redisReady(redis: Redis): Promise<void> {
  if (redis.status !== 'ready') {
    throw new Error(`${redis.status}${lastErrors.has(redis) ? `: ${lastErrors.get(redis)!.message}` : ''}`);
  }
  await redis.ping();
}

/**
 * Closes a client at shutdown. QUIT lets a connected client finish what it sent; a client
 * that is not connected is dropped at once, since QUIT would wait for a Redis that is away.
 */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'ready') {
    await redis.quit().catch(() => redis.disconnect());
  } else {
    redis.disconnect();
  }
}
