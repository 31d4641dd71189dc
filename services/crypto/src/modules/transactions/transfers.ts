import { ApiError } from '@pay/schemas';
import { isUniqueViolation, TRANSACTION_OPTIONS } from '@pay/db';
import { pageWindow } from '@pay/http';
import type { Network, Prisma, Transaction } from '../../generated/prisma/client';
import type { CryptoDeps } from '../../deps';
import type { Owner } from '@pay/auth';
import type { Updateable } from 'kysely';
import { tablesIn, type CryptoTx, type Tables } from '../../db';
import { lockBalance, post, postedAmount } from '../ledger/ledger';
import { getMerchant } from '@pay/accounts';
import { money, percentOf, type Money } from '../../shared/money';
import { addressProblem, generateAddress, generateTxHash, normalizeTxHash } from '../../chains/addresses';
import type { FoundTransfer, TransferState } from '../../chains/port';
import { invoiceOf, liveInvoicesByAddress, settleInvoice } from '../invoices/service';
import { emitEvent } from '../events/events';
import { transactionDetailJson } from './views';

/**
 * The one owner of `crypto.transactions` (incoming transfers): recording them, following them
 * to their end, and the reads of the API and the tracker.
 */

type Tx = CryptoTx;

export function requiredConfirmations(deps: Pick<CryptoDeps, 'config'>, network: Network): number {
  const c = deps.config;
  return network === 'Tron' ? c.CONFIRMATIONS_TRON : network === 'Ethereum' ? c.CONFIRMATIONS_ETHEREUM : c.CONFIRMATIONS_BSC;
}

export interface DetectedTransfer {
  invoiceId: string;
  amount: Money;
  fromAddress?: string;
  txHash?: string;
  /** The block it was found in, where a real chain found it. */
  blockNumber?: number;
}

/**
 * A transfer to an invoice's address was seen on chain: record it as Pending and show its
 * net amount (after the merchant's fee) as pending balance until it confirms.
 */
export async function recordDetectedTransfer(deps: CryptoDeps, owner: Owner, input: DetectedTransfer): Promise<Transaction> {
  const amount = input.amount;
  const invoice = await invoiceOf(deps, owner, input.invoiceId);
  if (!invoice) {
    throw new ApiError('NOT_FOUND', `Invoice ${input.invoiceId} not found`, [{ field: 'invoiceId', message: 'no such invoice in this mode' }]);
  }
  const fromAddress = input.fromAddress ?? generateAddress(invoice.network);
  const problem = addressProblem(invoice.network, fromAddress);
  if (problem) throw new ApiError('INVALID_ADDRESS', `fromAddress is not a valid ${invoice.network} address: ${problem}`, [{ field: 'fromAddress', message: problem }]);
  const merchant = await getMerchant(deps.db, owner.merchantId);
  const net = amount.sub(percentOf(amount, money(merchant.feePercent)));
  const now = deps.clock.now();
  try {
    const created = await deps.db.$transaction(async (tx) => {
      await lockBalance(tx, owner, invoice.currency);
      const t = await tx.transaction.create({
        data: {
          invoiceId: invoice.id,
          merchantId: owner.merchantId,
          isTest: owner.isTest,
          txHash: input.txHash ? normalizeTxHash(invoice.network, input.txHash) : generateTxHash(invoice.network),
          fromAddress,
          toAddress: invoice.address,
          amount: amount.toFixed(),
          currency: invoice.currency,
          network: invoice.network,
          requiredConfirmations: requiredConfirmations(deps, invoice.network),
          blockNumber: input.blockNumber ?? null,
          note: now >= invoice.expiresAt || ['Expired', 'Underpaid'].includes(invoice.status) ? 'late: the invoice had expired' : null,
          createdAt: now,
        },
      });
      await post(tx, owner, invoice.currency, [{ bucket: 'pending', kind: 'deposit_detected', amount: net, transactionId: t.id }]);
      return t;
    }, TRANSACTION_OPTIONS);
    return created;
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw new ApiError('CONFLICT', `A transfer with this txHash to this invoice's address was already recorded on ${invoice.network}`, [{ field: 'txHash', message: 'already recorded' }]);
    }
    throw err;
  }
}

/**
 * Records the transfers a live watcher found that pay a live invoice (a transfer to any other
 * address is not ours). Finding one again, after a restart or a rescan of the same blocks,
 * changes nothing: a transaction's transfer to an address is recorded once per network.
 */
export async function recordFoundTransfers(deps: CryptoDeps, found: FoundTransfer[]): Promise<number> {
  let recorded = 0;
  for (const network of new Set(found.map((f) => f.network))) {
    const ofNetwork = found.filter((f) => f.network === network);
    const invoices = await liveInvoicesByAddress(deps, network, [...new Set(ofNetwork.map((f) => f.toAddress))]);
    // A watcher scans its newest blocks again on every pass: what it recorded before is skipped here, without a write.
    const paying = ofNetwork.filter((f) => invoices.has(f.toAddress));
    const known = new Set(
      paying.length === 0
        ? []
        : (
            await deps.db.transaction.findMany({ where: { network, txHash: { in: [...new Set(paying.map((f) => f.txHash))] } }, select: { txHash: true, toAddress: true } })
          ).map((t) => `${t.txHash}:${t.toAddress}`),
    );
    for (const f of paying) {
      if (known.has(`${f.txHash}:${f.toAddress}`)) continue;
      const invoice = invoices.get(f.toAddress);
      // Another token sent to an invoice's address does not pay it (it stays at the address for a sweep).
      if (!invoice || invoice.currency !== f.currency || f.amount.isZero()) continue;
      try {
        await recordDetectedTransfer(deps, { merchantId: invoice.merchantId, isTest: false }, {
          invoiceId: invoice.id, amount: f.amount, fromAddress: f.fromAddress, txHash: f.txHash, blockNumber: f.blockNumber,
        });
        recorded++;
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 'CONFLICT')) throw err;
      }
    }
  }
  if (recorded > 0) deps.logger.info({ recorded }, 'incoming transfers found on chain');
  return recorded;
}

