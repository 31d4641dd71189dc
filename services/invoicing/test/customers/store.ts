import type { Selectable, Updateable } from 'kysely';
import type { SqlQuery } from '../invoices/store';
import type { InvoicingQueries, Tables } from '../../src/db';

/**
 * The customers module's test helper (its store's, for tests and the bench): what tests read
 * and set on `invoicing.customers` beside the API, without naming the table outside its owner.
 */

export type CustomerColumns = Selectable<Tables.Customer>;

/** A merchant's customers, whole rows, by id. */
export function customersOf(on: InvoicingQueries, merchantId: string): Promise<CustomerColumns[]> {
  return on.$kysely.selectFrom('customers').selectAll().where('merchant_id', '=', merchantId).orderBy('id').execute();
}

/** These columns of a merchant's customers (in the table's order when there is one). */
export function customerColumnsOf<C extends keyof CustomerColumns & string>(on: InvoicingQueries, merchantId: string, columns: readonly C[], of: { isTest?: boolean } = {}): Promise<Pick<CustomerColumns, C>[]> {
  let q = on.$kysely.selectFrom('customers').select(columns).where('merchant_id', '=', merchantId);
  if (of.isTest !== undefined) q = q.where('is_test', '=', of.isTest);
  return q.execute() as unknown as Promise<Pick<CustomerColumns, C>[]>;
}

/** These columns of one customer, or undefined. */
export function customerColumns<C extends keyof CustomerColumns & string>(on: InvoicingQueries, id: string, columns: readonly C[]): Promise<Pick<CustomerColumns, C> | undefined> {
  return on.$kysely.selectFrom('customers').select(columns).where('id', '=', id).executeTakeFirst() as unknown as Promise<Pick<CustomerColumns, C> | undefined>;
}

/** Sets a merchant's customers' KYC (all of them, or those matching `where`), as issue 10's flow would. */
export async function setCustomersKyc(
  on: InvoicingQueries,
  merchantId: string,
  set: Pick<Updateable<Tables.Customer>, 'kyc_status' | 'trust_level'>,
  where: { email?: string; fullName?: string } = {},
): Promise<void> {
  let q = on.$kysely.updateTable('customers').set(set).where('merchant_id', '=', merchantId);
  if (where.email !== undefined) q = q.where('email', '=', where.email);
  if (where.fullName !== undefined) q = q.where('full_name', '=', where.fullName);
  await q.execute();
}

/** Every customer's e-mail, payments counted and total (text), by e-mail; SQL text on a database of its own (an e2e stack's). */
export function customerTotalsIn(query: SqlQuery): Promise<{ email: string | null; total_payments: number; total: string }[]> {
  return query(`SELECT email, total_payments, total_amount::text AS total FROM invoicing.customers ORDER BY email`);
}
