import { randomUUID } from 'node:crypto';
import type { Expression, Kysely, Selectable, Updateable } from 'kysely';
import type { Owner } from '@pay/auth';
import type { CryptoQueries, DB, Tables } from '../../db';
import type { Currency, Network, TransactionStatus } from '../../generated/kysely/tables';
import { money, type Money } from '../../shared/money';

/**
 * The one owner of `crypto.transactions` (incoming transfers): every statement on the table is
 * here. Each function runs on what it is given: the client (`deps.db`) or a transaction (`tx`).
 */

/** An incoming transfer as the module hands it out. */
export interface TransactionRecord {
  id: string;
  invoiceId: string;
  merchantId: string;
  isTest: boolean;
  txHash: string;
  fromAddress: string;
  toAddress: string;
  amount: Money;
  currency: Currency;
  network: Network;
  status: TransactionStatus;
  confirmations: number;
  requiredConfirmations: number;
  blockNumber: bigint | null;
  note: string | null;
  createdAt: Date;
  confirmedAt: Date | null;
}

export interface NewTransaction {
  invoiceId: string;
  merchantId: string;
  isTest: boolean;
  txHash: string;
  fromAddress: string;
  toAddress: string;
  amount: Money;
  currency: Currency;
  network: Network;
  requiredConfirmations: number;
  blockNumber: number | null;
  note: string | null;
  createdAt: Date;
}

export function transactionOf(r: Selectable<Tables.Transaction>): TransactionRecord {
  return {
    id: r.id,
    invoiceId: r.invoice_id,
    merchantId: r.merchant_id,
    isTest: r.is_test,
    txHash: r.tx_hash,
    fromAddress: r.from_address,
    toAddress: r.to_address,
    amount: money(r.amount),
    currency: r.currency,
    network: r.network,
    status: r.status,
    confirmations: r.confirmations,
    requiredConfirmations: r.required_confirmations,
    blockNumber: r.block_number === null ? null : BigInt(r.block_number),
    note: r.note,
    createdAt: r.created_at,
    confirmedAt: r.confirmed_at,
  };
}

