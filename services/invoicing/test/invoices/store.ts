import type { Insertable, Selectable, Updateable } from 'kysely';
import type { ChaosStack } from '@pay/testing';
import type { InvoicingQueries, Tables } from '../../src/db';
import { selectInvoiceById, type InvoiceRow } from '../../src/modules/invoices/store';

/**
 * The invoices module's test helper (its store's, for tests and the bench): what tests read
 * and set on `invoicing.invoices` beside the API, without naming the table outside its owner.
 */

export type InvoiceColumns = Selectable<Tables.Invoice>;

/** The whole row, or undefined. */
export function invoiceRow(on: InvoicingQueries, id: string): Promise<InvoiceColumns | undefined> {
  return on.$kysely.selectFrom('invoices').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * These fields of one invoice (exactly them), or undefined: read as the store reads an invoice
 * (`InvoiceRow`, declared there), so a renamed column breaks the store, not the tests.
 */
export async function invoiceColumns<C extends keyof InvoiceRow>(on: InvoicingQueries, id: string, columns: readonly C[]): Promise<Pick<InvoiceRow, C> | undefined> {
  const row = await selectInvoiceById(on, id);
  return row ? (Object.fromEntries(columns.map((c) => [c, row[c]])) as unknown as Pick<InvoiceRow, C>) : undefined;
}

/** The invoice's metadata as Postgres keeps its text (key order and number spelling as stored). */
export async function invoiceMetadataText(on: InvoicingQueries, id: string): Promise<string | null | undefined> {
  const row = await on.$kysely.selectFrom('invoices').select((e) => e.cast<string>('metadata', 'text').as('metadata')).where('id', '=', id).executeTakeFirst();
  return row?.metadata;
}

/** A merchant's invoices, whole rows. */
export function merchantInvoiceRows(on: InvoicingQueries, merchantId: string): Promise<InvoiceColumns[]> {
  return on.$kysely.selectFrom('invoices').selectAll().where('merchant_id', '=', merchantId).orderBy('id').execute();
}

/** These columns of a merchant's invoices, by id (or by `orderBy`). */
export function merchantInvoices<C extends keyof InvoiceColumns & string>(
  on: InvoicingQueries,
  merchantId: string,
  columns: readonly C[],
  orderBy: keyof InvoiceColumns & string = 'id',
): Promise<Pick<InvoiceColumns, C>[]> {
  return on.$kysely.selectFrom('invoices').select(columns).where('merchant_id', '=', merchantId).orderBy(orderBy).execute() as unknown as Promise<Pick<InvoiceColumns, C>[]>;
}

/** These columns of a batch's invoices, by `orderBy`. */
export function batchInvoiceColumns<C extends keyof InvoiceColumns & string>(on: InvoicingQueries, batchId: string, columns: readonly C[], orderBy: keyof InvoiceColumns & string): Promise<Pick<InvoiceColumns, C>[]> {
  return on.$kysely.selectFrom('invoices').select(columns).where('batch_id', '=', batchId).orderBy(orderBy).execute() as unknown as Promise<Pick<InvoiceColumns, C>[]>;
}

/** How many of a batch's invoices have no stored QR image yet. */
export async function batchInvoicesWithoutQr(on: InvoicingQueries, batchId: string): Promise<number> {
  const row = await on.$kysely.selectFrom('invoices').select((e) => e.fn.countAll<string>().as('n')).where('batch_id', '=', batchId).where('qr_code', 'is', null).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Drops a batch's stored QR images, as if the process had stopped before drawing them. */
export async function clearBatchQrCodes(on: InvoicingQueries, batchId: string): Promise<void> {
  await on.$kysely.updateTable('invoices').set({ qr_code: null }).where('batch_id', '=', batchId).execute();
}

/** How many invoices a merchant has (of a mode and currency when given). */
export async function countInvoices(on: InvoicingQueries, merchantId: string, of: { isTest?: boolean; currency?: Tables.Currency } = {}): Promise<number> {
  let q = on.$kysely.selectFrom('invoices').select((e) => e.fn.countAll<string>().as('n')).where('merchant_id', '=', merchantId);
  if (of.isTest !== undefined) q = q.where('is_test', '=', of.isTest);
  if (of.currency !== undefined) q = q.where('currency', '=', of.currency);
  return Number((await q.executeTakeFirstOrThrow()).n);
}

/** The ids of a merchant's invoices created with this Idempotency-Key. */
export async function invoiceIdsWithKey(on: InvoicingQueries, merchantId: string, key: string): Promise<string[]> {
  const rows = await on.$kysely.selectFrom('invoices').select('id').where('merchant_id', '=', merchantId).where('idempotency_key', '=', key).execute();
  return rows.map((r) => r.id);
}

/** Sets an invoice's status as a process would have (e.g. EXPIRED by the expiry loop). */
export async function setInvoiceStatus(on: InvoicingQueries, id: string, status: Tables.InvoiceStatus): Promise<void> {
  await on.$kysely.updateTable('invoices').set({ status }).where('id', '=', id).execute();
}

/** Marks an invoice KYC-verified, as a KYC session bound to it would. */
export async function setInvoiceKycVerified(on: InvoicingQueries, id: string): Promise<void> {
  await on.$kysely.updateTable('invoices').set({ kyc_verified: true }).where('id', '=', id).execute();
}

/** Moves an invoice's expiry (e.g. into the past: due without waiting). */
export async function setInvoiceExpiresAt(on: InvoicingQueries, id: string, at: Date): Promise<void> {
  await on.$kysely.updateTable('invoices').set({ expires_at: at }).where('id', '=', id).execute();
}

/** Sets these columns of one invoice (test set-up: a state the API reaches slowly or not at all). */
export async function updateInvoice(on: InvoicingQueries, id: string, set: Updateable<Tables.Invoice>): Promise<void> {
  await on.$kysely.updateTable('invoices').set(set).where('id', '=', id).execute();
}

/** Writes invoice rows straight to the table (a backlog or history the API would take long to build). */
export async function insertInvoiceRows(on: InvoicingQueries, rows: Insertable<Tables.Invoice>[]): Promise<void> {
  if (rows.length) await on.$kysely.insertInto('invoices').values(rows).execute();
}

/*
 * On a chaos stack's database (its own Postgres, reached with one statement per connection so a
 * read works across restarts of the server): SQL text, as the stack offers.
 */

/**
 * How a merchant's invoices in a chaos stack's database stand against the Idempotency-Keys its
 * client sent: keys with no invoice (lost), invoices beyond one per key (duplicated), and the
 * invoice of each key.
 */
export async function invoicesByKey(stack: Pick<ChaosStack, 'query'>, merchantId: string, keys: string[]) {
  const rows = await stack.query<{ key: string; n: number; id: string; created_at: Date }>(
    `SELECT idempotency_key AS key, count(*)::int AS n, min(id::text) AS id, min(created_at) AS created_at
       FROM invoicing.invoices WHERE merchant_id = $1 GROUP BY idempotency_key`,
    [merchantId],
  );
  const byKey = new Map(rows.map((r) => [r.key, r]));
  return {
    lost: keys.filter((k) => !byKey.has(k)),
    duplicated: rows.reduce((sum, r) => sum + r.n - 1, 0),
    idOf: (key: string) => byKey.get(key)?.id,
    createdAt: (key: string) => byKey.get(key)?.created_at,
  };
}

/** The ids of the invoices on a chaos stack's database (with this Idempotency-Key when given). */
export async function invoiceIdsOnStack(stack: Pick<ChaosStack, 'query'>, idempotencyKey?: string): Promise<string[]> {
  const rows =
    idempotencyKey === undefined
      ? await stack.query<{ id: string }>('SELECT id::text FROM invoicing.invoices')
      : await stack.query<{ id: string }>('SELECT id::text FROM invoicing.invoices WHERE idempotency_key = $1', [idempotencyKey]);
  return rows.map((r) => r.id);
}

/** An invoice's refunded amount on a chaos stack's database, as the column's text. */
export async function refundedAmountOnStack(stack: Pick<ChaosStack, 'query'>, id: string): Promise<string | undefined> {
  const [row] = await stack.query<{ refunded: string }>('SELECT refunded_amount::text AS refunded FROM invoicing.invoices WHERE id = $1', [id]);
  return row?.refunded;
}

/** Runs SQL text on a database of its own (an e2e stack's pool, a chaos stack's `query`). */
export type SqlQuery = <T extends Record<string, unknown>>(text: string, values?: unknown[]) => Promise<T[]>;

/** Moves these invoices' expiry to now (v2 cannot ask for less than 15 minutes), those of this API only; SQL text. */
export async function expireNowIn(query: SqlQuery, ids: string[], api: Tables.ApiVersion): Promise<void> {
  await query(`UPDATE invoicing.invoices SET expires_at = now() WHERE id = ANY($1::uuid[]) AND api = $2`, [ids, api]);
}

/** How many of these invoices are still PENDING; SQL text. */
export async function pendingInvoicesIn(query: SqlQuery, ids: string[]): Promise<number> {
  const [row] = await query<{ n: number }>(`SELECT count(*)::int AS n FROM invoicing.invoices WHERE id = ANY($1::uuid[]) AND status = 'PENDING'`, [ids]);
  return row!.n;
}

/** These invoices' statuses (`[{ id, status }]`); SQL text. */
export function invoiceStatusesIn(query: SqlQuery, ids: string[]): Promise<{ id: string; status: string }[]> {
  return query(`SELECT id::text, status::text FROM invoicing.invoices WHERE id = ANY($1::uuid[])`, [ids]);
}

/** How many invoices came from batches, and how many distinct external ids they have; SQL text. */
export async function batchInvoiceCountsIn(query: SqlQuery): Promise<{ n: number; distinct: number }> {
  const [row] = await query<{ n: number; distinct: number }>(`SELECT count(*)::int AS n, count(DISTINCT external_id)::int AS distinct FROM invoicing.invoices WHERE batch_id IS NOT NULL`);
  return row!;
}
