import { Queue, Worker, type Job, type WorkerOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { assertValid } from '@pay/schemas';
import { queueJobOutcomes, watchQueueDepth, type Lifecycle, type Logger } from '@pay/kit';
import { Queues, type JobOf, type QueueKey } from './jobs';

export interface WorkerSetup<K extends QueueKey> {
  queue: K;
  connection: Redis;
  logger: Logger;
  lifecycle?: Lifecycle;
  prefix?: string;
  concurrency?: number;
  options?: Partial<WorkerOptions>;
  /** `token` is the lock token BullMQ needs to move the job (e.g. back to delayed). */
  process: (data: JobOf<K>, job: Job, token: string | undefined) => Promise<void>;
}

/**
 * The one way to consume a queue: validates the job, logs failures with the job id, counts
 * outcomes and reports the queue's depth in /metrics (`queue_jobs_total`, `queue_jobs`), and
 * closes on shutdown after the running jobs finish.
 */
export function startWorker<K extends QueueKey>(setup: WorkerSetup<K>): Worker {
  const spec = Queues[setup.queue];
  const log = setup.logger.child({ queue: spec.name });
  const worker = new Worker(
    spec.name,
    async (job, token) => {
      assertValid(spec.schema, job.data, { what: `Job ${job.id} of ${spec.name}` });
      await setup.process(job.data as JobOf<K>, job, token);
    },
    {
      connection: setup.connection,
      prefix: setup.prefix,
      concurrency: setup.concurrency ?? 10,
      ...setup.options,
    },
  );
  worker.on('completed', () => queueJobOutcomes.inc({ queue: spec.name, outcome: 'completed' }));
  worker.on('failed', (job, err) => {
    queueJobOutcomes.inc({ queue: spec.name, outcome: 'failed' });
    log.warn({ jobId: job?.id, attempts: job?.attemptsMade, err: { message: err.message, name: err.name } }, 'job failed');
  });
  worker.on('error', (err) => log.error({ err }, 'worker error'));
  // Counts read through a Queue on the same connection (no blocking commands, so no new one).
  const counts = new Queue(spec.name, { connection: setup.connection, prefix: setup.prefix });
  const unwatch = watchQueueDepth(spec.name, () => counts.getJobCounts('waiting', 'active', 'delayed', 'failed'));
  worker.once('closed', () => {
    unwatch();
    counts.close().catch(() => undefined);
  });
  setup.lifecycle?.onShutdown(`worker:${spec.name}`, () => worker.close());
  return worker;
}
