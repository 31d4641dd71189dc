import type { Money } from '@pay/money';
import type { InvoicingQueries, Tables } from '../db';
import type { Tx } from '../transactions';
import type { attemptStatus } from './attempts';
import type { PaymentMethod, ProviderPayment } from './provider';

/**
 * What an acquirer asks of the invoices: the port the payments layer declares, so that it
 * imports no module (payments sits below them: invoices create orders through `provider.ts`,
 * and read attempts through `attempts.ts`). `modules/settlement/` implements it on the
 * invoices, reviews, refunds and receipts modules, and `compose.ts` wires it in as
 * `deps.settlement`. An acquirer keeps its own rows (its payments, refunds) and hands every
 * decision about an invoice's money to these calls, made in the transaction `locked` opens.
 */
export interface InvoiceSettlement {
  /** The invoice as an acquirer needs to know it before opening a fresh payment, or null. */
  invoiceOf(on: InvoicingQueries, invoiceId: string): Promise<InvoiceToPay | null>;
  /** Which of `invoiceIds` are invoices (an order opened for a create that never committed is not). */
  existingIds(on: InvoicingQueries, invoiceIds: string[]): Promise<Set<string>>;
  /** Points the invoice's QR code or card form at an acquirer payment (a fresh one after a decline). */
  setPaymentTarget(on: InvoicingQueries, invoiceId: string, target: { qrPayload: string; qrCode: string } | { originalPaymentUrl: string }): Promise<void>;
  /**
   * Runs `work` in one transaction holding the invoice's row lock, and hands it the invoice as
   * locked: every call below is made inside one, on that invoice, so none reads its row again.
   */
  locked<T>(invoiceId: string, work: (tx: Tx, invoice: LockedInvoice) => Promise<T>): Promise<T>;
  /**
   * The acquirer confirmed a payment of the invoice (its first word on it): pays it, leaves it
   * awaiting its receipt (decisions.md §10), or puts the money before the merchant as a review
   * (another amount, an invoice no longer payable), with `invoice.paid` or
   * `invoice.payment_review`. Says which, with the review's reason and text.
   */
  confirmed(tx: Tx, invoice: LockedInvoice, c: AcquirerConfirmation): Promise<ConfirmationOutcome>;
  /** The acquirer declined a payment: `invoice.payment_failed` while the invoice is PENDING. Returns whether it was. */
  declined(tx: Tx, invoice: LockedInvoice, attempt: DeclinedAttempt): Promise<boolean>;
  /**
   * A refund the acquirer made outside this service (the merchant in its own account): a
   * SUCCEEDED refund of the invoice, never past what is left of it. Returns the refund's id, or
   * null when nothing was left to refund.
   */
  refundedElsewhere(tx: Tx, invoice: LockedInvoice, amount: Money, reason: string): Promise<string | null>;
}

/**
 * The invoice `locked` holds, as `locked` handed it out: to the payments layer only its id (the
 * row itself is the invoices' own), passed back to the calls made under that lock.
 */
export interface LockedInvoice {
  readonly id: string;
}

/** What an acquirer reads of an invoice to open a payment for it. */
export interface InvoiceToPay {
  status: Tables.InvoiceStatus;
  expiresAt: Date;
  amount: Money;
  currency: string;
  description: string | null;
  customerEmail: string | null;
  customerPhone: string | null;
}

export interface AcquirerConfirmation {
  /** How the merchant knows the acquirer, in a review's text ("T-Bank"). */
  acquirer: string;
  /** What the payment asked, and what the acquirer took (in the invoice's currency). */
  asked: Money;
  taken: Money;
  takenAt: Date;
  /** `invoiceId:attempt`, the key a review of this payment's money carries. */
  paymentKey: string;
  payment: ProviderPayment;
}

export type ConfirmationOutcome = { outcome: 'paid' } | { outcome: 'awaiting_receipt' } | { outcome: 'review'; reason: string; detail: string };

export interface DeclinedAttempt {
  attempt: number;
  method: PaymentMethod;
  status: ReturnType<typeof attemptStatus>;
  acquirerStatus: string;
}
