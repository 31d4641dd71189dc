import { DelayedError, Queue, type Worker } from 'bullmq';
import { requeueJobs, startWorker } from '@pay/queue';
import type { Lifecycle } from '@pay/runtime';
import type { CryptoDeps } from '../../deps';
import { advanceWithdrawal } from './processing';
import { openWithdrawalIds } from './store';

/**
 * Consumes withdrawal jobs. A step that must wait for confirmations puts its job back as
 * delayed instead of holding a worker slot while the chain catches up.
 */
export function startWithdrawalWorker(deps: CryptoDeps, lifecycle?: Lifecycle): Worker {
  return startWorker({
    queue: 'withdrawals',
    connection: deps.queueRedis,
    prefix: deps.config.QUEUE_PREFIX,
    logger: deps.logger,
    lifecycle,
    concurrency: 20,
    process: async ({ withdrawalId }, job, token) => {
      const step = await advanceWithdrawal(deps, withdrawalId);
      if (step === 'again') {
        await job.moveToDelayed(Date.now() + deps.config.WITHDRAWAL_POLL_MS, token);
        throw new DelayedError();
      }
    },
  });
}

/**
 * Redis keeps nothing on disk: after a Redis loss, or a job that ran out of attempts, a
 * withdrawal could sit in Pending or Processing with no job. This puts a job back for every
 * such withdrawal; the job id is the withdrawal id, so one that still has a job is skipped.
 */
export async function reconcileWithdrawals(deps: CryptoDeps, queue: Queue): Promise<number> {
  const open = await openWithdrawalIds(deps.db, 1000);
  return requeueJobs(queue, 'withdrawals', open.map((id) => ({ jobId: id, data: { withdrawalId: id } })));
}
