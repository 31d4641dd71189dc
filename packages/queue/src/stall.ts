import type { Queue, Worker } from 'bullmq';
import { clearStuck, markStuck, type Logger } from '@pay/runtime';

/**
 * How often a consumer's progress is looked at. A BullMQ worker with a slot free blocks for a
 * job at most 10 s (its longest block) before asking for one again, so a waiting job is taken
 * well within one interval.
 */
export const PROGRESS_CHECK_MS = 30_000;

/** One look at a consumer: jobs ready for it, jobs it has started so far, and whether it had room. */
export interface Progress {
  waiting: number;
  started: number;
  slotFree: boolean;
}

/**
 * Stuck: jobs were waiting at both looks, a slot was free at both, and no job started between
 * them. A slot is filled only by starting a job, so it stayed free all along while jobs waited.
 */
export function isStuck(before: Progress | null, now: Progress): boolean {
  return before !== null && before.waiting > 0 && now.waiting > 0 && before.slotFree && now.slotFree && now.started === before.started;
}

/**
 * Where a stuck BullMQ worker waits, read from its internals for the log line (they are not
 * API, so each is optional): its main loop blocked on the queue's marker (`blocking`), the
 * state of its blocking connection, and the fetches and jobs its loop holds.
 */
function whereItWaits(worker: Worker): Record<string, unknown> {
  const w = worker as unknown as {
    waiting?: unknown;
    blockUntil?: number;
    drained?: boolean;
    mainLoopQueue?: { numTotal?: () => number } | null;
    backend?: { blockingConnection?: { _client?: { status?: string } } };
  };
  return {
    running: worker.isRunning(),
    blocking: w.waiting != null,
    blockUntil: w.blockUntil,
    drained: w.drained,
    loopHolds: w.mainLoopQueue?.numTotal?.(),
    blockingConnection: w.backend?.blockingConnection?._client?.status,
  };
}

/**
 * Looks at a consumer every `intervalMs` and marks it stuck (markStuck: /healthz answers 503)
 * when it leaves jobs waiting with a slot free and starts none (isStuck): a failure inside
 * BullMQ or ioredis that no error reports. Seen once in CI after a Redis Cluster failover: the
 * withdrawals worker took none of 76 waiting jobs for three minutes, logging nothing, while
 * other clients of the same cluster worked. The maintainers' advice for such a worker is to
 * replace it (taskforcesh/bullmq#3185); a restart of the process does, and loses nothing.
 * A paused or closing worker, or a look Redis did not answer, is no evidence either way.
 * Returns the function that stops watching.
 */
export function watchProgress(o: {
  worker: Worker;
  name: string;
  counts: Pick<Queue, 'getJobCounts'>;
  started: () => number;
  running: () => number;
  concurrency: number;
  logger: Logger;
  intervalMs?: number;
}): () => void {
  const part = `queue worker ${o.name}`;
  let before: Progress | null = null;
  let marked = false;
  const look = async () => {
    if (o.worker.closing || o.worker.isPaused()) {
      before = null;
      return;
    }
    const started = o.started();
    const slotFree = o.running() < o.concurrency;
    let waiting: number;
    try {
      const counts = await o.counts.getJobCounts('wait', 'prioritized');
      waiting = (counts.wait ?? 0) + (counts.prioritized ?? 0);
    } catch {
      before = null;
      return;
    }
    const now = { waiting, started, slotFree };
    if (isStuck(before, now)) {
      if (!marked) {
        o.logger.error({ queue: o.name, waiting, running: o.running(), concurrency: o.concurrency, worker: whereItWaits(o.worker) }, 'queue worker stuck: jobs waiting, a slot free, none started since the last look; /healthz asks for a restart');
        markStuck(part, `${waiting} jobs waiting, none started in ${(o.intervalMs ?? PROGRESS_CHECK_MS) / 1000} s with a slot free`);
        marked = true;
      }
    } else if (marked && before !== null && now.started !== before.started) {
      o.logger.info({ queue: o.name }, 'queue worker taking jobs again');
      clearStuck(part);
      marked = false;
    }
    before = now;
  };
  let looking = false;
  const timer = setInterval(() => {
    if (looking) return;
    looking = true;
    void look().finally(() => (looking = false));
  }, o.intervalMs ?? PROGRESS_CHECK_MS).unref();
  return () => {
    clearInterval(timer);
    clearStuck(part);
  };
}
