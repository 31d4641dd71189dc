import { IDEMPOTENCY_TTL_MS } from '@pay/http';
import { type Clock, type Logger } from '@pay/runtime';
import { money, type Money } from '@pay/money';
import type { InvoicingQueries } from '../../db';
import { ApiError } from '@pay/schemas';
import type { InvoiceSettlement } from '../settlement';
import type { CancelOrderResult, ChargeResult, OrderRequest, PaymentProvider, ProviderOrder, RefundResult, VoidResult } from '../provider';
import { AcquirerRefused, AcquirerUnavailable, type TBankClient } from './client';
import { isUniqueViolation } from '@pay/db';
import { qrPngDataUri } from '../qr';
import { DECLINED_STATUSES, INIT_STATUS, type AcquirerPaymentRow, type AcquirerPayments, type AcquirerRefundRow } from '../store/payments';

/** Rubles to the acquirer's kopecks, exactly (amounts are kept to 2 places; anything else is a bug here). */
export function toKopecks(amount: Money): number {
  const kopecks = amount.mul(100);
  if (!kopecks.isInteger()) throw new Error(`amount ${amount.toFixed()} has more than 2 decimal places`);
  return kopecks.toNumber();
}

/** `YYYY-MM-DDTHH24:MI:SS+GMT` as the documentation writes RedirectDueDate, in UTC, rounded up to the second. */
export function redirectDueDate(at: Date): string {
  const whole = new Date(Math.ceil(at.getTime() / 1000) * 1000);
  return `${whole.toISOString().slice(0, 19)}+00:00`;
}

/** Cancel answers that mean the refund is done, or taken and settling (SBP refunds are asynchronous). */
const REFUNDED = new Set(['REFUNDED', 'PARTIAL_REFUNDED']);
const REFUNDING = new Set(['REFUNDING', 'ASYNC_REFUNDING']);
/** Statuses in which the payer has not paid yet: Cancel closes the payment without moving money. */
const CANCELLABLE = new Set(['NEW', 'FORM_SHOWED']);

/** The acquirer's state of one payment, as GetState (and CheckOrder for SBP's id) report it. */
export interface AcquirerState {
  status: string;
  /** What the payment holds now: paid, less refunds (GetState's Amount). */
  amountKopecks: number;
  sbpTransactionId: string | null;
  /** The payer's bank as GetState's Params name it (`BankName`), or null. */
  payerBank: string | null;
}

/**
 * T-Bank's internet acquiring (API v2) behind the PaymentProvider interface. An order is an
 * acquirer payment: Init (OrderId = the invoice id, Amount in kopecks, RedirectDueDate =
 * expiresAt, NotificationURL, the customer's e-mail and phone in DATA), then for SBP GetQr
 * (PAYLOAD: the link the QR encodes). Cards are typed on the acquirer's form (PaymentURL).
 * Refunds and cancels are Cancel. Every payment is recorded (acquirer_payments) before Init
 * and with each answer, so no payment the acquirer made is unknown here.
 */
export class TBankProvider implements PaymentProvider {
  readonly name = 'tbank';
  readonly cardEntry = 'acquirer-page';
  readonly currencies = ['RUB'] as const;

  constructor(
    readonly client: TBankClient,
    readonly payments: AcquirerPayments,
    private readonly notificationUrl: string,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** The invoices' side (payments/settlement.ts): what an invoice is, and where its payer pays. */
    private readonly invoices: Pick<InvoiceSettlement, 'invoiceOf' | 'existingIds' | 'setPaymentTarget'>,
  ) {}

