import { DelayedError, Queue, Worker, type Job, type WorkerOptions } from 'bullmq';
import { assertValid } from '@pay/schemas';
import { queueJobOutcomes, ShutdownAbort, watchQueueDepth, type Lifecycle, type Logger, type RedisClient } from '@pay/runtime';
import { Queues, type JobOf, type QueueKey } from './jobs';
import { watchProgress } from './stall';

export interface WorkerSetup<K extends QueueKey> {
  queue: K;
  connection: RedisClient;
  logger: Logger;
  lifecycle?: Lifecycle;
  prefix?: string;
  concurrency?: number;
  options?: Partial<WorkerOptions>;
  /** `token` is the lock token BullMQ needs to move the job (e.g. back to delayed). */
  process: (data: JobOf<K>, job: Job, token: string | undefined) => Promise<void>;
  /**
   * Called when the job's last attempt fails (not one a shutdown cut short), instead of leaving
   * it failed: what the job was for is settled another way (a receipt rejected as unreadable).
   */
  exhausted?: (data: JobOf<K>, err: Error) => Promise<void>;
}

/** How long a job handed back at shutdown waits before another worker may take it. */
const HAND_BACK_DELAY_MS = 1_000;

/** The jobs each worker is running, by id, with when each started: what a close that overruns waits for. */
const runningJobs = new WeakMap<Worker, Map<string, number>>();

/**
 * What a worker's close still waits for, for a shutdown that overruns to say: its running jobs
 * (id and seconds so far), or, with none, BullMQ's own close (its blocking connection).
 */
export function workerActivity(worker: Worker, now = Date.now()): string {
  const jobs = [...(runningJobs.get(worker) ?? [])];
  if (jobs.length === 0) return worker.closing ? 'no job running; BullMQ closing its connections' : 'idle';
  return jobs.map(([id, since]) => `job ${id} running ${Math.round((now - since) / 1000)} s`).join(', ');
}

/**
 * The one way to consume a queue: validates the job, logs failures with the job id, counts
 * outcomes and reports the queue's depth in /metrics (`queue_jobs_total`, `queue_jobs`), and
 * closes on shutdown after the running jobs finish. A job that a shutdown cut short (its
 * process throws `ShutdownAbort`) goes back to the queue without using one of its attempts.
 * A worker that stops taking jobs while they wait asks for a restart (watchProgress).
 */
export function startWorker<K extends QueueKey>(setup: WorkerSetup<K>): Worker {
  const spec = Queues[setup.queue];
  const log = setup.logger.child({ queue: spec.name });
  const concurrency = setup.concurrency ?? 10;
  let started = 0;
  const worker = new Worker(
    spec.name,
    async (job, token) => {
      started++;
      assertValid(spec.schema, job.data, { what: `Job ${job.id} of ${spec.name}` });
      const running = runningJobs.get(worker)!;
      const key = `${job.id}#${job.attemptsMade}`;
      running.set(key, Date.now());
      try {
        await setup.process(job.data as JobOf<K>, job, token);
      } catch (err) {
        // Given up by a shutdown, not failed: handed back as it was, its attempts untouched,
        // for another process (or this one, restarted) to run. A second later, not at once:
        // this worker, closing now since its engines are, could otherwise fetch it again first.
        if (err instanceof ShutdownAbort && token) {
          log.info({ jobId: job.id, reason: err.message }, 'job handed back: the process is shutting down');
          void worker.close();
          await job.moveToDelayed(Date.now() + HAND_BACK_DELAY_MS, token);
          throw new DelayedError();
        }
        if (setup.exhausted && job.attemptsMade + 1 >= (job.opts.attempts ?? 1)) {
          log.error({ jobId: job.id, err }, 'job failed on its last attempt');
          await setup.exhausted(job.data as JobOf<K>, err as Error);
          return;
        }
        throw err;
      } finally {
        running.delete(key);
      }
    },
    {
      connection: setup.connection,
      prefix: setup.prefix,
      concurrency,
      ...setup.options,
    },
  );
  runningJobs.set(worker, new Map());
  worker.on('completed', () => queueJobOutcomes.inc({ queue: spec.name, outcome: 'completed' }));
  worker.on('failed', (job, err) => {
    queueJobOutcomes.inc({ queue: spec.name, outcome: 'failed' });
    log.warn({ jobId: job?.id, attempts: job?.attemptsMade, err: { message: err.message, name: err.name } }, 'job failed');
  });
  worker.on('error', (err) => log.error({ err }, 'worker error'));
  // Counts read through a Queue on the same connection (no blocking commands, so no new one).
  const counts = new Queue(spec.name, { connection: setup.connection, prefix: setup.prefix });
  const unwatch = watchQueueDepth(spec.name, () => counts.getJobCounts('waiting', 'active', 'delayed', 'failed'));
  const unwatchProgress = watchProgress({ worker, name: spec.name, counts, started: () => started, running: () => runningJobs.get(worker)!.size, concurrency, logger: setup.logger });
  worker.once('closed', () => {
    unwatch();
    unwatchProgress();
    counts.close().catch(() => undefined);
  });
  setup.lifecycle?.onShutdown(`worker:${spec.name}`, () => worker.close());
  return worker;
}
