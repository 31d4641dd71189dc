import type { Owner } from '@pay/auth';
import { ApiError } from '@pay/schemas';
import type { InvoicingDeps } from '../deps';
import { inTransaction } from '../transactions';
import { emitInvoiceEvent } from './events';
import { providerFor } from './invoices';
import { lockInvoice } from './payment';
import { notPendingError } from './rules';
import { INVOICE_COLUMNS, type InvoiceRow } from './store';

/**
 * The merchant cancels a PENDING invoice: the provider closes its order (so the payer can no
 * longer pay it at the acquirer), then CANCELLED and `invoice.cancelled` in one transaction.
 */
export async function cancelInvoice(deps: Pick<InvoicingDeps, 'db' | 'clock' | 'providers'>, owner: Owner, id: string): Promise<InvoiceRow> {
  // A cancel that will be refused must not close the acquirer's payment: checked first.
  const pending = await inTransaction(deps.db, async (tx) => {
    const invoice = await lockInvoice(tx, id, owner);
    const refusal = notPendingError(invoice, deps.clock.now(), 'cancel');
    if (refusal) throw refusal;
    return invoice;
  });
  const closed = await providerFor(deps, owner).cancelOrder({ externalOrderId: pending.external_order_id });
  if (!closed.ok) throw new ApiError('INVALID_STATE', `Cannot cancel invoice ${id}: the payment provider would not close its payment (${closed.reason})`);
  return inTransaction(deps.db, async (tx) => {
    const invoice = await lockInvoice(tx, id, owner);
    const now = deps.clock.now();
    const refusal = notPendingError(invoice, now, 'cancel');
    if (refusal) throw refusal;
    const [cancelled] = await tx.$queryRawUnsafe<InvoiceRow[]>(
      `UPDATE invoicing.invoices i SET status = 'CANCELLED', cancelled_at = $2 WHERE id = $1::uuid RETURNING ${INVOICE_COLUMNS}`,
      invoice.id,
      now,
    );
    await emitInvoiceEvent(tx, deps.clock, cancelled!, 'invoice.cancelled');
    return cancelled!;
  });
}