  async createOrder(req: OrderRequest): Promise<ProviderOrder> {
    if (!this.currencies.includes(req.currency as 'RUB')) {
      throw new ApiError('CURRENCY_NOT_ENABLED', `The payment provider (T-Bank) takes rubles only; this invoice is in ${req.currency}`, [{ field: 'currency', message: 'must be RUB' }]);
    }
    const amountKopecks = toKopecks(req.amount);
    const now = this.clock.now();
    let payment: AcquirerPaymentRow | null = null;
    if (req.idempotencyKey) {
      // An earlier attempt with this key that died between the acquirer's answer and the invoice's
      // commit: its acquirer payment is this request's, so the acquirer has one payment per key.
      const earlier = await this.payments.findAttempt({
        merchantId: req.merchantId,
        idempotencyKey: req.idempotencyKey,
        method: req.method,
        amountKopecks: BigInt(amountKopecks),
        since: new Date(now.getTime() - IDEMPOTENCY_TTL_MS),
      });
      // Its invoice was made (the same key used on another create path): not an attempt to resume.
      if (earlier && (await this.invoices.existingIds(this.payments.on, [earlier.invoiceId])).size === 0) payment = earlier;
    }
    const adopted = payment !== null;
    payment ??= await this.payments.begin(
      { invoiceId: req.invoiceId, merchantId: req.merchantId, isTest: req.isTest, method: req.method, amountKopecks: BigInt(amountKopecks), idempotencyKey: req.idempotencyKey ?? null },
      now,
    );
    try {
      if (!payment.paymentId) payment = await this.init(payment, req, amountKopecks, adopted);
      if (req.method === 'sbp' && !payment.qrPayload) {
        const qr = await this.client.call('GetQr', { PaymentId: payment.paymentId, DataType: 'PAYLOAD' });
        payment = await this.payments.record(payment, { qrPayload: String(qr.Data) }, this.clock.now());
      }
    } catch (err) {
      if (!req.idempotencyKey && payment.paymentId) await this.closeQuietly(payment.paymentId);
      throw asApiError(err);
    }
    return req.method === 'sbp'
      ? { invoiceId: payment.invoiceId, externalOrderId: payment.invoiceId, qrPayload: payment.qrPayload! }
      : { invoiceId: payment.invoiceId, externalOrderId: payment.invoiceId, originalPaymentUrl: payment.paymentUrl! };
  }

  private async init(payment: AcquirerPaymentRow, req: OrderRequest, amountKopecks: number, adopted: boolean): Promise<AcquirerPaymentRow> {
    // An earlier attempt's Init may have reached the acquirer and its answer been lost: such
    // payments are closed first (CheckOrder lists them), so the order never has two payable.
    if (adopted) {
      const order = await this.client.call('CheckOrder', { OrderId: payment.invoiceId });
      for (const p of (order.Payments as { PaymentId: string; Status: string }[] | undefined) ?? []) {
        if (p.Status === 'NEW' || p.Status === 'FORM_SHOWED') await this.closeQuietly(String(p.PaymentId));
      }
    }
    const data: Record<string, string> = {};
    if (req.customerEmail) data.Email = req.customerEmail;
    if (req.customerPhone) data.Phone = req.customerPhone;
    const init = await this.client.call('Init', {
      Amount: amountKopecks,
      OrderId: payment.invoiceId,
      ...(req.description ? { Description: req.description.slice(0, 140) } : {}),
      RedirectDueDate: redirectDueDate(req.expiresAt),
      NotificationURL: this.notificationUrl,
      ...(Object.keys(data).length ? { DATA: data } : {}),
    });
    return this.payments.record(payment, { paymentId: String(init.PaymentId), paymentUrl: String(init.PaymentURL ?? ''), status: String(init.Status ?? 'NEW') }, this.clock.now());
  }

