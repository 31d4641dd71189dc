import { randomUUID } from 'node:crypto';
import { sql, type Insertable, type Selectable } from 'kysely';
import { type InvoicingQueries, type Tables } from '../../db';

/**
 * The statements on the refunds module's table (`refunds`): the only file that names it.
 * refunds.ts (reserve, settle, reconcile, list) calls these, under the invoice's lock where
 * money moves.
 */

export type RefundRow = Selectable<Tables.Refund>;

/** The refund an earlier request under this Idempotency-Key reserved on the invoice since `since`, if any. */
export async function refundOfIdempotencyKey(tx: InvoicingQueries, invoiceId: string, key: string, since: Date): Promise<RefundRow | undefined> {
  return tx.$kysely.selectFrom('refunds').selectAll().where('invoice_id', '=', invoiceId).where('idempotency_key', '=', key).where('created_at', '>', since).executeTakeFirst();
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

export type NewRefund = Required<Omit<Insertable<Tables.Refund>, 'id' | 'failure_reason' | 'settled_at' | 'status'>> & { status: 'PENDING' | 'SUCCEEDED'; settled_at: Date | null };

export async function insertRefund(tx: InvoicingQueries, r: NewRefund): Promise<RefundRow> {
  return tx.$kysely
    .insertInto('refunds')
    .values({ id: randomUUID(), ...r })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Settles a PENDING refund (once: conditional on PENDING); undefined when it was settled already. */
export async function settlePendingRefund(tx: InvoicingQueries, id: string, s: { status: 'SUCCEEDED' | 'FAILED'; failure_reason: string | null; settled_at: Date }): Promise<RefundRow | undefined> {
  return tx.$kysely.updateTable('refunds').set(s).where('id', '=', id).where('status', '=', 'PENDING').returningAll().executeTakeFirst();
}

export async function refundById(tx: InvoicingQueries, id: string): Promise<RefundRow> {
  return tx.$kysely.selectFrom('refunds').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** PENDING refunds created before `before`, oldest first (at most 100). */
export function stalePendingRefunds(on: InvoicingQueries, before: Date): Promise<RefundRow[]> {
  const tables = on.$kysely;
  return tables.selectFrom('refunds').selectAll().where('status', '=', 'PENDING').where('created_at', '<', before).orderBy('created_at').limit(100).execute();
}

/** An invoice's refunds, oldest first. */
export function refundsOfInvoice(on: InvoicingQueries, invoiceId: string): Promise<RefundRow[]> {
  const tables = on.$kysely;
  return tables.selectFrom('refunds').selectAll().where('invoice_id', '=', invoiceId).orderBy('created_at').orderBy('id').execute();
}
