import { randomBytes, randomUUID } from 'node:crypto';
import type { Card } from './card';
import type { ChargeResult, OrderRequest, PaymentProvider, ProviderOrder, RefundResult } from './provider';

/** Stripe's convention: this number is always declined, every other valid card is approved. */
export const SANDBOX_DECLINED_CARD = '4000000000000002';

/** An SBP transaction id as banks print them: a letter and 31 upper-case hex digits. */
export function sandboxSbpTransactionId(): string {
  return `A${randomBytes(16).toString('hex').toUpperCase().slice(0, 31)}`;
}

/**
 * The shipped provider: no money moves. Its SBP "bank app" and its card form are pages of this
 * service (`/pay/{id}/sbp`, `/pay/{id}/card`); test mode's sandbox endpoint does what its
 * success notification would.
 */
export class SandboxProvider implements PaymentProvider {
  readonly name = 'sandbox';

  constructor(private readonly publicUrl: string) {}

  createOrder(req: OrderRequest): ProviderOrder {
    const externalOrderId = randomUUID();
    const page = `${this.publicUrl}/pay/${req.invoiceId}`;
    return req.method === 'sbp' ? { externalOrderId, qrPayload: `${page}/sbp` } : { externalOrderId, originalPaymentUrl: `${page}/card` };
  }

  async chargeCard(_order: { externalOrderId: string }, card: Card): Promise<ChargeResult> {
    if (card.number === SANDBOX_DECLINED_CARD) return { ok: false, reason: 'The card was declined by the issuer (sandbox test card)' };
    return { ok: true, payment: { method: 'card', payerBank: null, sbpTransactionId: null } };
  }

  async refund(): Promise<RefundResult> {
    return { ok: true };
  }
}
