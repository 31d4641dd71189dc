import { sql } from 'kysely';
import type { InvoicingDb, InvoicingQueries } from '../../db';
import type { PaymentMethod } from '../provider';
import { existingInvoiceIds } from '../../modules/invoices/store';
import type { Tx } from '../../transactions';
import { DECLINED_STATUSES, SETTLED_STATUSES } from '../statuses';

/** An acquirer payment as stored (table acquirer_payments, owned by this module): one per attempt of an invoice. */
export interface AcquirerPaymentRow {
  invoiceId: string;
  /** 1 for the payment opened with the invoice; one more for each fresh payment after a decline. */
  attempt: number;
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
  /** What the acquirer's GetState reported taken (kopecks) and the payer's bank, once CONFIRMED. */
  paidKopecks: bigint | null;
  payerBank: string | null;
  confirmedAt: Date | null;
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

export { DECLINED_STATUSES, SETTLED_STATUSES };

/**
 * Statuses in which a payment may still move at the acquirer (paid, declined, expired): after
 * Init, before a final state. Listed rather than "not final", so a query on them is a range of
 * the (status, created_at) index instead of a pass over every payment ever made.
 */
export const OPEN_STATUSES = Object.keys(RANK).filter((s) => s !== INIT_STATUS && !SETTLED_STATUSES.includes(s));

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

/** Which attempt of which invoice. */
export type AttemptKey = Pick<AcquirerPaymentRow, 'invoiceId' | 'attempt'>;
const keyOf = (row: AttemptKey) => ({ invoiceId_attempt: { invoiceId: row.invoiceId, attempt: row.attempt } });

/**
 * The payments module's store of the acquirer_payments, acquirer_refunds and acquirer_notifications
 * tables (generic to every acquirer: rows carry their `provider`): every query on them is here,
 * and job_leases' in leases.ts beside it.
 */
export class AcquirerPayments {
  /** One terminal's view: the provider's payments of one mode (a live terminal never sees test payments, nor the reverse). */
  constructor(
    private readonly db: InvoicingDb | Tx,
    private readonly provider: string,
    readonly isTest: boolean,
  ) {}

  /** The same view inside the caller's transaction, for a change that must commit with the invoice's. */
  in(tx: Tx): AcquirerPayments {
    return new AcquirerPayments(tx, this.provider, this.isTest);
  }

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

  /** A new attempt (1 at the invoice's creation): the key (invoice, attempt) is unique, so two racing fresh attempts make one. */
  begin(row: Pick<AcquirerPaymentRow, 'invoiceId' | 'merchantId' | 'isTest' | 'method' | 'amountKopecks' | 'idempotencyKey'>, now: Date, attempt = 1): Promise<AcquirerPaymentRow> {
    return this.db.acquirerPayment.create({ data: { ...row, attempt, provider: this.provider, status: INIT_STATUS, createdAt: now, updatedAt: now } });
  }

  record(row: AttemptKey, change: Partial<Pick<AcquirerPaymentRow, 'paymentId' | 'paymentUrl' | 'qrPayload' | 'status'>>, now: Date): Promise<AcquirerPaymentRow> {
    return this.db.acquirerPayment.update({ where: keyOf(row), data: { ...change, updatedAt: now } });
  }

  /** The invoice's latest attempt: the payment the payer is offered now. */
  byInvoice(invoiceId: string): Promise<AcquirerPaymentRow | null> {
    return this.db.acquirerPayment.findFirst({ where: { invoiceId }, orderBy: { attempt: 'desc' } });
  }

  /** Every attempt of the invoice, first first. */
  attemptsOf(invoiceId: string): Promise<AcquirerPaymentRow[]> {
    return this.db.acquirerPayment.findMany({ where: { invoiceId }, orderBy: { attempt: 'asc' } });
  }

  /** The attempt as stored now. */
  reread(row: AttemptKey): Promise<AcquirerPaymentRow> {
    return this.db.acquirerPayment.findUniqueOrThrow({ where: keyOf(row) });
  }

  /** CONFIRMED as heard (GetState's amount and bank), once: the first confirmation decides what the money does. */
  confirm(row: AcquirerPaymentRow, paid: { paidKopecks: bigint; payerBank: string | null }, now: Date): Promise<AcquirerPaymentRow> {
    const status = rankOf(row.status) < rankOf('CONFIRMED') ? 'CONFIRMED' : row.status;
    return this.db.acquirerPayment.update({ where: keyOf(row), data: { status, ...paid, confirmedAt: now, updatedAt: now } });
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
    const { count } = await this.db.acquirerPayment.updateMany({ where: { invoiceId: row.invoiceId, attempt: row.attempt, status: row.status }, data: { status, updatedAt: now } });
    return count === 1;
  }

  /** Marks the payment as just checked, so the reconciler's oldest-first pass moves on to others. */
  async touch(row: AttemptKey, now: Date): Promise<void> {
    await this.db.acquirerPayment.update({ where: keyOf(row), data: { updatedAt: now } });
  }

  /** The payment's money went to a review (reviews/), not to its invoice: its refunds are the review's. */
  async markReviewed(row: AttemptKey, reason: string, now: Date): Promise<void> {
    await this.db.acquirerPayment.update({ where: keyOf(row), data: { reviewReason: reason, updatedAt: now } });
  }

