import type { CryptoDeps } from '../deps';
import type { Transaction } from '../generated/prisma/client';
import { expireDueInvoices } from '../invoices/invoices';
import { applyTransferState } from './transfers';
import { chainFor } from '../chain/chain';

/** Older transfers first; the rest wait for the next pass. */
const BATCH = 500;

/**
 * One pass over the chain's news: every Pending incoming transfer is asked about, then
 * invoices whose time ran out are closed. Rows are claimed with SKIP LOCKED, so several
 * crypto instances can run trackers side by side.
 */
export async function trackTransfers(deps: CryptoDeps): Promise<{ updated: number; expired: number }> {
  const updated = await deps.db.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM transactions WHERE status = 'Pending'
      ORDER BY created_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`;
    if (rows.length === 0) return 0;
    const pending = await tx.transaction.findMany({ where: { id: { in: rows.map((r) => r.id) } } });
    let changed = 0;
    for (const t of pending) {
      const chain = chainFor(deps.chains, t.isTest);
      if (!chain) continue;
      const state = await chain.transferState(refOf(t));
      if (state.state !== 'pending' || state.confirmations !== t.confirmations) changed++;
      await applyTransferState(deps, tx, t, state);
    }
    return changed;
  });
  if (updated > 0) deps.kickOutbox();
  const expired = await expireDueInvoices(deps);
  return { updated, expired };
}

function refOf(t: Transaction) {
  return {
    network: t.network,
    txHash: t.txHash,
    fromAddress: t.fromAddress,
    toAddress: t.toAddress,
    seenAt: t.createdAt,
    requiredConfirmations: t.requiredConfirmations,
  };
}
