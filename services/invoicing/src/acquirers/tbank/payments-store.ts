import type { InvoicingDb } from '../../db';
import type { PaymentMethod } from '../../payments/provider';
import { existingInvoiceIds } from '../../invoices/store';

/** An acquirer payment as stored (table acquirer_payments, owned by this module). */
export interface AcquirerPaymentRow {
  invoiceId: string;
  merchantId: string;
  isTest: boolean;
  provider: string;
  method: PaymentMethod;
  amountKopecks: bigint;
  idempotencyKey: string | null;
  paymentId: string | null;
  paymentUrl: string | null;
  qrPayload: string | null;
  status: string;
  reviewReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Before Init has answered. */
export const INIT_STATUS = 'INIT';

/** How far along the documented status model a status is: a report never moves a payment back. */
const RANK: Record<string, number> = {
  INIT: 0,
  NEW: 1,
  FORM_SHOWED: 2,
  AUTHORIZING: 3,
  '3DS_CHECKING': 3,
  '3DS_CHECKED': 3,
  AUTHORIZED: 4,
  CONFIRMING: 5,
  // Ends without money: after them only a late CONFIRMED could still come (and must count).
  REJECTED: 5,
  AUTH_FAIL: 5,
  CANCELED: 5,
  DEADLINE_EXPIRED: 5,
  ATTEMPTS_EXPIRED: 5,
  REVERSING: 5,
  PARTIAL_REVERSED: 5,
  REVERSED: 5,
  CONFIRMED: 6,
  REFUNDING: 7,
  ASYNC_REFUNDING: 7,
  PARTIAL_REFUNDED: 8,
  REFUNDED: 9,
};

/** Statuses after which the payer can no longer pay: nothing left to reconcile for the payment. */
export const SETTLED_STATUSES = ['CONFIRMED', 'REJECTED', 'AUTH_FAIL', 'CANCELED', 'DEADLINE_EXPIRED', 'ATTEMPTS_EXPIRED', 'REVERSED', 'PARTIAL_REFUNDED', 'REFUNDED', 'REFUNDING', 'ASYNC_REFUNDING'];

export function rankOf(status: string): number {
  return RANK[status] ?? 0;
}

/** A refund as sent to the acquirer (table acquirer_refunds). */
export interface AcquirerRefundRow {
  refundId: string;
  invoiceId: string;
  paymentId: string;
  amountKopecks: bigint;
  status: 'SENDING' | 'PENDING' | 'SUCCEEDED' | 'FAILED' | string;
  statusBefore: string;
  failureReason: string | null;
}

/** The acquirer_payments, acquirer_refunds and acquirer_notifications tables: every query on them is here. */
export class AcquirerPayments {
  /** One terminal's view: the provider's payments of one mode (a live terminal never sees test payments, nor the reverse). */
  constructor(
    private readonly db: InvoicingDb,
    private readonly provider: string,
    private readonly isTest: boolean,
  ) {}

  /** An earlier attempt of this create (same key, amount and method, within `since`) that no invoice has taken yet. */
  async findAttempt(q: { merchantId: string; idempotencyKey: string; method: PaymentMethod; amountKopecks: bigint; since: Date }): Promise<AcquirerPaymentRow | null> {
    const attempt = await this.db.acquirerPayment.findFirst({
      where: {
        provider: this.provider,
        merchantId: q.merchantId,
        isTest: this.isTest,
        idempotencyKey: q.idempotencyKey,
        method: q.method,
        amountKopecks: q.amountKopecks,
        status: { in: [INIT_STATUS, 'NEW'] },
        createdAt: { gt: q.since },
      },
      orderBy: { createdAt: 'desc' },
    });
    // Its invoice was made (the same key used on another create path): not an attempt to resume.
    if (attempt && (await existingInvoiceIds(this.db, [attempt.invoiceId])).size > 0) return null;
    return attempt;
  }

