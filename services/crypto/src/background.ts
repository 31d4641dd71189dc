import { Queues, OutboxRelay, pruneOutbox } from '@pay/queue';
import { pruneIdempotencyKeys } from '@pay/http';
import { every, type Lifecycle } from '@pay/runtime';
import type { CryptoDeps } from './deps';
import { trackTransfers } from './modules/transactions/tracker';
import { recordFoundTransfers } from './modules/transactions/transfers';
import { reconcileWithdrawals, startWithdrawalWorker } from './modules/withdrawals/worker';
import { watchWithdrawals } from './modules/withdrawals/metrics';
import { checkSolvency } from './modules/solvency/solvency';
import { everyChain } from './chains/registry';

/** How often expired idempotency answers and long-published outbox rows are deleted. */
const HOUSEKEEPING_INTERVAL_MS = 60 * 60 * 1000;

/** Deletes what no longer serves: idempotency answers past their 24 h, outbox rows published a week ago. */
export async function housekeeping(deps: CryptoDeps): Promise<{ idempotencyKeys: number; outbox: number }> {
  const now = deps.clock.now();
  const idempotencyKeys = await pruneIdempotencyKeys(deps.db, now);
  const outbox = await pruneOutbox(deps.db, now);
  if (idempotencyKeys + outbox > 0) deps.logger.info({ idempotencyKeys, outbox }, 'housekeeping: pruned');
  return { idempotencyKeys, outbox };
}

/** Lets each chain find the incoming transfers that are new to it (the live watcher; the sandbox is told of its own). */
export async function watchChains(deps: CryptoDeps): Promise<void> {
  const record = async (found: Parameters<typeof recordFoundTransfers>[1]) => {
    await recordFoundTransfers(deps, found);
  };
  for (const chain of everyChain(deps.chains)) await chain.discover(record);
}

/**
 * The crypto service's work outside requests: the outbox relay, the withdrawal worker, the
 * chain watcher (finds incoming transfers on a live chain), the chain tracker (confirmations,
 * invoice expiry), the withdrawal reconciler, housekeeping and, on a live chain, the solvency
 * check (run by the replica that leads each network's watcher).
 * Ops can run it in the API processes (RUN_WORKERS=true) or in processes of its own.
 */
export function startBackground(deps: CryptoDeps, lifecycle?: Lifecycle) {
  const relay = new OutboxRelay({
    db: deps.db,
    connection: deps.queueRedis,
    logger: deps.logger,
    prefix: deps.config.QUEUE_PREFIX,
    intervalMs: deps.config.OUTBOX_INTERVAL_MS,
  });
  relay.start();
  const worker = startWithdrawalWorker(deps);
  const unwatch = watchWithdrawals(deps.db);
  // One tracker loop per mode: sandbox load (any free test key) never delays live crediting.
  const tracker = every('chain-tracker-live', deps.config.TRACKER_INTERVAL_MS, () => trackTransfers(deps, 'live'), deps.logger);
  const testTracker = every('chain-tracker-test', deps.config.TRACKER_INTERVAL_MS, () => trackTransfers(deps, 'test'), deps.logger);
  const watcher = every('chain-watcher', deps.config.EVM_WATCH_INTERVAL_MS, () => watchChains(deps), deps.logger);
  const reconciler = every(
    'withdrawal-reconciler',
    deps.config.RECONCILE_INTERVAL_MS,
    () => reconcileWithdrawals(deps, relay.queue(Queues.withdrawals.name)),
    deps.logger,
  );
  const cleaner = every('housekeeping', HOUSEKEEPING_INTERVAL_MS, () => housekeeping(deps), deps.logger);
  const holdings = everyChain(deps.chains).flatMap((c) => (c.holdings ? [c.holdings] : []));
  const solvency =
    holdings.length > 0
      ? every('solvency', deps.config.SOLVENCY_INTERVAL_MS, async () => (await Promise.all(holdings.map((h) => checkSolvency(deps, h)))).flat(), deps.logger)
      : null;
  const stop = async () => {
    await Promise.all([tracker.stop(), testTracker.stop(), watcher.stop(), reconciler.stop(), cleaner.stop(), solvency?.stop()]);
    await worker.close();
    unwatch();
    await relay.stop();
  };
  lifecycle?.onShutdown('background', stop);
  return { relay, worker, tracker, testTracker, watcher, reconciler, solvency, stop };
}
