import { randomBytes, randomUUID } from 'node:crypto';
import type { Card } from './card';
import type { Money } from '@pay/money';
import type { CancelOrderResult, ChargeResult, OrderRequest, PaymentProvider, ProviderOrder, RefundResult, VoidResult } from './provider';

/** Stripe's convention: this number is always declined, every other valid card is approved. */
export const SANDBOX_DECLINED_CARD = '4000000000000002';

/** An SBP transaction id as banks print them: a letter and 31 upper-case hex digits. */
export function sandboxSbpTransactionId(): string {
  return `A${randomBytes(16).toString('hex').toUpperCase().slice(0, 31)}`;
}

/** How many of its latest card charges the sandbox keeps (see SandboxProvider.charges). */
const KEPT_CHARGES = 10_000;

/** A card charge as the sandbox acquirer keeps it. */
export interface SandboxCharge {
  chargeId: string;
  externalOrderId: string;
  amount: string;
  status: 'captured' | 'voided';
}

/**
 * The shipped provider: no money moves. Its SBP "bank app" and its card form are pages of this
 * service (`/pay/{id}/sbp`, `/pay/{id}/card`); test mode's sandbox endpoint does what its
 * success notification would.
 */
export class SandboxProvider implements PaymentProvider {
  readonly name = 'sandbox';
  readonly cardEntry = 'hosted-page';
  /**
   * The charges it made, as an acquirer's dashboard would show them (in memory: no money
   * moves, and a restart is a new sandbox): what the payer was charged, and what was voided.
   * Only the last KEPT_CHARGES: a void follows its charge within the same request, and a
   * long-running test-mode process must not grow with every card payment.
   */
  private readonly charges = new Map<string, SandboxCharge>();

  constructor(private readonly publicUrl: string) {}

  createOrder(req: OrderRequest): ProviderOrder {
    const externalOrderId = randomUUID();
    const page = `${this.publicUrl}/pay/${req.invoiceId}`;
    const invoiceId = req.invoiceId;
    return req.method === 'sbp' ? { invoiceId, externalOrderId, qrPayload: `${page}/sbp` } : { invoiceId, externalOrderId, originalPaymentUrl: `${page}/card` };
  }

  async chargeCard(order: { externalOrderId: string; amount: Money }, card: Card): Promise<ChargeResult> {
    if (card.number === SANDBOX_DECLINED_CARD) return { ok: false, reason: 'The card was declined by the issuer (sandbox test card)' };
    const chargeId = randomUUID();
    if (this.charges.size >= KEPT_CHARGES) this.charges.delete(this.charges.keys().next().value!);
    this.charges.set(chargeId, { chargeId, externalOrderId: order.externalOrderId, amount: order.amount.toFixed(2), status: 'captured' });
    return { ok: true, chargeId, payment: { method: 'card', payerBank: null, sbpTransactionId: null } };
  }

  async voidCharge(req: { chargeId: string; externalOrderId: string }): Promise<VoidResult> {
    const charge = this.charges.get(req.chargeId);
    if (!charge || charge.externalOrderId !== req.externalOrderId) return { ok: false, reason: `No charge ${req.chargeId} for order ${req.externalOrderId}` };
    charge.status = 'voided';
    return { ok: true };
  }

  /** The charges made for one order (one invoice), oldest first. */
  chargesOf(externalOrderId: string): SandboxCharge[] {
    return [...this.charges.values()].filter((c) => c.externalOrderId === externalOrderId).map((c) => ({ ...c }));
  }

  async refund(): Promise<RefundResult> {
    return { outcome: 'succeeded' };
  }

  /** No money moved yet, and the invoice's own state refuses any later payment: nothing to close. */
  async cancelOrder(): Promise<CancelOrderResult> {
    return { ok: true };
  }
}