  /**
   * After a decline: a fresh acquirer payment (a new Init, and GetQr for SBP) for the invoice,
   * which then shows its QR or form link, so the payer can try again. Only when the latest
   * attempt was declined (or its Init never answered) and the invoice is still payable; two
   * callers at once make one (the attempt number is unique). Returns the attempt, or null.
   */
  async openNextAttempt(on: InvoicingQueries, invoiceId: string): Promise<AcquirerPaymentRow | null> {
    const invoice = await this.invoices.invoiceOf(on, invoiceId);
    const latest = await this.payments.byInvoice(invoiceId);
    if (!invoice || !latest || invoice.status !== 'PENDING' || invoice.expiresAt.getTime() <= this.clock.now().getTime()) return null;
    const resuming = latest.status === INIT_STATUS && latest.attempt > 1;
    if (!resuming && !DECLINED_STATUSES.has(latest.status)) return null;
    let payment = latest;
    if (!resuming) {
      try {
        payment = await this.payments.begin(
          { invoiceId, merchantId: latest.merchantId, isTest: latest.isTest, method: latest.method, amountKopecks: latest.amountKopecks, idempotencyKey: null },
          this.clock.now(),
          latest.attempt + 1,
        );
      } catch (err) {
        if (isUniqueViolation(err)) return null; // another process opened it
        throw err;
      }
    }
    const req: OrderRequest = {
      invoiceId,
      amount: invoice.amount,
      currency: invoice.currency,
      method: latest.method,
      description: invoice.description,
      expiresAt: invoice.expiresAt,
      merchantId: latest.merchantId,
      isTest: latest.isTest,
      customerEmail: invoice.customerEmail,
      customerPhone: invoice.customerPhone,
    };
    // Resuming an Init whose answer was lost: CheckOrder closes what it may have opened.
    if (!payment.paymentId) payment = await this.init(payment, req, Number(latest.amountKopecks), resuming);
    if (payment.method === 'sbp' && !payment.qrPayload) {
      const qr = await this.client.call('GetQr', { PaymentId: payment.paymentId, DataType: 'PAYLOAD' });
      payment = await this.payments.record(payment, { qrPayload: String(qr.Data) }, this.clock.now());
    }
    await this.invoices.setPaymentTarget(on, invoiceId, payment.method === 'sbp' ? { qrPayload: payment.qrPayload!, qrCode: qrPngDataUri(payment.qrPayload!) } : { originalPaymentUrl: payment.paymentUrl! });
    return payment;
  }

  /** Cards are typed on the acquirer's form (PaymentURL), never on our page. */
  async chargeCard(): Promise<ChargeResult> {
    return { ok: false, reason: 'Card payments are made on the acquirer’s payment form (originalPaymentUrl), not on this page' };
  }

  async voidCharge(): Promise<VoidResult> {
    return { ok: false, reason: 'No card charge is made by this service with T-Bank' };
  }

  /**
   * A refund is `Cancel` with `Amount`, recorded (acquirer_refunds) before it is sent. Asked
   * again (the request died, or the refund reconciler): a refund already answered is answered
   * from the record; one sent but never answered is not sent blindly again. For cards the
   * Cancel is repeated under the same `ExternalRequestId`, which the acquirer answers with the
   * first request's state. For SBP, where the documentation says `ExternalRequestId` does not
   * work, the acquirer is asked what happened (GetState, GetQrState): sent again only if the
   * payment is untouched since, counted as done if the last SBP refund is this one; anything
   * else stays PENDING for a person to check, never refunded twice.
   */
  async refund(req: { refundId: string; externalOrderId: string; amount: Money; attempt?: number }): Promise<RefundResult> {
    let payment: AcquirerPaymentRow & { paymentId: string };
    try {
      payment = await this.mustFind(req.externalOrderId, req.attempt);
    } catch (err) {
      if (err instanceof NoAcquirerPayment) return { outcome: 'failed', reason: err.message };
      throw err;
    }
    const amountKopecks = toKopecks(req.amount);
    const sbp = payment.method === 'sbp';
    const now = () => this.clock.now();
    const earlier = await this.payments.refundOf(req.refundId);
    if (earlier?.status === 'SUCCEEDED') return { outcome: 'succeeded' };
    if (earlier?.status === 'FAILED') return { outcome: 'failed', reason: earlier.failureReason ?? 'refused by T-Bank' };
    if (earlier && sbp) {
      const settled = await this.sbpRefundOutcome(payment, earlier);
      if (settled) return settled;
    }
    if (!earlier) {
      const before = sbp ? String((await this.client.call('GetState', { PaymentId: payment.paymentId })).Status) : payment.status;
      await this.payments.sendingRefund({ refundId: req.refundId, invoiceId: payment.invoiceId, paymentId: payment.paymentId, amountKopecks: BigInt(amountKopecks), statusBefore: before }, now());
    }
    try {
      const answer = await this.client.call('Cancel', { PaymentId: payment.paymentId, Amount: amountKopecks, ExternalRequestId: req.refundId });
      return await this.refundAnswered(payment, req.refundId, String(answer.Status));
    } catch (err) {
      if (err instanceof AcquirerRefused) {
        await this.payments.refundAnswered(req.refundId, 'FAILED', err.message, now());
        return { outcome: 'failed', reason: err.message };
      }
      throw err; // no answer: the refund stays PENDING (SENDING here) and is asked again
    }
  }

