import { Queue, Worker } from 'bullmq';
import { eventually, startRedisCluster, type RedisClusterServer } from '@pay/testing';
import { createLogger } from './logger';
import { closeRedis, queueRedis, REQUEST_REDIS_TIMEOUT_MS, requestRedis, type RedisClient } from './redis';

/**
 * Commands during a master's failover on a Redis Cluster (three masters, a replica each),
 * through the connections the services open (`requestRedis`, `queueRedis`), under load: the
 * request path's commands on keys in the killed master's slot, and BullMQ jobs added and
 * worked under the hash-tagged prefix that master holds. No command may hang past its bound,
 * each must succeed again soon after the replica took over, and every job added must run once.
 */
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Redis commands while a cluster master fails over', () => {
  let cluster: RedisClusterServer;
  const clients: RedisClient[] = [];

  beforeAll(async () => {
    cluster = await startRedisCluster();
  }, 180_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => closeRedis(c)));
    await cluster?.stop();
  });

  it('neither hangs nor loses: request commands fail fast then succeed, every job added runs once', async () => {
    const settings = { REDIS_URL: 'redis://127.0.0.1:1', REDIS_CLUSTER_NODES: cluster.nodes };
    const logger = createLogger('test', 'silent');
    const request = requestRedis(settings, logger);
    const queues = queueRedis(settings, logger);
    clients.push(request, queues);
    const prefix = cluster.env.QUEUE_PREFIX;
    const queue = new Queue('failover', { connection: queues, prefix });
    const ran: string[] = [];
    const worker = new Worker('failover', async (job) => void ran.push(job.id!), { connection: queues, prefix, concurrency: 10 });
    worker.on('error', () => undefined);
    queue.on('error', () => undefined);

    // The gate's keys and the queue's keys share the tag `bull`: one master holds both.
    const key = `${prefix}:probe`;
    await eventually(() => request.set(key, '0'), 20_000, 100);
    const requestLog: { at: number; ms: number; ok: boolean; error?: string }[] = [];
    const added: string[] = [];
    const addLog: { at: number; ms: number; ok: boolean; error?: string }[] = [];
    let stop = false;
    const requests = (async () => {
      while (!stop) {
        const at = Date.now();
        try {
          await request.incr(key);
          requestLog.push({ at, ms: Date.now() - at, ok: true });
        } catch (err) {
          requestLog.push({ at, ms: Date.now() - at, ok: false, error: (err as Error).message });
        }
        await pause(10);
      }
    })();
    let n = 0;
    const adds = (async () => {
      while (!stop) {
        const id = `job-${n++}`;
        const at = Date.now();
        try {
          await queue.add('failover', {}, { jobId: id });
          added.push(id);
          addLog.push({ at, ms: Date.now() - at, ok: true });
        } catch (err) {
          addLog.push({ at, ms: Date.now() - at, ok: false, error: (err as Error).message });
        }
        await pause(20);
      }
    })();

    await eventually(() => expect(ran.length).toBeGreaterThanOrEqual(20), 20_000, 50);
    const failover = await cluster.killMaster({ holding: key });
    const promotedAt = Date.now();
    // Load goes on for a while after the promotion.
    await pause(5000);
    const stoppedAt = Date.now();
    stop = true;
    // A hung command never lets its loop end: bounded here, so a hang fails the test.
    const finished = await Promise.race([Promise.all([requests, adds]).then(() => true), pause(15_000).then(() => false)]);
    const lastFail = (log: typeof requestLog) => Math.max(0, ...log.filter((l) => !l.ok).map((l) => l.at + l.ms));
    const report = {
      failover,
      finished,
      request: { sent: requestLog.length, failed: requestLog.filter((l) => !l.ok).length, maxMs: Math.max(...requestLog.map((l) => l.ms)), okAfterPromotion: requestLog.filter((l) => l.ok && l.at >= promotedAt).length, lastFailureBeforeStop: stoppedAt - lastFail(requestLog), errors: [...new Set(requestLog.filter((l) => !l.ok).map((l) => l.error))] },
      add: { sent: addLog.length, failed: addLog.filter((l) => !l.ok).length, maxMs: Math.max(...addLog.map((l) => l.ms)), okAfterPromotion: addLog.filter((l) => l.ok && l.at >= promotedAt).length, errors: [...new Set(addLog.filter((l) => !l.ok).map((l) => l.error))] },
    };
    console.log(JSON.stringify(report, null, 2));
    expect(finished).toBe(true);
    // A request waits on Redis for its bound, and a timer's lateness on a loaded machine: not
    // for the failover (4.5 s seen before the deadline was armed at the cluster).
    expect(report.request.maxMs).toBeLessThan(REQUEST_REDIS_TIMEOUT_MS + 1000);
    // Every job whose add succeeded runs, once.
    await eventually(() => expect(new Set(ran).size).toBeGreaterThanOrEqual(new Set(added).size), 30_000, 100);
    const missing = added.filter((id) => !ran.includes(id));
    console.log(JSON.stringify({ added: added.length, ran: ran.length, distinct: new Set(ran).size, missing: missing.slice(0, 10) }));
    expect(missing).toEqual([]);
    expect(ran.length).toBe(new Set(ran).size);
    expect(report.request.okAfterPromotion).toBeGreaterThan(0);
    expect(report.add.okAfterPromotion).toBeGreaterThan(0);
    await worker.close();
    await queue.close();
  }, 240_000);
});
