import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { ApiError } from '@pay/schemas';
import { prepared } from '@pay/db';
import { pageWindow } from '@pay/http';
import type { Owner } from '@pay/auth';
import type { Currency, InvoiceStatus, Network, Prisma } from '../../generated/prisma/client';
import { invoiceJson, type InvoiceRecord } from './views';
import type { CryptoDeps } from '../../deps';
import { tablesIn, type CryptoTables, type CryptoTx } from '../../db';
import { currencyInfo } from '../../shared/currencies';
import { money, parseAmount } from '../../shared/money';
import { requireChain } from '../../chains/registry';
import { emitEvent } from '../events/events';

/**
 * The one owner of `crypto.invoices`: every statement that reads or writes the table is here.
 * Transfers credit invoices through `settleInvoice`, merchant statistics count them through
 * `invoiceCountsByStatus`, the payment page reads one through `invoiceById`.
 */

type Tx = CryptoTx;

export interface CreateInvoiceInput {
  amount: number;
  currency: Currency;
  description?: string;
  expiresInMinutes?: number;
}

/** The row as `InvoiceRecord` (the fields Prisma returns, amounts as numeric text). */
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

interface NewInvoice {
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
const INSERT = prepared((db: CryptoTables, p: NewInvoice) =>
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

const GET = prepared((db: CryptoTables, p: { id: string; merchantId: string; isTest: boolean }) =>
  db.selectFrom('invoices').select(RECORD).where('id', '=', p.id).where('merchant_id', '=', p.merchantId).where('is_test', '=', p.isTest),
);

export async function createInvoice(deps: CryptoDeps, owner: Owner, input: CreateInvoiceInput): Promise<InvoiceRecord> {
  const chain = requireChain(deps.chains, owner.isTest, 'invoices', input.currency);
  const amount = parseAmount(input.amount);
  const { network } = currencyInfo(input.currency);
  const deposit = await chain.depositAddress(network);
  const ttlMinutes = input.expiresInMinutes ?? deps.config.INVOICE_DEFAULT_TTL_MINUTES;
  const now = deps.clock.now();
  const [row] = await INSERT(deps.tables, {
    id: randomUUID(),
    merchantId: owner.merchantId,
    isTest: owner.isTest,
    amount: amount.toFixed(),
    currency: input.currency,
    network,
    address: deposit.address,
    description: input.description ?? null,
    expiresAt: new Date(now.getTime() + ttlMinutes * 60_000),
    createdAt: now,
    depositIndex: deposit.index,
  });
  return row!;
}

/** One of the owner's invoices, or null when it is not theirs (or not in this mode). */
export async function invoiceOf(deps: CryptoDeps, owner: Owner, id: string): Promise<InvoiceRecord | null> {
  const [row] = await GET(deps.tables, { id, merchantId: owner.merchantId, isTest: owner.isTest });
  return row ?? null;
}

export async function getInvoice(deps: CryptoDeps, owner: Owner, id: string): Promise<InvoiceRecord> {
  const invoice = await invoiceOf(deps, owner, id);
  if (!invoice) throw new ApiError('NOT_FOUND', `Invoice ${id} not found`);
  return invoice;
}

/** Any invoice by id, for its payment page (the id in the link is the capability). */
export async function invoiceById(deps: CryptoDeps, id: string): Promise<InvoiceRecord | null> {
  return (await deps.tables.selectFrom('invoices').select(RECORD).where('id', '=', id).executeTakeFirst()) ?? null;
}

export async function listInvoices(deps: CryptoDeps, owner: Owner, q: { page: number; pageSize: number; status?: InvoiceStatus }) {
  const where: Prisma.InvoiceWhereInput = { merchantId: owner.merchantId, isTest: owner.isTest, ...(q.status ? { status: q.status } : {}) };
  const [items, totalCount] = await Promise.all([
    deps.db.invoice.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], ...pageWindow(q) }),
    deps.db.invoice.count({ where }),
  ]);
  return { items, totalCount };
}

/** How many of the owner's invoices are in each status (merchant statistics). */
export async function invoiceCountsByStatus(deps: CryptoDeps, owner: Owner): Promise<Map<InvoiceStatus, number>> {
  const rows = await deps.tables
    .selectFrom('invoices')
    .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
    .where('merchant_id', '=', owner.merchantId)
    .where('is_test', '=', owner.isTest)
    .groupBy('status')
    .execute();
  return new Map(rows.map((r) => [r.status, Number(r.n)]));
}

/**
 * Closes invoices whose time ran out. One that is waiting for the confirmations of a
 * transfer seen in time is left open: that transfer still counts toward it.
 * A partly paid invoice becomes Underpaid (the amount received stays in the balance).
 */
