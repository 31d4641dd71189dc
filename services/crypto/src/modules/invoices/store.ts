import { sql, type Expression } from 'kysely';
import { preparedStatement, type Kysely } from '@pay/db';
import type { Owner } from '@pay/auth';
import type { CryptoQueries, DB } from '../../db';
import type { Currency, InvoiceStatus, Network, TransactionStatus } from '../../generated/kysely/tables';

/**
 * The one owner of `crypto.invoices`: every statement that reads or writes the table is here.
 * Each function runs on what it is given: the client (`deps.db`) or a transaction (`tx`).
 */

/**
 * The transfers to one invoice (of one status, if given) as a subquery for EXISTS, `invoiceId`
 * being this store's column: the transactions module's (its `transfersToInvoice`), handed in by
 * the caller, so that only its store names its table and invoices does not depend on it.
 */
export type TransfersToInvoice = (db: Kysely<DB>, invoiceId: Expression<string>, status?: TransactionStatus) => Expression<unknown>;

/** An invoice as the module hands it out: amounts as numeric text (as Postgres gives them). */
export interface InvoiceRecord {
  id: string;
  merchantId: string;
  isTest: boolean;
  amount: string;
  currency: Currency;
  network: Network;
  address: string;
  description: string | null;
  status: InvoiceStatus;
  amountReceived: string;
  expiresAt: Date;
  paidAt: Date | null;
  createdAt: Date;
  depositIndex: number | null;
}

/** The row as `InvoiceRecord`. */
const RECORD = [
  'id',
  'merchant_id as merchantId',
  'is_test as isTest',
  'amount',
  'currency',
  'network',
  'address',
  'description',
  'status',
  'amount_received as amountReceived',
  'expires_at as expiresAt',
  'paid_at as paidAt',
  'created_at as createdAt',
  'deposit_index as depositIndex',
] as const;

export interface NewInvoice {
  id: string;
  merchantId: string;
  isTest: boolean;
  amount: string;
  currency: Currency;
  network: Network;
  address: string;
  description: string | null;
  expiresAt: Date;
  createdAt: Date;
  depositIndex: number | null;
}

// Creating and reading invoices by id are the hot paths: one prepared statement each on the pool.
const INSERT = preparedStatement((db: Kysely<DB>, p: NewInvoice) =>
  db
    .insertInto('invoices')
    .values({
      id: p.id,
      merchant_id: p.merchantId,
      is_test: p.isTest,
      amount: p.amount,
      currency: p.currency,
      network: p.network,
      address: p.address,
      description: p.description,
      expires_at: p.expiresAt,
      created_at: p.createdAt,
      deposit_index: p.depositIndex,
    })
    .returning(RECORD),
);

const GET = preparedStatement((db: Kysely<DB>, p: { id: string; merchantId: string; isTest: boolean }) =>
  db.selectFrom('invoices').select(RECORD).where('id', '=', p.id).where('merchant_id', '=', p.merchantId).where('is_test', '=', p.isTest),
);

export async function insertInvoice(on: CryptoQueries, invoice: NewInvoice): Promise<InvoiceRecord> {
  const [row] = await INSERT(on.$kysely, invoice);
  return row!;
}

/** One of the owner's invoices, or null when it is not theirs (or not in this mode). */
export async function ownedInvoice(on: CryptoQueries, owner: Owner, id: string): Promise<InvoiceRecord | null> {
  const [row] = await GET(on.$kysely, { id, merchantId: owner.merchantId, isTest: owner.isTest });
  return row ?? null;
}

/** Any invoice by id. */
export async function invoiceWithId(on: CryptoQueries, id: string): Promise<InvoiceRecord | null> {
  return (await on.$kysely.selectFrom('invoices').select(RECORD).where('id', '=', id).executeTakeFirst()) ?? null;
}

