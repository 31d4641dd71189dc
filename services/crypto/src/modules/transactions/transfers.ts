import { ApiError } from '@pay/schemas';
import { isUniqueViolation, TRANSACTION_OPTIONS } from '@pay/db';
import { pageWindow } from '@pay/http';
import type { Network } from '../../generated/prisma/client';
import type { CryptoDeps } from '../../deps';
import type { Owner } from '@pay/auth';
import type { CryptoQueries } from '../../db';
import { lockBalance, post, postedAmount } from '../ledger/ledger';
import { getMerchant } from '@pay/accounts';
import { money, percentOf, type Money } from '../../shared/money';
import { addressProblem, generateAddress, generateTxHash, normalizeTxHash } from '../../chains/addresses';
import type { FoundTransfer, TransferState } from '../../chains/port';
import { invoiceOf, liveInvoicesByAddress, settleInvoice } from '../invoices/service';
import { emitEvent } from '../events/events';
import { transactionDetailJson } from './views';
import * as store from './store';
import type { TransactionRecord } from './store';

export type { TransactionRecord } from './store';

/**
 * The transactions module (incoming transfers): recording them, following them to their end,
 * and the reads of the API and the tracker. Its statements are its store's (store.ts).
 */

type Tx = CryptoQueries;

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
export async function recordDetectedTransfer(deps: CryptoDeps, owner: Owner, input: DetectedTransfer): Promise<TransactionRecord> {
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
      const t = await store.insertTransaction(tx, {
        invoiceId: invoice.id,
        merchantId: owner.merchantId,
        isTest: owner.isTest,
        txHash: input.txHash ? normalizeTxHash(invoice.network, input.txHash) : generateTxHash(invoice.network),
        fromAddress,
        toAddress: invoice.address,
        amount,
        currency: invoice.currency,
        network: invoice.network,
        requiredConfirmations: requiredConfirmations(deps, invoice.network),
        blockNumber: input.blockNumber ?? null,
        note: now >= invoice.expiresAt || ['Expired', 'Underpaid'].includes(invoice.status) ? 'late: the invoice had expired' : null,
        createdAt: now,
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
    const known = await store.knownTransfers(deps.db, network, [...new Set(paying.map((f) => f.txHash))]);
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
export async function applyTransferState(deps: CryptoDeps, tx: Tx, t: TransactionRecord, state: TransferState): Promise<boolean> {
  if (!(await store.lockPendingTransfer(tx, t.id, t.confirmations))) return false;
  const owner = { merchantId: t.merchantId, isTest: t.isTest };
  if (state.state === 'pending') {
    if (state.confirmations !== t.confirmations) {
      await store.updateTransfer(tx, t.id, { confirmations: state.confirmations, blockNumber: state.blockNumber });
    }
    return true;
  }
  await lockBalance(tx, owner, t.currency);
  const net = await postedAmount(tx, 'deposit_detected', t.id);
  const settle = { bucket: 'pending' as const, kind: 'deposit_settled' as const, amount: net.neg(), transactionId: t.id };
  if (state.state === 'failed') {
    await post(tx, owner, t.currency, [settle]);
    await store.updateTransfer(tx, t.id, { status: 'Failed', blockNumber: state.blockNumber, note: state.reason });
    return true;
  }
  const now = deps.clock.now();
  const gross = t.amount;
  await post(tx, owner, t.currency, [
    settle,
    { bucket: 'available', kind: 'deposit', amount: gross, transactionId: t.id },
    { bucket: 'available', kind: 'fee', amount: net.sub(gross), transactionId: t.id },
  ]);
  await store.updateTransfer(tx, t.id, { status: 'Confirmed', confirmations: state.confirmations, blockNumber: state.blockNumber, confirmedAt: now });
  // The row as it now stands: it was read as `t` and has been locked since, so only these columns moved.
  const confirmed: TransactionRecord = { ...t, status: 'Confirmed', confirmations: state.confirmations, blockNumber: BigInt(state.blockNumber), confirmedAt: now };
  await emitEvent(tx, deps.clock, owner, 'transaction.confirmed', { transaction: transactionDetailJson(confirmed) });
  await settleInvoice(deps, tx, confirmed);
  return true;
}

/** Pending transfers of one mode, oldest first: what the tracker asks the chain about. */
export function pendingTransfers(deps: Pick<CryptoDeps, 'db'>, isTest: boolean, limit: number): Promise<TransactionRecord[]> {
  return store.pendingTransfersOf(deps.db, isTest, limit);
}

/**
 * What the invoice's transfers seen before its expiry and still waiting for their
 * confirmations bring (they count toward it once confirmed): the payment page asks only for
 * the rest.
 */
export async function awaitingConfirmation(deps: Pick<CryptoDeps, 'db'>, invoice: { id: string; expiresAt: Date }): Promise<Money> {
  return money((await store.pendingSumBefore(deps.db, invoice.id, invoice.expiresAt)) ?? 0);
}


/**
 * What live deposits to the transfer's address in its token, confirmed in blocks up to
 * `block`, have credited, the transfer itself aside (a live chain's deposit check).
 */
export async function creditedBefore(deps: Pick<CryptoDeps, 'db'>, t: Pick<TransactionRecord, 'network' | 'currency' | 'toAddress' | 'txHash'>, block: number): Promise<Money> {
  return money((await store.confirmedLiveSumTo(deps.db, t, block)) ?? '0');
}

/** One page of the owner's transfers, newest first; `invoiceId` narrows to one invoice. */
export async function listTransactions(deps: Pick<CryptoDeps, 'db'>, owner: Owner, q: { page: number; pageSize: number; invoiceId?: string }) {
  return store.transactionPage(deps.db, owner, { ...pageWindow(q), invoiceId: q.invoiceId || undefined });
}

export async function getTransaction(deps: Pick<CryptoDeps, 'db'>, owner: Owner, id: string): Promise<TransactionRecord> {
  const t = await store.ownedTransaction(deps.db, owner, id);
  if (!t) throw new ApiError('NOT_FOUND', `Transaction ${id} not found`);
  return t;
}
