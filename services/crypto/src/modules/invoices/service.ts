import { randomUUID } from 'node:crypto';
import { ApiError } from '@pay/schemas';
import { pageWindow } from '@pay/http';
import type { Owner } from '@pay/auth';
import type { Currency, InvoiceStatus, Network } from '../../generated/prisma/client';
import { invoiceJson } from './views';
import type { CryptoDeps } from '../../deps';
import type { CryptoQueries } from '../../db';
import { currencyInfo } from '../../shared/currencies';
import { money, parseAmount } from '../../shared/money';
import { requireChain } from '../../chains/registry';
import { emitEvent } from '../events/events';
import * as store from './store';
import type { InvoiceRecord, TransfersToInvoice } from './store';

export type { InvoiceRecord, TransfersToInvoice } from './store';

/**
 * The invoices module: creating, reading and settling invoices. Its statements are its
 * store's (store.ts). Transfers credit invoices through `settleInvoice`, merchant statistics
 * count them through `invoiceCountsByStatus`, the payment page reads one through `invoiceById`.
 */

export interface CreateInvoiceInput {
  amount: number;
  currency: Currency;
  description?: string;
  expiresInMinutes?: number;
}

export async function createInvoice(deps: CryptoDeps, owner: Owner, input: CreateInvoiceInput): Promise<InvoiceRecord> {
  const chain = requireChain(deps.chains, owner.isTest, 'invoices', input.currency);
  const amount = parseAmount(input.amount);
  const { network } = currencyInfo(input.currency);
  const deposit = await chain.depositAddress(network);
  const ttlMinutes = input.expiresInMinutes ?? deps.config.INVOICE_DEFAULT_TTL_MINUTES;
  const now = deps.clock.now();
  return store.insertInvoice(deps.db, {
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
}

/** One of the owner's invoices, or null when it is not theirs (or not in this mode). */
export async function invoiceOf(deps: Pick<CryptoDeps, 'db'>, owner: Owner, id: string): Promise<InvoiceRecord | null> {
  return store.ownedInvoice(deps.db, owner, id);
}

export async function getInvoice(deps: CryptoDeps, owner: Owner, id: string): Promise<InvoiceRecord> {
  const invoice = await invoiceOf(deps, owner, id);
  if (!invoice) throw new ApiError('NOT_FOUND', `Invoice ${id} not found`);
  return invoice;
}

/** Any invoice by id, for its payment page (the id in the link is the capability). */
export async function invoiceById(deps: Pick<CryptoDeps, 'db'>, id: string): Promise<InvoiceRecord | null> {
  return store.invoiceWithId(deps.db, id);
}

export async function listInvoices(deps: Pick<CryptoDeps, 'db'>, owner: Owner, q: { page: number; pageSize: number; status?: InvoiceStatus }) {
  return store.invoicePage(deps.db, owner, { ...pageWindow(q), status: q.status });
}

/** How many of the owner's invoices are in each status (merchant statistics). */
export async function invoiceCountsByStatus(deps: Pick<CryptoDeps, 'db'>, owner: Owner): Promise<Map<InvoiceStatus, number>> {
  return store.invoiceCountsByStatus(deps.db, owner);
}

/**
 * Closes invoices whose time ran out. One that is waiting for the confirmations of a
 * transfer seen in time is left open: that transfer still counts toward it.
 * A partly paid invoice becomes Underpaid (the amount received stays in the balance).
 */
export async function expireDueInvoices(deps: Pick<CryptoDeps, 'db' | 'clock'>, transfersToInvoice: TransfersToInvoice): Promise<number> {
  return store.expireInvoicesDueBy(deps.db, deps.clock.now(), transfersToInvoice);
}

/** Live invoices paid to these addresses of `network`, by address: what a watcher's found transfers pay. */
export async function liveInvoicesByAddress(deps: Pick<CryptoDeps, 'db'>, network: Network, addresses: string[]): Promise<Map<string, { id: string; merchantId: string; currency: Currency }>> {
  return store.liveInvoicesByAddress(deps.db, network, addresses);
}

/**
 * The deposit addresses of live invoices in `currency` that a transfer was recorded to: where
 * the ledger's deposits sit until swept (solvency). An address with no recorded transfer is
 * owed nothing, so leaving it out can only understate what is on chain.
 */
export async function fundedLiveAddresses(deps: Pick<CryptoDeps, 'db'>, currency: Currency, transfersToInvoice: TransfersToInvoice): Promise<string[]> {
  return store.fundedLiveAddresses(deps.db, currency, transfersToInvoice);
}

/**
 * Every live invoice's deposit address with its BIP-32 index (one index space for all EVM
 * networks), and whether it may be swept now: not while its invoice is open or a transfer to it
 * waits for confirmations (crediting may still read the address's balance at that block).
 */
export async function liveDepositAddresses(deps: Pick<CryptoDeps, 'db'>, transfersToInvoice: TransfersToInvoice): Promise<{ address: string; index: number; network: Network; settled: boolean }[]> {
  const rows = await store.liveDepositIndexes(deps.db, transfersToInvoice);
  return rows.map((r) => ({
    address: r.address,
    index: r.index,
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
export async function settleInvoice(deps: Pick<CryptoDeps, 'clock' | 'config'>, tx: CryptoQueries, t: ConfirmedTransfer): Promise<void> {
  const current = await store.lockInvoice(tx, t.invoiceId);
  if (!current) return;
  if (t.createdAt >= current.expiresAt || current.status === 'Expired' || current.status === 'Underpaid') return;
  const received = money(current.amountReceived).add(money(t.amount.toString()));
  const nowPaid = current.status !== 'Paid' && received.gte(money(current.amount));
  const status: InvoiceStatus = nowPaid ? 'Paid' : current.status === 'Pending' ? 'PartiallyPaid' : current.status;
  const updated = await store.setReceived(tx, current.id, { amountReceived: received.toFixed(), status, ...(nowPaid ? { paidAt: deps.clock.now() } : {}) });
  if (nowPaid) {
    await emitEvent(tx, deps.clock, { merchantId: t.merchantId, isTest: t.isTest }, 'invoice.paid', {
      invoice: invoiceJson(updated, deps.config.PUBLIC_URL),
    });
  }
}
