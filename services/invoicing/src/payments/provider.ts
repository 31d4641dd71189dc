import type { Money } from '@pay/money';
import type { Card } from './card';

export type PaymentMethod = 'sbp' | 'card';

/** What the provider is told when an invoice is created. */
export interface OrderRequest {
  invoiceId: string;
  amount: Money;
  currency: string;
  method: PaymentMethod;
  description: string | null;
  expiresAt: Date;
  merchantId: string;
  isTest: boolean;
  customerEmail?: string | null;
  customerPhone?: string | null;
  /**
   * The create request's Idempotency-Key: a provider that records its orders may find the one
   * an earlier attempt with this key opened (and answer its invoice id), so a retry after a
   * failure between the acquirer's answer and our commit opens no second acquirer payment.
   */
  idempotencyKey?: string | null;
}

/** The provider's order for one invoice. */
export interface ProviderOrder {
  /** The invoice the order was opened for: the one asked, or an earlier attempt's with the same Idempotency-Key. */
  invoiceId: string;
  /** The provider's id of the order (the invoice's `externalOrderId`). */
  externalOrderId: string;
  /** SBP: the link the QR code encodes (the payer's bank app opens it). */
  qrPayload?: string;
  /** Card: the provider's own card form. */
  originalPaymentUrl?: string;
}

/** A successful payment as the provider reports it (its success notification). */
export interface ProviderPayment {
  method: PaymentMethod;
  payerBank: string | null;
  /** SBP's own transaction id; null for cards. */
  sbpTransactionId: string | null;
}

/** `chargeId` is the provider's id of the money taken: what `voidCharge` gives back. */
export type ChargeResult = { ok: true; chargeId: string; payment: ProviderPayment } | { ok: false; reason: string };
/** `pending`: the acquirer took the refund and settles it later (asked again until it answers either way). */
export type RefundResult = { outcome: 'succeeded' } | { outcome: 'failed'; reason: string } | { outcome: 'pending' };
/** `ok: false`: the acquirer would not cancel (the payer has already paid, for one). */
export type CancelOrderResult = { ok: true } | { ok: false; reason: string };
export type VoidResult = { ok: true } | { ok: false; reason: string };

/**
 * An acquirer. The invoice code talks to this interface only, so a real
 * provider is one more implementation: `createOrder` at invoice creation, `chargeCard` from
 * the hosted card form (and `voidCharge` when the invoice could not take that charge),
 * `refund` for refunds; its success notifications end in `payInvoice`.
 */
export interface PaymentProvider {
  readonly name: string;
  /**
   * Where card numbers are typed: on our hosted page (`chargeCard`, the sandbox), or on the
   * acquirer's own form at `originalPaymentUrl`, where the hosted page sends the payer (a live
   * acquirer: card numbers never reach this service).
   */
  readonly cardEntry: 'hosted-page' | 'acquirer-page';
  /** The currencies it takes (an acquirer's, e.g. T-Bank: RUB only); every invoice currency when absent (the sandbox). */
  readonly currencies?: readonly string[];
  createOrder(req: OrderRequest): ProviderOrder | Promise<ProviderOrder>;
  /** Charges a card typed on the hosted page. The card lives only in this call: never stored, never logged. */
  chargeCard(order: { externalOrderId: string; amount: Money }, card: Card): Promise<ChargeResult>;
  /**
   * Gives back all of a charge whose invoice turned out not payable between the charge and
   * its recording (paid, expired or cancelled meanwhile, the customer blocked): the payer
   * keeps the money (a void before settlement, a full refund after, as the acquirer does it).
   * Idempotent per `chargeId`: voiding twice is one void.
   */
  voidCharge(req: { chargeId: string; externalOrderId: string; amount: Money }): Promise<VoidResult>;
  /**
   * Returns money; idempotent per `refundId`, so a retry after a crash never refunds twice.
   * `attempt`: the acquirer payment of a review (reviews/), when it is not the one that paid the invoice.
   */
  refund(req: { refundId: string; externalOrderId: string; amount: Money; attempt?: number }): Promise<RefundResult>;
  /** Closes the order of an invoice the merchant cancels, so it can no longer be paid. */
  cancelOrder(req: { externalOrderId: string }): Promise<CancelOrderResult>;
}

/** Test mode runs on the sandbox unless an acquirer's demo terminal is configured; live mode only on a provider the deployment configures. */
export interface PaymentProviders {
  test: PaymentProvider;
  live: PaymentProvider | null;
}
