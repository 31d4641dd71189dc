import type { Selectable } from 'kysely';
import type { InvoicingQueries, Tables } from '../../src/db';

/**
 * The payments module's test helper (its store's, for tests and the bench): an invoice's
 * acquirer payments and the notifications heard about them, without naming the tables outside
 * their owner.
 */

export type AcquirerPaymentColumns = Selectable<Tables.AcquirerPayment>;
export type AcquirerNotificationColumns = Selectable<Tables.AcquirerNotification>;

/** An invoice's acquirer payment (its first attempt, or `attempt`); throws when there is none. */
export function acquirerPaymentOf(on: InvoicingQueries, invoiceId: string, attempt?: number): Promise<AcquirerPaymentColumns> {
  let q = on.$kysely.selectFrom('acquirer_payments').selectAll().where('invoice_id', '=', invoiceId);
  if (attempt !== undefined) q = q.where('attempt', '=', attempt);
  return q.orderBy('attempt').limit(1).executeTakeFirstOrThrow();
}

/** How many acquirer payments an invoice has had. */
export async function countAcquirerPayments(on: InvoicingQueries, invoiceId: string): Promise<number> {
  const row = await on.$kysely.selectFrom('acquirer_payments').select((e) => e.fn.countAll<string>().as('n')).where('invoice_id', '=', invoiceId).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Moves an acquirer payment's creation and last news back to `at` (open and unheard since then). */
export async function backdateAcquirerPayment(on: InvoicingQueries, paymentId: string, at: Date): Promise<void> {
  await on.$kysely.updateTable('acquirer_payments').set({ created_at: at, updated_at: at }).where('payment_id', '=', paymentId).execute();
}

/** The notifications heard about one acquirer payment, in the order received. */
export function acquirerNotificationsOf(on: InvoicingQueries, paymentId: string): Promise<AcquirerNotificationColumns[]> {
  return on.$kysely.selectFrom('acquirer_notifications').selectAll().where('payment_id', '=', paymentId).orderBy('received_at').execute();
}