  private async refundAnswered(payment: AcquirerPaymentRow, refundId: string, status: string): Promise<RefundResult> {
    const now = this.clock.now();
    await this.payments.advance(payment, status, now);
    if (REFUNDED.has(status)) {
      await this.payments.refundAnswered(refundId, 'SUCCEEDED', null, now);
      return { outcome: 'succeeded' };
    }
    if (REFUNDING.has(status)) {
      await this.payments.refundAnswered(refundId, 'PENDING', null, now);
      return { outcome: 'pending' };
    }
    const reason = `T-Bank answered the refund with status ${status}`;
    await this.payments.refundAnswered(refundId, 'FAILED', reason, now);
    return { outcome: 'failed', reason };
  }

  /**
   * An SBP refund asked again: what the acquirer did with it, or null when it surely did
   * nothing, so it may be sent. The proof is the money: GetState's Amount is what the payment
   * still holds, so the acquirer has refunded (paid − Amount) in all; less what this service
   * knows it refunded (every other SUCCEEDED refund, ours or recorded from the acquirer's
   * side), that is 0 (ours never happened) or exactly ours (it did). GetQrState, which names
   * only the last refund, cannot tell a lost Cancel from an earlier refund of the same amount.
   * With another refund of the payment in flight, or any other difference, it cannot be told
   * apart: left PENDING for a person, never counted twice.
   */
  private async sbpRefundOutcome(payment: AcquirerPaymentRow & { paymentId: string }, refund: AcquirerRefundRow): Promise<RefundResult | null> {
    const state = await this.client.call('GetState', { PaymentId: payment.paymentId });
    const status = String(state.Status);
    if (REFUNDING.has(status)) return { outcome: 'pending' };
    const known = await this.payments.refundsKnown(payment.paymentId, refund.refundId);
    const current = await this.payments.reread(payment);
    const refundedThere = (current.paidKopecks ?? current.amountKopecks) - BigInt(Number(state.Amount));
    const unexplained = refundedThere - known.succeededKopecks;
    if (known.inFlight === 0 && refund.status === 'SENDING' && unexplained === 0n) return null;
    if (known.inFlight === 0 && unexplained === refund.amountKopecks && REFUNDED.has(status)) return this.refundAnswered(payment, refund.refundId, status);
    this.logger.error(
      { refundId: refund.refundId, paymentId: payment.paymentId, status, unexplained: unexplained.toString(), inFlight: known.inFlight },
      'an SBP refund sent to T-Bank without an answer cannot be told apart: left PENDING, check it in T-Bank’s account',
    );
    return { outcome: 'pending' };
  }

  async cancelOrder(req: { externalOrderId: string }): Promise<CancelOrderResult> {
    // The latest attempt is the only one the payer can still pay (earlier ones were declined).
    const payment = await this.payments.byInvoice(req.externalOrderId);
    if (!payment?.paymentId) return { ok: true };
    try {
      // Cancel of a paid payment is a refund: only a payment the payer has not paid is cancelled.
      const state = await this.client.call('GetState', { PaymentId: payment.paymentId });
      const status = String(state.Status);
      if (!CANCELLABLE.has(status)) {
        await this.payments.advance(payment, status, this.clock.now());
        return status === 'CANCELED' || status === 'DEADLINE_EXPIRED' || status === 'REJECTED' ? { ok: true } : { ok: false, reason: `its payment is ${status} at T-Bank` };
      }
      const answer = await this.client.call('Cancel', { PaymentId: payment.paymentId });
      await this.payments.advance(payment, String(answer.Status), this.clock.now());
      return { ok: true };
    } catch (err) {
      if (err instanceof AcquirerRefused) return { ok: false, reason: err.message };
      throw asApiError(err);
    }
  }

