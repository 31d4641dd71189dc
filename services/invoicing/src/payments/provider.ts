import type { Money } from '@pay/kit';
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
}

/** The provider's order for one invoice. */
export interface ProviderOrder {
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
export type RefundResult = { ok: true } | { ok: false; reason: string };
export type VoidResult = { ok: true } | { ok: false; reason: string };

/**
 * An acquirer. The invoice code talks to this interface only, so a real
 * provider is one more implementation: `createOrder` at invoice creation, `chargeCard` from
 * the hosted card form (and `voidCharge` when the invoice could not take that charge),
 * `refund` for refunds; its success notifications end in `payInvoice`.
 */
export interface PaymentProvider {
  readonly name: string;
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
  /** Returns money; idempotent per `refundId`, so a retry after a crash never refunds twice. */
  refund(req: { refundId: string; externalOrderId: string; amount: Money }): Promise<RefundResult>;
}

/** Test mode always runs on the sandbox; live mode only on a provider the deployment configures. */
export interface PaymentProviders {
  test: PaymentProvider;
  live: PaymentProvider | null;
}