/**
 * Applies what the chain says to one transaction, if it is still as `t` was read: Pending with
 * the same confirmations. The row is locked for the rest of `tx` (SKIP LOCKED: a tracker busy
 * with it will apply it), so several trackers never apply one change twice; false when
 * another got there first. On confirmation: pending is settled, the gross amount is credited
 * and the fee debited, the invoice advances, and the events are written, all in `tx`.
 */
/** The block number as the bigint column takes it through Kysely (decimal text). */
const blockOf = (block: number | null): string | null => (block === null ? null : String(block));

/** Writes a transfer's tracked columns through the transaction that locked its row, with the same builder. */
async function setTransfer(tx: Tx, id: string, changes: Updateable<Tables.Transaction>): Promise<void> {
  await tablesIn(tx).updateTable('transactions').set(changes).where('id', '=', id).execute();
}

export async function applyTransferState(deps: CryptoDeps, tx: Tx, t: Transaction, state: TransferState): Promise<boolean> {
  const unchanged = await tablesIn(tx)
    .selectFrom('transactions')
    .select('id')
    .where('id', '=', t.id)
    .where('status', '=', 'Pending')
    .where('confirmations', '=', t.confirmations)
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
  if (!unchanged) return false;
  const owner = { merchantId: t.merchantId, isTest: t.isTest };
  if (state.state === 'pending') {
    if (state.confirmations !== t.confirmations) {
      await setTransfer(tx, t.id, { confirmations: state.confirmations, block_number: blockOf(state.blockNumber) });
    }
    return true;
  }
  await lockBalance(tx, owner, t.currency);
  const net = await postedAmount(tx, 'deposit_detected', t.id);
  const settle = { bucket: 'pending' as const, kind: 'deposit_settled' as const, amount: net.neg(), transactionId: t.id };
  if (state.state === 'failed') {
    await post(tx, owner, t.currency, [settle]);
    await setTransfer(tx, t.id, { status: 'Failed', block_number: blockOf(state.blockNumber), note: state.reason });
    return true;
  }
  const now = deps.clock.now();
  const gross = money(t.amount);
  await post(tx, owner, t.currency, [
    settle,
    { bucket: 'available', kind: 'deposit', amount: gross, transactionId: t.id },
    { bucket: 'available', kind: 'fee', amount: net.sub(gross), transactionId: t.id },
  ]);
  await setTransfer(tx, t.id, { status: 'Confirmed', confirmations: state.confirmations, block_number: blockOf(state.blockNumber), confirmed_at: now });
  // The row as it now stands: it was read as `t` and has been locked since, so only these columns moved.
  const confirmed: Transaction = { ...t, status: 'Confirmed', confirmations: state.confirmations, blockNumber: BigInt(state.blockNumber), confirmedAt: now };
  await emitEvent(tx, deps.clock, owner, 'transaction.confirmed', { transaction: transactionDetailJson(confirmed) });
  await settleInvoice(deps, tx, confirmed);
  return true;
}

/** Pending transfers of one mode, oldest first: what the tracker asks the chain about. */
export function pendingTransfers(deps: CryptoDeps, isTest: boolean, limit: number): Promise<Transaction[]> {
  return deps.db.transaction.findMany({ where: { status: 'Pending', isTest }, orderBy: { createdAt: 'asc' }, take: limit });
}

/**
 * What the invoice's transfers seen before its expiry and still waiting for their
 * confirmations bring (they count toward it once confirmed): the payment page asks only for
 * the rest.
 */
export async function awaitingConfirmation(deps: CryptoDeps, invoice: { id: string; expiresAt: Date }): Promise<Money> {
  const { sum } = await deps.tables
    .selectFrom('transactions')
    .select((eb) => eb.fn.sum<string | null>('amount').as('sum'))
    .where('invoice_id', '=', invoice.id)
    .where('status', '=', 'Pending')
    .where('created_at', '<', invoice.expiresAt)
    .executeTakeFirstOrThrow();
  return money(sum ?? 0);
}

/** One page of the owner's transfers, newest first; `invoiceId` narrows to one invoice. */
export async function listTransactions(deps: CryptoDeps, owner: Owner, q: { page: number; pageSize: number; invoiceId?: string }) {
  const where: Prisma.TransactionWhereInput = { ...owner, ...(q.invoiceId ? { invoiceId: q.invoiceId } : {}) };
  const [items, totalCount] = await Promise.all([
    deps.db.transaction.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], ...pageWindow(q) }),
    deps.db.transaction.count({ where }),
  ]);
  return { items, totalCount };
}

export async function getTransaction(deps: CryptoDeps, owner: Owner, id: string): Promise<Transaction> {
  const t = await deps.db.transaction.findFirst({ where: { id, ...owner } });
  if (!t) throw new ApiError('NOT_FOUND', `Transaction ${id} not found`);
  return t;
}
