import type { Owner } from '@pay/auth';
import type { InvoicingDeps } from '../deps';
import { inTransaction } from '../transactions';
import { emitInvoiceEvent } from './events';
import { notPendingError } from './rules';
import { lockInvoice, markCancelled, type InvoiceRow } from './store';

/** The merchant cancels a PENDING invoice: CANCELLED, `invoice.cancelled`, one transaction. */
export async function cancelInvoice(deps: Pick<InvoicingDeps, 'db' | 'clock'>, owner: Owner, id: string): Promise<InvoiceRow> {
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
