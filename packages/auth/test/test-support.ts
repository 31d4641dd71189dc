import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';

/**
 * The real Redis the tests run against, with a key prefix unique to this test file's run so
 * parallel runs never see each other's keys; `close` deletes everything under it.
 */
export function testRedis(label: string) {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
  const prefix = `test:auth:${label}:${randomUUID()}:`;
  return {
    redis,
    prefix,
    async close() {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
        if (keys.length > 0) await redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
      await redis.quit();
    },
  };
}