  /** GetState of one payment; for a confirmed SBP payment, its SBP id from CheckOrder. */
  async stateOf(payment: AcquirerPaymentRow): Promise<AcquirerState> {
    const state = await this.client.call('GetState', { PaymentId: payment.paymentId });
    const status = String(state.Status);
    const params = Array.isArray(state.Params) ? (state.Params as { Key?: unknown; Value?: unknown }[]) : [];
    const bank = params.find((p) => p.Key === 'BankName')?.Value;
    return {
      status,
      amountKopecks: Number(state.Amount),
      sbpTransactionId: status === 'CONFIRMED' && payment.method === 'sbp' ? await this.sbpPaymentIdOf(payment) : null,
      payerBank: typeof bank === 'string' && bank !== '' ? bank : null,
    };
  }

  /** SBP's own id of the payment (CheckOrder's SbpPaymentId), or null when the acquirer gives none. */
  async sbpPaymentIdOf(payment: AcquirerPaymentRow): Promise<string | null> {
    try {
      const order = await this.client.call('CheckOrder', { OrderId: payment.invoiceId });
      const mine = (order.Payments as { PaymentId: string; SbpPaymentId?: string }[] | undefined)?.find((p) => String(p.PaymentId) === payment.paymentId);
      return mine?.SbpPaymentId ?? null;
    } catch (err) {
      this.logger.warn({ err, paymentId: payment.paymentId }, 'T-Bank CheckOrder failed; the SBP transaction id is left out');
      return null;
    }
  }

  /** The payment a refund returns money of: the given attempt (a review's), else the one that paid the invoice. */
  private async mustFind(invoiceId: string, attempt?: number): Promise<AcquirerPaymentRow & { paymentId: string }> {
    const payment = attempt !== undefined ? await this.payments.reread({ invoiceId, attempt }) : await this.payments.payingAttempt(invoiceId);
    if (!payment?.paymentId) throw new NoAcquirerPayment(invoiceId);
    return payment as AcquirerPaymentRow & { paymentId: string };
  }

  private async closeQuietly(paymentId: string): Promise<void> {
    await this.client.call('Cancel', { PaymentId: paymentId }).catch((err: unknown) => this.logger.warn({ err, paymentId }, 'could not cancel an unused T-Bank payment'));
  }
}

/** No T-Bank payment took this invoice's money (paid by the merchant's decision on a review): nothing to refund there. */
class NoAcquirerPayment extends Error {
  constructor(invoiceId: string) {
    super(`No T-Bank payment paid invoice ${invoiceId} (it was paid by the merchant’s decision): refund the payer outside this service`);
    this.name = 'NoAcquirerPayment';
  }
}

/** What the merchant is told when the acquirer could not open or close a payment. */
export function asApiError(err: unknown): unknown {
  if (err instanceof AcquirerUnavailable) {
    return new ApiError('SERVICE_UNAVAILABLE', 'The payment provider (T-Bank) cannot be reached right now; nothing was created. Retry shortly with the same Idempotency-Key');
  }
  if (err instanceof AcquirerRefused) {
    return new ApiError('ACQUIRER_REFUSED', `The payment provider (T-Bank) refused the request: ${err.acquirerMessage || err.errorCode}`, [
      { field: 'acquirer', message: `T-Bank ${err.method} ErrorCode ${err.errorCode}${err.acquirerDetails ? `: ${err.acquirerDetails}` : ''}` },
    ]);
  }
  return err;
}

