import { TRANSACTION_OPTIONS } from '@pay/db';
import type { CryptoDeps } from '../../deps';
import type { TransactionRecord as Transaction } from './transfers';
import { expireDueInvoices } from '../invoices/service';
import { applyTransferState, creditedBefore, pendingTransfers } from './transfers';
import { transfersToInvoice } from './fragments';
import { chainOf } from '../../chains/registry';

/** Older transfers first; the rest wait for the next pass. */
const BATCH = 500;

/** Which mode's transfers a tracker pass follows: each has its own loop, so sandbox load never delays live crediting. */
export type TrackedMode = 'live' | 'test';

/**
 * One pass over the chain's news: every Pending incoming transfer of the mode (both modes
 * unless told, each with its own batch) is asked about, then invoices whose time ran out are
 * closed. The background runs one loop per mode: test-mode transfers (any free test key can
 * make hundreds) never stand in front of live ones, in a batch or in time.
 *
 * The chain is asked outside any database transaction, and each change is applied in a
 * transaction of its own: a slow or failing chain call holds no lock, one bad transfer does
 * not hold back the others, and a balance lock is held for one transfer at a time (never
 * several in some order another tracker could take the other way round). Several crypto
 * instances can run trackers side by side: a transfer is applied only by the one that finds
 * it still as it read it.
 */
export async function trackTransfers(deps: CryptoDeps, mode?: TrackedMode): Promise<{ updated: number; expired: number }> {
  const modes: TrackedMode[] = mode ? [mode] : ['live', 'test'];
  const counts = await Promise.all(modes.map((m) => trackMode(deps, m === 'test')));
  const updated = counts.reduce((a, b) => a + b, 0);
  if (updated > 0) deps.kickOutbox();
  const expired = await expireDueInvoices(deps, transfersToInvoice);
  return { updated, expired };
}

async function trackMode(deps: CryptoDeps, isTest: boolean): Promise<number> {
  // Live mode without a live chain has nothing to follow (and no live transfer to follow).
  if (!isTest && deps.chains.live.size === 0) return 0;
  const pending = await pendingTransfers(deps, isTest, BATCH);
  let updated = 0;
  for (const t of pending) {
    try {
      const chain = chainOf(deps.chains, isTest, t.network);
      if (!chain) throw new Error(`no live ${t.network} connection: the transfer waits until one is configured`);
      const state = await chain.transferState(refOf(deps, t));
      if (state.state === 'pending' && state.confirmations === t.confirmations) continue;
      if (await deps.db.$transaction((tx) => applyTransferState(deps, tx, t, state), TRANSACTION_OPTIONS)) updated++;
    } catch (err) {
      deps.logger.error({ err, transactionId: t.id }, 'could not follow an incoming transfer; next pass retries');
    }
  }
  return updated;
}

function refOf(deps: CryptoDeps, t: Transaction) {
  return {
    creditedBefore: (block: number) => creditedBefore(deps, t, block),
    network: t.network,
    currency: t.currency,
    txHash: t.txHash,
    fromAddress: t.fromAddress,
    toAddress: t.toAddress,
    amount: t.amount.toFixed(),
    seenAt: t.createdAt,
    requiredConfirmations: t.requiredConfirmations,
  };
}
