import { preparedStatement } from '@pay/db';
import { sql, type ExpressionBuilder, type Selectable } from 'kysely';
import type { InvoicingQueries, Tables } from '../../db';
import type { PaymentMethod } from '../provider';
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

type Db = InvoicingQueries['$kysely'];

/** The one mapping of an `acquirer_payments` row to AcquirerPaymentRow (bigint columns arrive as text). */
function paymentOf(r: Selectable<Tables.AcquirerPayment>): AcquirerPaymentRow {
  return {
    invoiceId: r.invoice_id,
    attempt: r.attempt,
    merchantId: r.merchant_id,
    isTest: r.is_test,
    provider: r.provider,
    method: r.method,
    amountKopecks: BigInt(r.amount_kopecks),
    idempotencyKey: r.idempotency_key,
    paymentId: r.payment_id,
    paymentUrl: r.payment_url,
    qrPayload: r.qr_payload,
    status: r.status,
    reviewReason: r.review_reason,
    paidKopecks: r.paid_kopecks === null ? null : BigInt(r.paid_kopecks),
    payerBank: r.payer_bank,
    confirmedAt: r.confirmed_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** The one mapping of an `acquirer_refunds` row to AcquirerRefundRow. */
function refundOf(r: Selectable<Tables.AcquirerRefund>): AcquirerRefundRow {
  return {
    refundId: r.refund_id,
    invoiceId: r.invoice_id,
    paymentId: r.payment_id,
    amountKopecks: BigInt(r.amount_kopecks),
    status: r.status,
    statusBefore: r.status_before,
    failureReason: r.failure_reason,
  };
}

/** An update of one known row: like the model API's update, a missing row is an error, not a no-op. */
function one(res: { numUpdatedRows: bigint }, what: string): void {
  if (res.numUpdatedRows !== 1n) throw new Error(`${what}: no such row`);
}

const payments = (db: Db) => db.selectFrom('acquirer_payments').selectAll();
const ofAttempt = (row: AttemptKey) => (eb: ExpressionBuilder<Tables.DB, 'acquirer_payments'>) => eb.and([eb('invoice_id', '=', row.invoiceId), eb('attempt', '=', row.attempt)]);

/**
 * The payments module's store of the acquirer_payments, acquirer_refunds and acquirer_notifications
 * tables (generic to every acquirer: rows carry their `provider`): every query on them is here,
 * and job_leases' in leases.ts beside it.
 */
export class AcquirerPayments {
  /** One terminal's view: the provider's payments of one mode (a live terminal never sees test payments, nor the reverse). */
  constructor(
    /** The process's client, or the transaction this view was opened in (`in`). */
    readonly on: InvoicingQueries,
    private readonly provider: string,
    readonly isTest: boolean,
  ) {}

  private get db(): Db {
    return this.on.$kysely;
  }

  /** The same view inside the caller's transaction, for a change that must commit with the invoice's. */
  in(tx: InvoicingQueries): AcquirerPayments {
    return new AcquirerPayments(tx, this.provider, this.isTest);
  }

  /** An earlier attempt of this create (same key, amount and method, within `since`); the caller checks that no invoice has taken it yet. */
  async findAttempt(q: { merchantId: string; idempotencyKey: string; method: PaymentMethod; amountKopecks: bigint; since: Date }): Promise<AcquirerPaymentRow | null> {
    const row = await payments(this.db)
      .where('provider', '=', this.provider)
      .where('merchant_id', '=', q.merchantId)
      .where('is_test', '=', this.isTest)
      .where('idempotency_key', '=', q.idempotencyKey)
      .where('method', '=', q.method)
      .where('amount_kopecks', '=', q.amountKopecks.toString())
      .where('status', 'in', [INIT_STATUS, 'NEW'])
      .where('created_at', '>', q.since)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? paymentOf(row) : null;
  }

  /** A new attempt (1 at the invoice's creation): the key (invoice, attempt) is unique, so two racing fresh attempts make one. */
  async begin(row: Pick<AcquirerPaymentRow, 'invoiceId' | 'merchantId' | 'isTest' | 'method' | 'amountKopecks' | 'idempotencyKey'>, now: Date, attempt = 1): Promise<AcquirerPaymentRow> {
    const inserted = await this.db
      .insertInto('acquirer_payments')
      .values({
        invoice_id: row.invoiceId,
        attempt,
        merchant_id: row.merchantId,
        is_test: row.isTest,
        provider: this.provider,
        method: row.method,
        amount_kopecks: row.amountKopecks.toString(),
        idempotency_key: row.idempotencyKey,
        status: INIT_STATUS,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return paymentOf(inserted);
  }

  async record(row: AttemptKey, change: Partial<Pick<AcquirerPaymentRow, 'paymentId' | 'paymentUrl' | 'qrPayload' | 'status'>>, now: Date): Promise<AcquirerPaymentRow> {
    const updated = await this.db
      .updateTable('acquirer_payments')
      .set({
        ...(change.paymentId !== undefined ? { payment_id: change.paymentId } : {}),
        ...(change.paymentUrl !== undefined ? { payment_url: change.paymentUrl } : {}),
        ...(change.qrPayload !== undefined ? { qr_payload: change.qrPayload } : {}),
        ...(change.status !== undefined ? { status: change.status } : {}),
        updated_at: now,
      })
      .where(ofAttempt(row))
      .returningAll()
      .executeTakeFirstOrThrow();
    return paymentOf(updated);
  }

  /** The invoice's latest attempt: the payment the payer is offered now. */
  async byInvoice(invoiceId: string): Promise<AcquirerPaymentRow | null> {
    const row = await payments(this.db).where('invoice_id', '=', invoiceId).orderBy('attempt', 'desc').limit(1).executeTakeFirst();
    return row ? paymentOf(row) : null;
  }

  /** Every attempt of the invoice, first first. */
  async attemptsOf(invoiceId: string): Promise<AcquirerPaymentRow[]> {
    const rows = await payments(this.db).where('invoice_id', '=', invoiceId).orderBy('attempt', 'asc').execute();
    return rows.map(paymentOf);
  }

  /** The attempt as stored now. */
  async reread(row: AttemptKey): Promise<AcquirerPaymentRow> {
    return paymentOf(await payments(this.db).where(ofAttempt(row)).executeTakeFirstOrThrow());
  }

  /** CONFIRMED as heard (GetState's amount and bank), once: the first confirmation decides what the money does. */
  async confirm(row: AcquirerPaymentRow, paid: { paidKopecks: bigint; payerBank: string | null }, now: Date): Promise<AcquirerPaymentRow> {
    const status = rankOf(row.status) < rankOf('CONFIRMED') ? 'CONFIRMED' : row.status;
    const updated = await this.db
      .updateTable('acquirer_payments')
      .set({ status, paid_kopecks: paid.paidKopecks.toString(), payer_bank: paid.payerBank, confirmed_at: now, updated_at: now })
      .where(ofAttempt(row))
      .returningAll()
      .executeTakeFirstOrThrow();
    return paymentOf(updated);
  }

  async byPaymentId(paymentId: string): Promise<AcquirerPaymentRow | null> {
    const row = await payments(this.db).where('payment_id', '=', paymentId).where('provider', '=', this.provider).where('is_test', '=', this.isTest).limit(1).executeTakeFirst();
    return row ? paymentOf(row) : null;
  }

  /**
   * Moves the payment to `status` if that is not a step back (a late or out-of-order report
   * changes nothing); returns whether it moved. Conditional on the status read, so two reports
   * at once move it once.
   */
  async advance(row: AcquirerPaymentRow, status: string, now: Date): Promise<boolean> {
    if (rankOf(status) < rankOf(row.status) || status === row.status) return false;
    const res = await this.db
      .updateTable('acquirer_payments')
      .set({ status, updated_at: now })
      .where(ofAttempt(row))
      .where('status', '=', row.status)
      .executeTakeFirst();
    return res.numUpdatedRows === 1n;
  }

  /** Marks the payment as just checked, so the reconciler's oldest-first pass moves on to others. */
  async touch(row: AttemptKey, now: Date): Promise<void> {
    one(await this.db.updateTable('acquirer_payments').set({ updated_at: now }).where(ofAttempt(row)).executeTakeFirstOrThrow(), 'acquirer payment');
  }

  /** The payment's money went to a review (reviews/), not to its invoice: its refunds are the review's. */
  async markReviewed(row: AttemptKey, reason: string, now: Date): Promise<void> {
    one(await this.db.updateTable('acquirer_payments').set({ review_reason: reason, updated_at: now }).where(ofAttempt(row)).executeTakeFirstOrThrow(), 'acquirer payment');
  }

  /** The attempt whose money paid the invoice (confirmed, not under review), or null. */
  payingAttempt(invoiceId: string): Promise<AcquirerPaymentRow | null> {
    return payingAttemptOf(this.on, invoiceId);
  }

  /** Open payments of invoices past their expiry that are still PENDING: asked before the invoice may expire. */
  async openOfDueInvoices(invoiceIds: string[]): Promise<AcquirerPaymentRow[]> {
    if (invoiceIds.length === 0) return [];
    const rows = await payments(this.db)
      .where('provider', '=', this.provider)
      .where('is_test', '=', this.isTest)
      .where('invoice_id', 'in', invoiceIds)
      .where('payment_id', 'is not', null)
      .where('status', 'not in', [INIT_STATUS, ...SETTLED_STATUSES])
      .execute();
    return rows.map(paymentOf);
  }

  /** Payments the payer may still be paying (or may have paid unheard), older than `before`: the reconciler's work. */
  async open(before: Date, limit: number): Promise<AcquirerPaymentRow[]> {
    const rows = await payments(this.db)
      .where('provider', '=', this.provider)
      .where('is_test', '=', this.isTest)
      .where('payment_id', 'is not', null)
      .where('status', 'in', OPEN_STATUSES)
      .where('created_at', '<', before)
      .orderBy('updated_at', 'asc')
      .limit(limit)
      .execute();
    return rows.map(paymentOf);
  }

  async refundOf(refundId: string): Promise<AcquirerRefundRow | null> {
    const row = await this.db.selectFrom('acquirer_refunds').selectAll().where('refund_id', '=', refundId).executeTakeFirst();
    return row ? refundOf(row) : null;
  }

  /** Recorded (and committed) before the Cancel goes out: the refund's outcome is unknown until answered. */
  async sendingRefund(r: Pick<AcquirerRefundRow, 'refundId' | 'invoiceId' | 'paymentId' | 'amountKopecks' | 'statusBefore'>, now: Date): Promise<AcquirerRefundRow> {
    const row = await this.db
      .insertInto('acquirer_refunds')
      .values({ refund_id: r.refundId, invoice_id: r.invoiceId, payment_id: r.paymentId, amount_kopecks: r.amountKopecks.toString(), status: 'SENDING', status_before: r.statusBefore, created_at: now, updated_at: now })
      .returningAll()
      .executeTakeFirstOrThrow();
    return refundOf(row);
  }

  async refundAnswered(refundId: string, status: 'PENDING' | 'SUCCEEDED' | 'FAILED', failureReason: string | null, now: Date): Promise<void> {
    one(await this.db.updateTable('acquirer_refunds').set({ status, failure_reason: failureReason, updated_at: now }).where('refund_id', '=', refundId).executeTakeFirstOrThrow(), 'acquirer refund');
  }

  /** Refunds of the payment whose outcome is not known yet (sent, not answered). */
  async unansweredRefunds(paymentId: string): Promise<number> {
    const row = await this.db
      .selectFrom('acquirer_refunds')
      .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n'))
      .where('payment_id', '=', paymentId)
      .where('status', '=', 'SENDING')
      .executeTakeFirstOrThrow();
    return row.n;
  }

  /**
   * What this service knows was refunded of the payment (SUCCEEDED, ours and those recorded
   * from the acquirer's side), apart from `except`, and how many refunds of it are in flight
   * (SENDING or PENDING), apart from `except`.
   */
  async refundsKnown(paymentId: string, except?: string): Promise<{ succeededKopecks: bigint; inFlight: number }> {
    const rows = await this.db
      .selectFrom('acquirer_refunds')
      .select(['status', 'amount_kopecks'])
      .where('payment_id', '=', paymentId)
      .$if(except !== undefined, (s) => s.where('refund_id', '!=', except!))
      .execute();
    return {
      succeededKopecks: rows.filter((r) => r.status === 'SUCCEEDED').reduce((sum, r) => sum + BigInt(r.amount_kopecks), 0n),
      inFlight: rows.filter((r) => r.status === 'SENDING' || r.status === 'PENDING').length,
    };
  }

  /** A refund made at the acquirer, outside this service, as learnt from its state: SUCCEEDED at once. */
  async recordExternalRefund(r: Pick<AcquirerRefundRow, 'refundId' | 'invoiceId' | 'paymentId' | 'amountKopecks'>, now: Date): Promise<void> {
    await this.db
      .insertInto('acquirer_refunds')
      .values({ refund_id: r.refundId, invoice_id: r.invoiceId, payment_id: r.paymentId, amount_kopecks: r.amountKopecks.toString(), status: 'SUCCEEDED', status_before: 'EXTERNAL', created_at: now, updated_at: now })
      .executeTakeFirstOrThrow();
  }

  /** Keeps what a notification said and what it did. */
  async logNotification(n: { paymentId: string; status: string; body: object; outcome: string }, id: string, now: Date): Promise<void> {
    await this.db
      .insertInto('acquirer_notifications')
      .values({ id, provider: this.provider, payment_id: n.paymentId, status: n.status, body: JSON.stringify(n.body), outcome: n.outcome, received_at: now })
      .execute();
  }
}

/** The invoice's attempt whose money paid it (confirmed, not under review; the newest), or null: of any provider. */
export async function payingAttemptOf(on: InvoicingQueries, invoiceId: string): Promise<AcquirerPaymentRow | null> {
  const row = await payments(on.$kysely)
    .where('invoice_id', '=', invoiceId)
    .where('confirmed_at', 'is not', null)
    .where('review_reason', 'is', null)
    .orderBy('attempt', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? paymentOf(row) : null;
}

/** The acquirer payments of an invoice as the pay page's notices read them, first first. */
export function attemptNoticeRowsOf(on: InvoicingQueries, invoiceId: string) {
  return on.$kysely.selectFrom('acquirer_payments').select(['attempt', 'status', 'confirmed_at', 'review_reason']).where('invoice_id', '=', invoiceId).orderBy('attempt').execute();
}

/** The acquirer payments of an invoice as the API lists them (`attempts`), first first. */
// Prepared: every GET of an invoice runs it (see reviews/store.ts's UNSETTLED_OF_INVOICE for the figures).
const ATTEMPTS_OF_INVOICE = preparedStatement((db: InvoicingQueries['$kysely'], p: { invoiceId: string }) =>
  db
    .selectFrom('acquirer_payments')
    .select(['attempt', 'method', 'status', 'amount_kopecks', 'paid_kopecks', 'created_at', 'updated_at'])
    .where('invoice_id', '=', p.invoiceId)
    .orderBy('attempt'),
);

export function attemptRowsOf(on: InvoicingQueries, invoiceId: string) {
  return ATTEMPTS_OF_INVOICE(on.$kysely, { invoiceId });
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
