import { readFileSync } from 'node:fs';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { Queues } from '@pay/queue';

// The next file of the same worker, on the same database and Redis db.
it('finds no receipt worker and no service process left by the file before', async () => {
  const redis = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: null });
  const queue = new Queue(Queues.receiptChecks.name, { connection: redis, prefix: 'bull' });
  try {
    const db = new URL(process.env.REDIS_URL!).pathname.slice(1);
    const workers = (await queue.getWorkers()).filter((w) => w.db === db);
    expect(workers).toEqual([]);
  } finally {
    await queue.close();
    redis.disconnect();
  }
  const pid = Number(readFileSync(process.env.FILE_END_PID_FILE!, 'utf8'));
  expect(isRunning(pid)).toBe(false);
});

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
