import type { Tables } from '../../db';

type InvoiceStatus = Tables.InvoiceStatus;

/**
 * Every status change an invoice may make, in one table: the invoices store (store.ts) writes
 * a status only along these edges, as a condition of the UPDATE itself, so a change the table
 * does not allow is refused and never written, whatever the caller checked before.
 *
 * - PENDING → PAID: `payInvoice` (a provider's confirmation, the sandbox, the card form, an
 *   approved receipt), or a review the merchant accepted.
 * - PENDING → EXPIRED: the expiry, once `expiresAt` has passed.
 * - PENDING → CANCELLED: the merchant cancels.
 * - EXPIRED → PAID: only the merchant's accepting a review of money that came after the expiry
 *   (`acceptedByMerchant` in payment.ts).
 * - PAID and CANCELLED are final (refunds change `refundedAmount`, never the status).
 */
export const INVOICE_TRANSITIONS: Readonly<Record<InvoiceStatus, readonly InvoiceStatus[]>> = {
  PENDING: ['PAID', 'EXPIRED', 'CANCELLED'],
  EXPIRED: ['PAID'],
  PAID: [],
  CANCELLED: [],
};

/** Whether an invoice in `from` may become `to`. */
export function canMove(from: InvoiceStatus, to: InvoiceStatus): boolean {
  return INVOICE_TRANSITIONS[from].includes(to);
}

/** The statuses an invoice may become `to` from: the store's condition on a status write. */
export function statusesBefore(to: InvoiceStatus): InvoiceStatus[] {
  return (Object.keys(INVOICE_TRANSITIONS) as InvoiceStatus[]).filter((from) => canMove(from, to));
}

/** A status write the table does not allow (or of an invoice that is not there): nothing was written. */
export class InvoiceTransitionRefused extends Error {
  constructor(
    readonly invoiceId: string,
    readonly to: InvoiceStatus,
  ) {
    super(`invoice ${invoiceId} cannot become ${to} from its status (modules/invoices/transitions.ts); nothing was written`);
    this.name = 'InvoiceTransitionRefused';
  }
}
