import { Queue, Worker } from 'bullmq';
import { closeRedis, createLogger, queueRedis, type RedisClient } from '@pay/runtime';
import { eventually, startRedisCluster, type RedisClusterServer } from '@pay/testing';

/**
 * BullMQ on a Redis Cluster (three masters, a replica each) through the connection the
 * services open with REDIS_CLUSTER_NODES (`queueRedis`), under a hash-tagged prefix: jobs,
 * job ids and delayed jobs; then again once a master is killed and its replica took over.
 */
describe('queues on a Redis Cluster', () => {
  let cluster: RedisClusterServer;
  let connection: RedisClient;

  beforeAll(async () => {
    cluster = await startRedisCluster();
    connection = queueRedis({ REDIS_URL: 'redis://127.0.0.1:1', REDIS_CLUSTER_NODES: cluster.nodes }, createLogger('test', 'silent'));
  }, 180_000);

  afterAll(async () => {
    if (connection) await closeRedis(connection);
    await cluster?.stop();
  });

  /** 20 jobs (one added twice under its id) and a delayed one, each run once. */
  async function queueWorks(name: string) {
    const prefix = cluster.env.QUEUE_PREFIX;
    const queue = new Queue(name, { connection, prefix });
    const done: string[] = [];
    const worker = new Worker(name, async (job) => void done.push(job.data.n), { connection, prefix });
    try {
      const jobs = Array.from({ length: 20 }, (_, n) => ({ name, data: { n: String(n) }, opts: { jobId: `${name}-${n}` } }));
      await queue.addBulk([...jobs, jobs[0]!]);
      await queue.add(name, { n: 'delayed' }, { delay: 200 });
      await eventually(() => expect(done.length).toBe(21), 30_000, 50);
      expect(new Set(done).size).toBe(21);
    } finally {
      await worker.close();
      await queue.close();
    }
  }

  it('runs jobs under {prefix}, and again after a master is killed and its replica took over', async () => {
    expect(cluster.env.QUEUE_PREFIX).toBe('{bull}');
    await queueWorks('before');
    await cluster.killMaster();
    await queueWorks('after');
  }, 240_000);
});
