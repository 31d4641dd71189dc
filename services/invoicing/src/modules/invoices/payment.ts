import type { Owner } from '@pay/auth';
import { money } from '@pay/money';
import { ApiError } from '@pay/schemas';
import type { InvoicingDeps } from '../../deps';
import type { ProviderPayment } from '../../payments/provider';
import { countPayment, lockPayer, type CustomerRow } from '../customers/payers';
import { inTransaction, type Tx } from '../../transactions';
import { emitInvoiceEvent } from './events';
import { notPendingError } from './rules';
import { lockInvoice, markPaid, type InvoiceRow } from './store';

/** Exceptions to "PENDING and not past expiresAt", each for one caller. */
export interface PayOptions {
  /** The acquirer confirmed the payment (before its RedirectDueDate, which is expiresAt). */
  confirmedInTime?: boolean;
  /** The merchant accepted a review: the money came in, whatever the clock says. */
  acceptedByMerchant?: boolean;
}

/**
 * Throws the refusal when the locked invoice cannot be paid now (not PENDING or past expiry,
 * the customer blocked, KYC required and not done); otherwise returns its payer, locked.
 * Writes nothing.
 */
async function lockPayerIfPayable(tx: Tx, invoice: InvoiceRow, now: Date, how: PayOptions = {}): Promise<CustomerRow | null> {
  // The merchant's own decision (a review accepted) pays a PENDING or EXPIRED invoice; an
  // acquirer's confirmation was made before its RedirectDueDate (= expiresAt), so it counts
  // even when heard after expiresAt, as long as the invoice is still PENDING.
  const allowed = (how.acceptedByMerchant && (invoice.status === 'PENDING' || invoice.status === 'EXPIRED')) || (how.confirmedInTime && invoice.status === 'PENDING');
  const refusal = allowed ? null : notPendingError(invoice, now, 'pay');
  if (refusal) throw refusal;
  const payer = await lockPayer(tx, invoice);
  if (payer?.is_blocked) throw new ApiError('CUSTOMER_BLOCKED', 'This customer is blocked by the merchant and cannot pay its invoices');
  if (invoice.kyc_required && !invoice.kyc_verified && payer?.kyc_status !== 'VERIFIED') {
    throw new ApiError('KYC_REQUIRED', `Invoice ${invoice.id} requires identity verification (KYC) before it can be paid`);
  }
  return payer;
}

/**
 * Throws `payInvoice`'s refusal if the invoice could not be paid now, and writes nothing: for
 * a payment that takes money before it is recorded (the card form), so a provider is never
 * asked to charge for an invoice that would refuse the payment. The invoice may still change
 * before the payment is written; that caller voids its charge then (see the card route).
 */
export async function assertPayable(deps: Pick<InvoicingDeps, 'db' | 'clock'>, id: string): Promise<InvoiceRow> {
  return inTransaction(deps.db, async (tx) => {
    const invoice = await lockInvoice(tx, id);
    await lockPayerIfPayable(tx, invoice, deps.clock.now());
    return invoice;
  });
}

/**
 * THE payment of an invoice, whatever reports it (the provider's success notification, the
 * sandbox endpoint, the hosted page's card form, an approved receipt): under the invoice's
 * lock, it checks the invoice can be paid (PENDING and not past expiry, the customer not
 * blocked, KYC done when required), then sets PAID and `paidAt`, finds or creates the
 * customer and counts the payment (totals, trust level), and records `invoice.paid`, all in
 * one transaction. A refusal writes nothing.
 */
export async function payInvoice(deps: Pick<InvoicingDeps, 'db' | 'clock'>, target: { id: string; owner?: Owner }, payment: ProviderPayment): Promise<InvoiceRow> {
  return inTransaction(deps.db, async (tx) => payLockedInvoice(tx, deps, await lockInvoice(tx, target.id, target.owner), payment));
}

/**
 * `payInvoice`'s work inside the caller's transaction, on an invoice it has locked
 * (`lockInvoice`): for a change that must commit with the payment (an approved receipt). Every
 * refusal is thrown before anything is written, so the caller may catch it and go on.
 */
export async function payLockedInvoice(tx: Tx, deps: Pick<InvoicingDeps, 'clock'>, invoice: InvoiceRow, payment: ProviderPayment, how: PayOptions = {}): Promise<InvoiceRow> {
  const now = deps.clock.now();
  const payer = await lockPayerIfPayable(tx, invoice, now, how);
  const customerId = await countPayment(tx, invoice, payer, money(invoice.amount), now);
  const paid = await markPaid(tx, invoice.id, { at: now, customerId, method: payment.method, payerBank: payment.payerBank, sbpTransactionId: payment.sbpTransactionId });
  await emitInvoiceEvent(tx, deps.clock, paid, 'invoice.paid');
  return paid;
}
