import { randomUUID } from 'node:crypto';
import { sql, type Insertable, type Selectable } from 'kysely';
import { type InvoicingQueries, type Tables } from '../../db';

/**
 * The statements on the refunds module's table (`refunds`): the only file that names it.
 * refunds.ts (reserve, settle, reconcile, list) calls these, under the invoice's lock where
 * money moves.
 */

export type RefundStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED';

/**
 * A refund as the rest of the service sees it, declared here rather than derived from the
 * generated table: a renamed or retyped column fails the type check in this store (refundOf and
 * the statements below), not in every reader. Amounts are numeric text; times are Dates.
 */
export interface RefundRow {
  id: string;
  invoice_id: string;
  merchant_id: string;
  is_test: boolean;
  amount: string;
  status: RefundStatus;
  reason: string | null;
  failure_reason: string | null;
  created_at: Date;
  settled_at: Date | null;
  idempotency_key: string | null;
}

/** The one mapping of a `refunds` row to RefundRow. */
export function refundOf(r: Selectable<Tables.Refund>): RefundRow {
  return {
    id: r.id,
    invoice_id: r.invoice_id,
    merchant_id: r.merchant_id,
    is_test: r.is_test,
    amount: r.amount,
    status: r.status,
    reason: r.reason,
    failure_reason: r.failure_reason,
    created_at: r.created_at,
    settled_at: r.settled_at,
    idempotency_key: r.idempotency_key,
  };
}

const maybeRefund = (r: Selectable<Tables.Refund> | undefined): RefundRow | undefined => (r ? refundOf(r) : undefined);

/** The refund an earlier request under this Idempotency-Key reserved on the invoice since `since`, if any. */
export async function refundOfIdempotencyKey(tx: InvoicingQueries, invoiceId: string, key: string, since: Date): Promise<RefundRow | undefined> {
  return maybeRefund(await tx.$kysely.selectFrom('refunds').selectAll().where('invoice_id', '=', invoiceId).where('idempotency_key', '=', key).where('created_at', '>', since).executeTakeFirst());
}

/** What the invoice's refunds not FAILED (pending ones included) hold, as decimal text. */
export async function heldByRefunds(tx: InvoicingQueries, invoiceId: string): Promise<string> {
  const held = await tx.$kysely
    .selectFrom('refunds')
    .select((eb) => eb.cast<string>(eb.fn.coalesce(eb.fn.sum('amount'), sql.lit(0)), 'text').as('sum'))
    .where('invoice_id', '=', invoiceId)
    .where('status', '<>', 'FAILED')
    .executeTakeFirstOrThrow();
  return held.sum;
}

/** What `insertRefund` writes: a refund reserved (PENDING) or made already (SUCCEEDED, at the acquirer). */
export type NewRefund = Omit<RefundRow, 'id' | 'failure_reason' | 'status'> & { status: 'PENDING' | 'SUCCEEDED' };

export async function insertRefund(tx: InvoicingQueries, r: NewRefund): Promise<RefundRow> {
  const row: Insertable<Tables.Refund> = {
    id: randomUUID(),
    invoice_id: r.invoice_id,
    merchant_id: r.merchant_id,
    is_test: r.is_test,
    amount: r.amount,
    status: r.status,
    reason: r.reason,
    created_at: r.created_at,
    settled_at: r.settled_at,
    idempotency_key: r.idempotency_key,
  };
  return refundOf(await tx.$kysely.insertInto('refunds').values(row).returningAll().executeTakeFirstOrThrow());
}

/** Settles a PENDING refund (once: conditional on PENDING); undefined when it was settled already. */
export async function settlePendingRefund(tx: InvoicingQueries, id: string, s: { status: 'SUCCEEDED' | 'FAILED'; failure_reason: string | null; settled_at: Date }): Promise<RefundRow | undefined> {
  // Each column spelt out in the literal (not `.set(s)`): a renamed column fails here, where a passed-in object is not checked for extra keys.
  return maybeRefund(
    await tx.$kysely
      .updateTable('refunds')
      .set({ status: s.status, failure_reason: s.failure_reason, settled_at: s.settled_at })
      .where('id', '=', id)
      .where('status', '=', 'PENDING')
      .returningAll()
      .executeTakeFirst(),
  );
}

export async function refundById(tx: InvoicingQueries, id: string): Promise<RefundRow> {
  return refundOf(await tx.$kysely.selectFrom('refunds').selectAll().where('id', '=', id).executeTakeFirstOrThrow());
}

/** PENDING refunds created before `before`, oldest first (at most 100). */
export async function stalePendingRefunds(on: InvoicingQueries, before: Date): Promise<RefundRow[]> {
  const rows = await on.$kysely.selectFrom('refunds').selectAll().where('status', '=', 'PENDING').where('created_at', '<', before).orderBy('created_at').limit(100).execute();
  return rows.map(refundOf);
}

/** An invoice's refunds, oldest first. */
export async function refundsOfInvoice(on: InvoicingQueries, invoiceId: string): Promise<RefundRow[]> {
  const rows = await on.$kysely.selectFrom('refunds').selectAll().where('invoice_id', '=', invoiceId).orderBy('created_at').orderBy('id').execute();
  return rows.map(refundOf);
}
