import type { Cluster, Redis } from 'ioredis';

/**
 * Resolves once the client's first connection attempt has settled, connected or not: a
 * test app answers its first request against a connected Redis, or against one known to be
 * away (the request-path client fails fast rather than queueing while it connects).
 */
export function firstConnection(redis: Redis | Cluster): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      redis.off('ready', done);
      redis.off('error', done);
      resolve();
    };
    redis.on('ready', done);
    redis.on('error', done);
  });
}
