import { oncePerScrape, scrapedGauge } from '@pay/runtime';
import type { CryptoDb } from '../../db';
import { processingSummary } from './store';

/** The database whose withdrawals this process reports (the processes running the withdrawal worker). */
let source: CryptoDb | null = null;

/** Reports withdrawals sent and not yet settled at every scrape, while the withdrawal worker runs here. */
export function watchWithdrawals(db: CryptoDb): () => void {
  source = db;
  return () => {
    if (source === db) source = null;
  };
}

/** One read per scrape, shared by both gauges; null while no withdrawal worker runs here, or the database is away. */
const processingNow = oncePerScrape(async () => {
  if (!source) return null;
  return processingSummary(source)
    .then((s) => ({ count: s.count, held: s.held, oldestSeconds: s.oldestProcessedAt ? Math.max(0, (Date.now() - s.oldestProcessedAt.getTime()) / 1000) : 0 }))
    .catch(() => null);
});

scrapedGauge(processingNow, 'crypto_withdrawals_processing', 'Withdrawals sent on chain (status Processing) and not yet Completed or Failed', (r) => r.count);

scrapedGauge(processingNow, 'crypto_withdrawal_oldest_processing_seconds', 'How long the oldest withdrawal in Processing has been since it was sent (0 when none is): a payout stuck on chain or a tracker that stopped', (r) => r.oldestSeconds);

scrapedGauge(
  processingNow,
  'crypto_payouts_held',
  'Payouts sent and held rather than replaced (stuck at the fee ceiling PAYOUT_MAX_FEE_GWEI_*, or the hot wallet short of gas or tokens): they wait, never failed',
  (r) => r.held,
);
