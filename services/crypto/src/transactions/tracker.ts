import { TRANSACTION_OPTIONS } from '@pay/kit';
import type { CryptoDeps } from '../deps';
import type { Transaction } from '../generated/prisma/client';
import { expireDueInvoices } from '../invoices/invoices';
import { applyTransferState, pendingTransfers } from './transfers';
import { chainFor } from '../chain/chain';

/** Older transfers first; the rest wait for the next pass. */
const BATCH = 500;

/**
 * One pass over the chain's news: every Pending incoming transfer is asked about, then
 * invoices whose time ran out are closed.
 *
 * The chain is asked outside any database transaction, and each change is applied in a
 * transaction of its own: a slow or failing chain call holds no lock, one bad transfer does
 * not hold back the others, and a balance lock is held for one transfer at a time (never
 * several in some order another tracker could take the other way round). Several crypto
 * instances can run trackers side by side: a transfer is applied only by the one that finds
 * it still as it read it.
 */
export async function trackTransfers(deps: CryptoDeps): Promise<{ updated: number; expired: number }> {
  const pending = await pendingTransfers(deps, BATCH);
  let updated = 0;
  for (const t of pending) {
    const chain = chainFor(deps.chains, t.isTest);
    if (!chain) continue;
    try {
      const state = await chain.transferState(refOf(t));
      if (state.state === 'pending' && state.confirmations === t.confirmations) continue;
      if (await deps.db.$transaction((tx) => applyTransferState(deps, tx, t, state), TRANSACTION_OPTIONS)) updated++;
    } catch (err) {
      deps.logger.error({ err, transactionId: t.id }, 'could not follow an incoming transfer; next pass retries');
    }
  }
  if (updated > 0) deps.kickOutbox();
  const expired = await expireDueInvoices(deps);
  return { updated, expired };
}

function refOf(t: Transaction) {
  return {
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
