import type { Owner } from '@pay/auth';
import { ApiError } from '@pay/schemas';
import type { InvoicingDeps } from '../../deps';
import { inTransaction } from '../../transactions';
import { emitInvoiceEvent } from './events';
import { providerFor } from './invoices';
import { notPendingError } from './rules';
import { lockInvoice, markCancelled, selectInvoice, type InvoiceRow } from './store';

/**
 * The merchant cancels a PENDING invoice: the provider closes its order (so the payer can no
 * longer pay it at the acquirer), then CANCELLED and `invoice.cancelled` in one transaction.
 */
export async function cancelInvoice(deps: Pick<InvoicingDeps, 'db' | 'clock' | 'providers'>, owner: Owner, id: string): Promise<InvoiceRow> {
  // A cancel that will be refused must not close the acquirer's payment: checked first (and
  // again under the lock below, since the invoice may change during the provider's call).
  const pending = await selectInvoice(deps.db, owner, id);
  if (!pending) throw new ApiError('NOT_FOUND', `Invoice ${id} not found`);
  const early = notPendingError(pending, deps.clock.now(), 'cancel');
  if (early) throw early;
  const closed = await providerFor(deps, owner).cancelOrder({ externalOrderId: pending.external_order_id });
  if (!closed.ok) throw new ApiError('INVALID_STATE', `Cannot cancel invoice ${id}: the payment provider would not close its payment (${closed.reason})`);
  return inTransaction(deps.db, async (tx) => {
    const invoice = await lockInvoice(tx, id, owner);
    const now = deps.clock.now();
    const refusal = notPendingError(invoice, now, 'cancel');
    if (refusal) throw refusal;
    const cancelled = await markCancelled(tx, invoice.id, now);
    await emitInvoiceEvent(tx, deps.clock, cancelled, 'invoice.cancelled');
    return cancelled;
  });
}