  /** The attempt whose money paid the invoice (confirmed, not under review), or null. */
  payingAttempt(invoiceId: string): Promise<AcquirerPaymentRow | null> {
    return this.db.acquirerPayment.findFirst({ where: { invoiceId, confirmedAt: { not: null }, reviewReason: null }, orderBy: { attempt: 'desc' } });
  }

  /** Open payments of invoices past their expiry that are still PENDING: asked before the invoice may expire. */
  openOfDueInvoices(invoiceIds: string[]): Promise<AcquirerPaymentRow[]> {
    return this.db.acquirerPayment.findMany({
      where: { provider: this.provider, isTest: this.isTest, invoiceId: { in: invoiceIds }, paymentId: { not: null }, status: { notIn: [INIT_STATUS, ...SETTLED_STATUSES] } },
    });
  }

  /** Payments the payer may still be paying (or may have paid unheard), older than `before`: the reconciler's work. */
  open(before: Date, limit: number): Promise<AcquirerPaymentRow[]> {
    return this.db.acquirerPayment.findMany({
      where: { provider: this.provider, isTest: this.isTest, paymentId: { not: null }, status: { in: OPEN_STATUSES }, createdAt: { lt: before } },
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

  /**
   * What this service knows was refunded of the payment (SUCCEEDED, ours and those recorded
   * from the acquirer's side), apart from `except`, and how many refunds of it are in flight
   * (SENDING or PENDING), apart from `except`.
   */
  async refundsKnown(paymentId: string, except?: string): Promise<{ succeededKopecks: bigint; inFlight: number }> {
    const rows = await this.db.acquirerRefund.findMany({ where: { paymentId, ...(except ? { refundId: { not: except } } : {}) }, select: { status: true, amountKopecks: true } });
    return {
      succeededKopecks: rows.filter((r) => r.status === 'SUCCEEDED').reduce((sum, r) => sum + r.amountKopecks, 0n),
      inFlight: rows.filter((r) => r.status === 'SENDING' || r.status === 'PENDING').length,
    };
  }

  /** A refund made at the acquirer, outside this service, as learnt from its state: SUCCEEDED at once. */
  recordExternalRefund(r: Pick<AcquirerRefundRow, 'refundId' | 'invoiceId' | 'paymentId' | 'amountKopecks'>, now: Date): Promise<unknown> {
    return this.db.acquirerRefund.create({ data: { ...r, status: 'SUCCEEDED', statusBefore: 'EXTERNAL', createdAt: now, updatedAt: now } });
  }

  /** Keeps what a notification said and what it did. */
  async logNotification(n: { paymentId: string; status: string; body: object; outcome: string }, id: string, now: Date): Promise<void> {
    await this.db.acquirerNotification.create({ data: { id, provider: this.provider, paymentId: n.paymentId, status: n.status, body: n.body, outcome: n.outcome, receivedAt: now } });
  }
}

/** The acquirer payments of an invoice as the API lists them (`attempts`), first first. */
export function attemptRowsOf(on: InvoicingQueries, invoiceId: string) {
  const tables = on.$kysely;
  return tables
    .selectFrom('acquirer_payments')
    .select(['attempt', 'method', 'status', 'amount_kopecks', 'paid_kopecks', 'created_at', 'updated_at'])
    .where('invoice_id', '=', invoiceId)
    .orderBy('attempt')
    .execute();
}

/** The reconciler's work of one provider and mode, as the metrics report it. */
export interface AcquirerBacklog {
  provider: string;
  isTest: boolean;
  /** Payments the reconciler asks about: a PaymentId, an open status, created more than `afterMs` ago. */
  open: number;
  /** When the oldest of them was created. */
  oldestCreatedAt: Date;
  /** The longest any of them has gone unheard: since it became due (created + afterMs) or was last heard of (updated_at), whichever is later. */
  unheardSince: Date;
}

/**
 * The reconciliation backlog per provider and mode, in one statement on the (status,
 * created_at) index: the payments `open()` would hand the reconciler. The reconciler marks
 * each payment it asks (`touch`, or the change it applies), so `unheardSince` stays within a
 * few runs of now while it works, and falls behind when the acquirer cannot be asked or no
 * process leads the reconciler.
 */
export async function acquirerBacklog(on: InvoicingQueries, now: Date, afterMs: number): Promise<AcquirerBacklog[]> {
  const tables = on.$kysely;
  const due = new Date(now.getTime() - afterMs);
  const rows = await tables
    .selectFrom('acquirer_payments')
    .select(['provider', 'is_test'])
    .select((eb) => [
      eb.fn.countAll<string>().as('open'),
      eb.fn.min('created_at').as('oldest_created_at'),
      sql<Date>`min(greatest(updated_at, created_at + ${afterMs} * interval '1 millisecond'))`.as('unheard_since'),
    ])
    .where('payment_id', 'is not', null)
    .where('status', 'in', OPEN_STATUSES)
    .where('created_at', '<', due)
    .groupBy(['provider', 'is_test'])
    .execute();
  return rows.map((r) => ({ provider: r.provider, isTest: r.is_test, open: Number(r.open), oldestCreatedAt: new Date(r.oldest_created_at), unheardSince: new Date(r.unheard_since) }));
}