export async function expireDueInvoices(deps: CryptoDeps): Promise<number> {
  const res = await deps.tables
    .updateTable('invoices as i')
    .set((eb) => ({
      status: eb.cast<InvoiceStatus>(eb.case().when('i.status', '=', 'PartiallyPaid').then(sql.lit('Underpaid')).else(sql.lit('Expired')).end(), sql.id('InvoiceStatus')),
    }))
    .where('i.status', 'in', ['Pending', 'PartiallyPaid'])
    .where('i.expires_at', '<=', deps.clock.now())
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('transactions as t').select('t.id').whereRef('t.invoice_id', '=', 'i.id').where('t.status', '=', 'Pending'))),
    )
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}

/** Live invoices paid to these addresses of `network`, by address: what a watcher's found transfers pay. */
export async function liveInvoicesByAddress(deps: CryptoDeps, network: Network, addresses: string[]): Promise<Map<string, { id: string; merchantId: string; currency: Currency }>> {
  if (addresses.length === 0) return new Map();
  const rows = await deps.tables
    .selectFrom('invoices')
    .select(['id', 'merchant_id', 'address', 'currency'])
    .where('network', '=', network)
    .where('is_test', '=', false)
    .where('address', 'in', addresses)
    .execute();
  return new Map(rows.map((r) => [r.address, { id: r.id, merchantId: r.merchant_id, currency: r.currency as Currency }]));
}

/**
 * The deposit addresses of live invoices in `currency` that a transfer was recorded to: where
 * the ledger's deposits sit until swept (solvency). An address with no recorded transfer is
 * owed nothing, so leaving it out can only understate what is on chain.
 */
export async function fundedLiveAddresses(deps: Pick<CryptoDeps, 'tables'>, currency: Currency): Promise<string[]> {
  const rows = await deps.tables
    .selectFrom('invoices as i')
    .select('i.address')
    .where('i.currency', '=', currency)
    .where('i.is_test', '=', false)
    .where(({ exists, selectFrom }) => exists(selectFrom('transactions as t').select('t.id').whereRef('t.invoice_id', '=', 'i.id')))
    .orderBy('i.address')
    .execute();
  return rows.map((r) => r.address);
}

/**
 * Every live invoice's deposit address with its BIP-32 index (one index space for all EVM
 * networks), and whether it may be swept now: not while its invoice is open or a transfer to it
 * waits for confirmations (crediting may still read the address's balance at that block).
 */
export async function liveDepositAddresses(deps: Pick<CryptoDeps, 'tables'>): Promise<{ address: string; index: number; network: Network; settled: boolean }[]> {
  const rows = await deps.tables
    .selectFrom('invoices as i')
    .select(['i.address', 'i.deposit_index', 'i.network', 'i.status'])
    .select(({ exists, selectFrom }) =>
      exists(selectFrom('transactions as t').select('t.id').whereRef('t.invoice_id', '=', 'i.id').where('t.status', '=', 'Pending')).as('confirming'),
    )
    .where('i.is_test', '=', false)
    .where('i.deposit_index', 'is not', null)
    .orderBy('i.deposit_index')
    .execute();
  return rows.map((r) => ({
    address: r.address,
    index: r.deposit_index!,
    network: r.network,
    settled: !r.confirming && r.status !== 'Pending' && r.status !== 'PartiallyPaid',
  }));
}

/** What a confirmed transfer brings to its invoice: its amount, when it was seen, and whose it is. */
export interface ConfirmedTransfer {
  invoiceId: string;
  merchantId: string;
  isTest: boolean;
  amount: { toString(): string };
  createdAt: Date;
}

/**
 * What a confirmed transfer does to its invoice, in the transfer's transaction (the invoice's
 * row locked for the rest of it):
 * - seen before expiry: counts; the invoice is Paid once the sum reaches the amount
 *   (more than the amount is an overpayment: Paid, amountReceived shows it), else PartiallyPaid;
 * - seen after expiry (a late transfer): credited to the balance, the invoice is unchanged.
 */
export async function settleInvoice(deps: CryptoDeps, tx: Tx, t: ConfirmedTransfer): Promise<void> {
  const tables = tablesIn(tx);
  const current = await tables.selectFrom('invoices').select(RECORD).where('id', '=', t.invoiceId).forUpdate().executeTakeFirst();
  if (!current) return;
  if (t.createdAt >= current.expiresAt || current.status === 'Expired' || current.status === 'Underpaid') return;
  const received = money(current.amountReceived).add(money(t.amount.toString()));
  const nowPaid = current.status !== 'Paid' && received.gte(money(current.amount));
  const status: InvoiceStatus = nowPaid ? 'Paid' : current.status === 'Pending' ? 'PartiallyPaid' : current.status;
  const updated = await tables
    .updateTable('invoices')
    .set({ amount_received: received.toFixed(), status, ...(nowPaid ? { paid_at: deps.clock.now() } : {}) })
    .where('id', '=', current.id)
    .returning(RECORD)
    .executeTakeFirstOrThrow();
  if (nowPaid) {
    await emitEvent(tx, deps.clock, { merchantId: t.merchantId, isTest: t.isTest }, 'invoice.paid', {
      invoice: invoiceJson(updated, deps.config.PUBLIC_URL),
    });
  }
}