/** Records a transfer as Pending (a unique violation when its transfer to that address is known). */
export async function insertTransaction(on: CryptoQueries, t: NewTransaction): Promise<TransactionRecord> {
  const row = await on.$kysely
    .insertInto('transactions')
    .values({
      id: randomUUID(),
      invoice_id: t.invoiceId,
      merchant_id: t.merchantId,
      is_test: t.isTest,
      tx_hash: t.txHash,
      from_address: t.fromAddress,
      to_address: t.toAddress,
      amount: t.amount.toFixed(),
      currency: t.currency,
      network: t.network,
      required_confirmations: t.requiredConfirmations,
      block_number: t.blockNumber === null ? null : String(t.blockNumber),
      note: t.note,
      created_at: t.createdAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return transactionOf(row);
}

/** The `txHash:toAddress` of the transfers already recorded on `network` among these transaction hashes. */
export async function knownTransfers(on: CryptoQueries, network: Network, txHashes: string[]): Promise<Set<string>> {
  if (txHashes.length === 0) return new Set();
  const rows = await on.$kysely.selectFrom('transactions').select(['tx_hash', 'to_address']).where('network', '=', network).where('tx_hash', 'in', txHashes).execute();
  return new Set(rows.map((t) => `${t.tx_hash}:${t.to_address}`));
}

/** Locks the transfer for the rest of `tx` if it is still Pending with `confirmations` (SKIP LOCKED: false when another holds it). */
export async function lockPendingTransfer(tx: CryptoQueries, id: string, confirmations: number): Promise<boolean> {
  const row = await tx.$kysely
    .selectFrom('transactions')
    .select('id')
    .where('id', '=', id)
    .where('status', '=', 'Pending')
    .where('confirmations', '=', confirmations)
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
  return row !== undefined;
}

/** What a tracker writes of a transfer. */
export interface TransferChange {
  status?: TransactionStatus;
  confirmations?: number;
  blockNumber: number | null;
  note?: string;
  confirmedAt?: Date;
}

/** Writes a transfer's tracked columns (in the transaction that locked its row). */
export async function updateTransfer(tx: CryptoQueries, id: string, c: TransferChange): Promise<void> {
  const set: Updateable<Tables.Transaction> = { block_number: c.blockNumber === null ? null : String(c.blockNumber) };
  if (c.status !== undefined) set.status = c.status;
  if (c.confirmations !== undefined) set.confirmations = c.confirmations;
  if (c.note !== undefined) set.note = c.note;
  if (c.confirmedAt !== undefined) set.confirmed_at = c.confirmedAt;
  await tx.$kysely.updateTable('transactions').set(set).where('id', '=', id).execute();
}

/** Pending transfers of one mode, oldest first. */
export async function pendingTransfersOf(on: CryptoQueries, isTest: boolean, limit: number): Promise<TransactionRecord[]> {
  const rows = await on.$kysely.selectFrom('transactions').selectAll().where('status', '=', 'Pending').where('is_test', '=', isTest).orderBy('created_at', 'asc').limit(limit).execute();
  return rows.map(transactionOf);
}

/** The sum of the invoice's Pending transfers seen before `before`. */
export async function pendingSumBefore(on: CryptoQueries, invoiceId: string, before: Date): Promise<string | null> {
  const { sum } = await on.$kysely
    .selectFrom('transactions')
    .select((eb) => eb.fn.sum<string | null>('amount').as('sum'))
    .where('invoice_id', '=', invoiceId)
    .where('status', '=', 'Pending')
    .where('created_at', '<', before)
    .executeTakeFirstOrThrow();
  return sum;
}

/** One page of the owner's transfers, newest first, and how many there are; `invoiceId` narrows to one invoice. */
export async function transactionPage(
  on: CryptoQueries,
  owner: Owner,
  q: { skip: number; take: number; invoiceId?: string },
): Promise<{ items: TransactionRecord[]; totalCount: number }> {
  const base = on.$kysely
    .selectFrom('transactions')
    .where('merchant_id', '=', owner.merchantId)
    .where('is_test', '=', owner.isTest)
    .$if(q.invoiceId !== undefined, (qb) => qb.where('invoice_id', '=', q.invoiceId!));
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').offset(q.skip).limit(q.take).execute(),
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items: rows.map(transactionOf), totalCount: Number(count.n) };
}

/** One of the owner's transfers, or null. */
export async function ownedTransaction(on: CryptoQueries, owner: Owner, id: string): Promise<TransactionRecord | null> {
  const row = await on.$kysely.selectFrom('transactions').selectAll().where('id', '=', id).where('merchant_id', '=', owner.merchantId).where('is_test', '=', owner.isTest).executeTakeFirst();
  return row ? transactionOf(row) : null;
}

/**
 * What live Confirmed transfers to `toAddress` in `currency` on `network`, in blocks up to
 * `block`, add up to, `txHash` left out (null when there are none).
 */
export async function confirmedLiveSumTo(on: CryptoQueries, ref: { network: Network; currency: Currency; toAddress: string; txHash: string }, block: number): Promise<string | null> {
  const { sum } = await on.$kysely
    .selectFrom('transactions')
    .select((eb) => eb.fn.sum<string | null>('amount').as('sum'))
    .where('is_test', '=', false)
    .where('network', '=', ref.network)
    .where('currency', '=', ref.currency)
    .where('to_address', '=', ref.toAddress)
    .where('status', '=', 'Confirmed')
    .where('block_number', '<=', String(block))
    .where('tx_hash', '!=', ref.txHash)
    .executeTakeFirstOrThrow();
  return sum;
}

/**
 * The transfers to one invoice (of one status, if given), as a subquery another owner's
 * statement may test with EXISTS: `invoiceId` is the outer statement's column (`eb.ref('i.id')`).
 */
export function transfersToInvoice(db: Kysely<DB>, invoiceId: Expression<string>, status?: TransactionStatus) {
  return db
    .selectFrom('transactions as t')
    .select('t.id')
    .where('t.invoice_id', '=', invoiceId)
    .$if(status !== undefined, (qb) => qb.where('t.status', '=', status!));
}