/** One page of the owner's invoices, newest first, and how many there are. */
export async function invoicePage(
  on: CryptoQueries,
  owner: Owner,
  q: { skip: number; take: number; status?: InvoiceStatus },
): Promise<{ items: InvoiceRecord[]; totalCount: number }> {
  const base = on.$kysely
    .selectFrom('invoices')
    .where('merchant_id', '=', owner.merchantId)
    .where('is_test', '=', owner.isTest)
    .$if(q.status !== undefined, (qb) => qb.where('status', '=', q.status!));
  const [items, count] = await Promise.all([
    base.select(RECORD).orderBy('created_at', 'desc').orderBy('id', 'desc').offset(q.skip).limit(q.take).execute(),
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items, totalCount: Number(count.n) };
}

/** How many of the owner's invoices are in each status (merchant statistics). */
export async function invoiceCountsByStatus(on: CryptoQueries, owner: Owner): Promise<Map<InvoiceStatus, number>> {
  const rows = await on.$kysely
    .selectFrom('invoices')
    .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
    .where('merchant_id', '=', owner.merchantId)
    .where('is_test', '=', owner.isTest)
    .groupBy('status')
    .execute();
  return new Map(rows.map((r) => [r.status, Number(r.n)]));
}

/**
 * Closes invoices whose time ran out at `now`, but those waiting for the confirmations of a
 * transfer (Pending): a partly paid invoice becomes Underpaid, any other Expired.
 */
export async function expireInvoicesDueBy(on: CryptoQueries, now: Date, transfersToInvoice: TransfersToInvoice): Promise<number> {
  const db = on.$kysely;
  const res = await db
    .updateTable('invoices as i')
    .set((eb) => ({
      status: eb.cast<InvoiceStatus>(eb.case().when('i.status', '=', 'PartiallyPaid').then(sql.lit('Underpaid')).else(sql.lit('Expired')).end(), sql.id('InvoiceStatus')),
    }))
    .where('i.status', 'in', ['Pending', 'PartiallyPaid'])
    .where('i.expires_at', '<=', now)
    .where((eb) => eb.not(eb.exists(transfersToInvoice(db, eb.ref('i.id'), 'Pending'))))
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}

/** Live invoices paid to these addresses of `network`, by address. */
export async function liveInvoicesByAddress(on: CryptoQueries, network: Network, addresses: string[]): Promise<Map<string, { id: string; merchantId: string; currency: Currency }>> {
  if (addresses.length === 0) return new Map();
  const rows = await on.$kysely
    .selectFrom('invoices')
    .select(['id', 'merchant_id', 'address', 'currency'])
    .where('network', '=', network)
    .where('is_test', '=', false)
    .where('address', 'in', addresses)
    .execute();
  return new Map(rows.map((r) => [r.address, { id: r.id, merchantId: r.merchant_id, currency: r.currency }]));
}

/** The deposit addresses of live invoices in `currency` that a transfer was recorded to. */
export async function fundedLiveAddresses(on: CryptoQueries, currency: Currency, transfersToInvoice: TransfersToInvoice): Promise<string[]> {
  const db = on.$kysely;
  const rows = await db
    .selectFrom('invoices as i')
    .select('i.address')
    .where('i.currency', '=', currency)
    .where('i.is_test', '=', false)
    .where((eb) => eb.exists(transfersToInvoice(db, eb.ref('i.id'))))
    .orderBy('i.address')
    .execute();
  return rows.map((r) => r.address);
}

/** Every live invoice's deposit address with its BIP-32 index, its status, and whether a transfer to it waits for confirmations. */
export async function liveDepositIndexes(on: CryptoQueries, transfersToInvoice: TransfersToInvoice): Promise<{ address: string; index: number; network: Network; status: InvoiceStatus; confirming: boolean }[]> {
  const db = on.$kysely;
  const rows = await db
    .selectFrom('invoices as i')
    .select(['i.address', 'i.deposit_index', 'i.network', 'i.status'])
    .select((eb) => eb.exists(transfersToInvoice(db, eb.ref('i.id'), 'Pending')).as('confirming'))
    .where('i.is_test', '=', false)
    .where('i.deposit_index', 'is not', null)
    .orderBy('i.deposit_index')
    .execute();
  return rows.map((r) => ({ address: r.address, index: r.deposit_index!, network: r.network, status: r.status, confirming: Boolean(r.confirming) }));
}

/** The invoice, its row locked for the rest of the caller's transaction; null when there is none. */
export async function lockInvoice(tx: CryptoQueries, id: string): Promise<InvoiceRecord | null> {
  return (await tx.$kysely.selectFrom('invoices').select(RECORD).where('id', '=', id).forUpdate().executeTakeFirst()) ?? null;
}

/** What a transfer changed: the amount received, the status, and when it was paid (if it now is). */
export async function setReceived(tx: CryptoQueries, id: string, change: { amountReceived: string; status: InvoiceStatus; paidAt?: Date }): Promise<InvoiceRecord> {
  return tx.$kysely
    .updateTable('invoices')
    .set({ amount_received: change.amountReceived, status: change.status, ...(change.paidAt ? { paid_at: change.paidAt } : {}) })
    .where('id', '=', id)
    .returning(RECORD)
    .executeTakeFirstOrThrow();
}
