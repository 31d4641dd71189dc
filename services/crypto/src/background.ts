import { Queues, OutboxRelay } from '@pay/queue';
import { every, type Lifecycle } from '@pay/kit';
import type { CryptoDeps } from './deps';
import { trackTransfers } from './transactions/tracker';
import { reconcileWithdrawals, startWithdrawalWorker, WITHDRAWAL_JOB_OPTIONS } from './withdrawals/worker';

/** How often withdrawals without a job are looked for (see reconcileWithdrawals). */
const RECONCILE_INTERVAL_MS = 30_000;

/**
 * The crypto service's work outside requests: the outbox relay, the withdrawal worker, the
 * chain tracker (confirmations, invoice expiry) and the withdrawal reconciler. Ops can run
 * it in the API processes (RUN_WORKERS=true) or in processes of its own.
 */
export function startBackground(deps: CryptoDeps, lifecycle?: Lifecycle) {
  const relay = new OutboxRelay({
    db: deps.db,
    connection: deps.redis,
    logger: deps.logger,
    prefix: deps.config.QUEUE_PREFIX,
    intervalMs: deps.config.OUTBOX_INTERVAL_MS,
    jobOptions: { [Queues.withdrawals.name]: WITHDRAWAL_JOB_OPTIONS },
  });
  relay.start();
  const worker = startWithdrawalWorker(deps);
  const tracker = every('chain-tracker', deps.config.TRACKER_INTERVAL_MS, () => trackTransfers(deps), deps.logger);
  const reconciler = every(
    'withdrawal-reconciler',
    RECONCILE_INTERVAL_MS,
    () => reconcileWithdrawals(deps, relay.queue(Queues.withdrawals.name)),
    deps.logger,
  );
  const stop = async () => {
    await Promise.all([tracker.stop(), reconciler.stop()]);
    await worker.close();
    await relay.stop();
  };
  lifecycle?.onShutdown('background', stop);
  return { relay, worker, tracker, reconciler, stop };
}