  begin(row: Pick<AcquirerPaymentRow, 'invoiceId' | 'merchantId' | 'isTest' | 'method' | 'amountKopecks' | 'idempotencyKey'>, now: Date): Promise<AcquirerPaymentRow> {
    return this.db.acquirerPayment.create({ data: { ...row, provider: this.provider, status: INIT_STATUS, createdAt: now, updatedAt: now } });
  }

  record(invoiceId: string, change: Partial<Pick<AcquirerPaymentRow, 'paymentId' | 'paymentUrl' | 'qrPayload' | 'status'>>, now: Date): Promise<AcquirerPaymentRow> {
    return this.db.acquirerPayment.update({ where: { invoiceId }, data: { ...change, updatedAt: now } });
  }

  byInvoice(invoiceId: string): Promise<AcquirerPaymentRow | null> {
    return this.db.acquirerPayment.findUnique({ where: { invoiceId } });
  }

  byPaymentId(paymentId: string): Promise<AcquirerPaymentRow | null> {
    return this.db.acquirerPayment.findFirst({ where: { paymentId, provider: this.provider, isTest: this.isTest } });
  }

  /**
   * Moves the payment to `status` if that is not a step back (a late or out-of-order report
   * changes nothing); returns whether it moved. Conditional on the status read, so two reports
   * at once move it once.
   */
  async advance(row: AcquirerPaymentRow, status: string, now: Date): Promise<boolean> {
    if (rankOf(status) < rankOf(row.status) || status === row.status) return false;
    const { count } = await this.db.acquirerPayment.updateMany({ where: { invoiceId: row.invoiceId, status: row.status }, data: { status, updatedAt: now } });
    return count === 1;
  }

  /** Marks the payment as just checked, so the reconciler's oldest-first pass moves on to others. */
  async touch(invoiceId: string, now: Date): Promise<void> {
    await this.db.acquirerPayment.update({ where: { invoiceId }, data: { updatedAt: now } });
  }

  flag(invoiceId: string, reason: string, now: Date): Promise<unknown> {
    return this.db.acquirerPayment.update({ where: { invoiceId }, data: { reviewReason: reason, updatedAt: now } });
  }

  /** Payments the payer may still be paying (or may have paid unheard), older than `before`: the reconciler's work. */
  open(before: Date, limit: number): Promise<AcquirerPaymentRow[]> {
    return this.db.acquirerPayment.findMany({
      where: { provider: this.provider, isTest: this.isTest, paymentId: { not: null }, status: { notIn: [INIT_STATUS, ...SETTLED_STATUSES] }, createdAt: { lt: before } },
      orderBy: { updatedAt: 'asc' },
      take: limit,
    });
  }

  refundOf(refundId: string): Promise<AcquirerRefundRow | null> {
    return this.db.acquirerRefund.findUnique({ where: { refundId } });
  }

  /** Recorded (and committed) before the Cancel goes out: the refund's outcome is unknown until answered. */
  sendingRefund(r: Pick<AcquirerRefundRow, 'refundId' | 'invoiceId' | 'paymentId' | 'amountKopecks' | 'statusBefore'>, now: Date): Promise<AcquirerRefundRow> {
    return this.db.acquirerRefund.create({ data: { ...r, status: 'SENDING', createdAt: now, updatedAt: now } });
  }

  refundAnswered(refundId: string, status: 'PENDING' | 'SUCCEEDED' | 'FAILED', failureReason: string | null, now: Date): Promise<unknown> {
    return this.db.acquirerRefund.update({ where: { refundId }, data: { status, failureReason, updatedAt: now } });
  }

  /** Refunds of the payment whose outcome is not known yet (sent, not answered). */
  unansweredRefunds(paymentId: string): Promise<number> {
    return this.db.acquirerRefund.count({ where: { paymentId, status: 'SENDING' } });
  }

  /** Keeps what a notification said and what it did. */
  async logNotification(n: { paymentId: string; status: string; body: object; outcome: string }, id: string, now: Date): Promise<void> {
    await this.db.acquirerNotification.create({ data: { id, provider: this.provider, paymentId: n.paymentId, status: n.status, body: n.body, outcome: n.outcome, receivedAt: now } });
  }
}
