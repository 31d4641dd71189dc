import { preparedStatement } from '@pay/db';
import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Owner } from '@pay/auth';
import { type InvoicingQueries, type Tables } from '../../db';

/** Why money needs the merchant's decision (see docs/architecture.md, "Reviews"). */
export type ReviewReason = 'amount_mismatch' | 'paid_after_expiry' | 'paid_after_cancel' | 'duplicate_payment' | 'receipt_only' | 'receipt_missing' | 'invoice_refused';

/** OPEN and REFUNDING await the merchant (or the acquirer's answer); the rest are settled. */
export type ReviewStatus = 'OPEN' | 'REFUNDING' | 'ACCEPTED' | 'REFUNDED' | 'CLOSED';
const UNSETTLED: ReviewStatus[] = ['OPEN', 'REFUNDING'];

/**
 * A review as the rest of the service sees it, declared here rather than derived from the
 * generated table: a renamed or retyped column fails the type check in this store (reviewOf and
 * the statements below), not in every reader. `amount` is numeric text; times are Dates.
 */
export interface ReviewRow {
  id: string;
  invoice_id: string;
  merchant_id: string;
  is_test: boolean;
  reason: ReviewReason;
  amount: string;
  taken_at: Date;
  detail: string;
  /** `invoiceId:attempt` of the acquirer payment that took the money, or null (a receipt only). */
  payment_id: string | null;
  receipt_id: string | null;
  status: ReviewStatus;
  /** The acquirer refund of a "refund" decision. */
  refund_id: string | null;
  created_at: Date;
  resolved_at: Date | null;
}

/** The one mapping of a `payment_reviews` row to ReviewRow (its reason and status are text columns this store alone writes). */
export function reviewOf(r: Selectable<Tables.PaymentReview>): ReviewRow {
  return {
    id: r.id,
    invoice_id: r.invoice_id,
    merchant_id: r.merchant_id,
    is_test: r.is_test,
    reason: r.reason as ReviewReason,
    amount: r.amount,
    taken_at: r.taken_at,
    detail: r.detail,
    payment_id: r.payment_id,
    receipt_id: r.receipt_id,
    status: r.status as ReviewStatus,
    refund_id: r.refund_id,
    created_at: r.created_at,
    resolved_at: r.resolved_at,
  };
}

export interface NewReview {
  invoiceId: string;
  merchantId: string;
  isTest: boolean;
  reason: ReviewReason;
  /** Rubles, exact. */
  amount: string;
  takenAt: Date;
  detail: string;
  /** `invoiceId:attempt` of the acquirer payment that took the money (receipt_missing: the confirmed payment whose receipt never came), or null (receipt_only). */
  paymentKey: string | null;
  receiptId: string | null;
}

/** The one place payment_reviews is written or read. Opens a review once per payment and per receipt (unique keys): null when it exists. */
export async function insertReview(tx: InvoicingQueries, r: NewReview, now: Date): Promise<ReviewRow | null> {
  const row = await tx.$kysely
    .insertInto('payment_reviews')
    .values({
      id: randomUUID(),
      invoice_id: r.invoiceId,
      merchant_id: r.merchantId,
      is_test: r.isTest,
      reason: r.reason,
      amount: r.amount,
      taken_at: r.takenAt,
      detail: r.detail,
      payment_id: r.paymentKey,
      receipt_id: r.receiptId,
      status: 'OPEN',
      created_at: now,
    })
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();
  return row ? reviewOf(row) : null;
}

/** The invoice's review awaiting a decision (the oldest first), or null when all is well. */
// Prepared: every GET of an invoice (v2 and v1) runs it, and through `$kysely` it cost the v2
// get a tenth of its throughput against the bare baseline (bench, 2026-11-27: 53% → 42%).
const UNSETTLED_OF_INVOICE = preparedStatement((db: InvoicingQueries['$kysely'], p: { invoiceId: string }) =>
  db.selectFrom('payment_reviews').selectAll().where('invoice_id', '=', p.invoiceId).where('status', 'in', UNSETTLED).orderBy('created_at').orderBy('id').limit(1),
);

export async function unsettledReviewOf(on: InvoicingQueries, invoiceId: string): Promise<ReviewRow | null> {
  const [row] = await UNSETTLED_OF_INVOICE(on.$kysely, { invoiceId });
  return row ? reviewOf(row) : null;
}

/** The same, locked, for a decision. */
export async function lockUnsettledReview(tx: InvoicingQueries, invoiceId: string): Promise<ReviewRow | null> {
  const row = await tx.$kysely
    .selectFrom('payment_reviews')
    .selectAll()
    .where('invoice_id', '=', invoiceId)
    .where('status', 'in', UNSETTLED)
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .forUpdate()
    .executeTakeFirst();
  return row ? reviewOf(row) : null;
}

export async function settleReview(tx: InvoicingQueries, id: string, status: ReviewStatus, now: Date, refundId?: string): Promise<ReviewRow> {
  const row = await tx.$kysely
    .updateTable('payment_reviews')
    .set({ status, resolved_at: status === 'REFUNDING' ? null : now, ...(refundId ? { refund_id: refundId } : {}) })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return reviewOf(row);
}

/** Receipt-only reviews of an invoice the acquirer's own confirmation has now paid: nothing left to decide. */
export async function closeReceiptReviews(tx: InvoicingQueries, invoiceId: string, now: Date): Promise<number> {
  const rows = await tx.$kysely
    .updateTable('payment_reviews')
    .set({ status: 'CLOSED', resolved_at: now })
    .where('invoice_id', '=', invoiceId)
    .where('reason', '=', 'receipt_only')
    .where('status', '=', 'OPEN')
    .returning('id')
    .execute();
  return rows.length;
}

/** The owner's reviews awaiting a decision, oldest first (the console's list and GET /api/v2/reviews). */
export async function selectUnsettledReviews(on: InvoicingQueries, owner: Owner, q: { limit: number; offset: number }): Promise<{ rows: ReviewRow[]; total: number }> {
  const db = on.$kysely;
  const base = db.selectFrom('payment_reviews as r').where('r.merchant_id', '=', owner.merchantId).where('r.is_test', '=', owner.isTest).where('r.status', 'in', UNSETTLED);
  const [rows, count] = await Promise.all([
    base.selectAll('r').orderBy('r.created_at').orderBy('r.id').limit(q.limit).offset(q.offset).execute(),
    base.select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows: rows.map(reviewOf), total: count.total };
}
