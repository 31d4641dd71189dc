import { ApiError } from '@pay/schemas';
import { isUniqueViolation, TRANSACTION_OPTIONS } from '@pay/kit';
import type { Network, Prisma, Transaction } from '../generated/prisma/client';
import type { CryptoDeps } from '../deps';
import type { Owner } from '@pay/auth';
import { lockBalance, post } from '../ledger/ledger';
import { getMerchant } from '@pay/accounts';
import { money, percentOf, type Money } from '../money';
import { addressProblem, generateAddress, generateTxHash, normalizeTxHash } from '../chain/addresses';
import type { FoundTransfer, TransferState } from '../chain/chain';
import { liveInvoicesByAddress } from '../invoices/invoices';
import { emitEvent } from '../events/events';
import { invoiceJson } from '../invoices/views';
import { transactionDetailJson } from './views';

type Tx = Prisma.TransactionClient;

export function requiredConfirmations(deps: CryptoDeps, network: Network): number {
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
  const invoice = await deps.db.invoice.findFirst({ where: { id: input.invoiceId, merchantId: owner.merchantId, isTest: owner.isTest } });
  if (!invoice) {
    throw new ApiError('NOT_FOUND', `Invoice ${input.invoiceId} not found`, [{ field: 'invoiceId', message: 'no such invoice in this mode' }]);
  }
  const fromAddress = input.fromAddress ?? generateAddress(invoice.network);
  const problem = addressProblem(invoice.network, fromAddress);
  if (problem) throw new ApiError('INVALID_ADDRESS', `fromAddress is not a valid ${invoice.network} address: ${problem}`, [{ field: 'fromAddress', message: problem }]);
  const merchant = await getMerchant(deps.accounts, owner.merchantId);
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
    for (const f of ofNetwork) {
      const invoice = invoices.get(f.toAddress);
      if (!invoice || f.amount.isZero()) continue;
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
export async function applyTransferState(deps: CryptoDeps, tx: Tx, t: Transaction, state: TransferState): Promise<boolean> {
  const [unchanged] = await tx.$queryRaw<{ id: string }[]>`
    SELECT id FROM transactions WHERE id = ${t.id}::uuid AND status = 'Pending' AND confirmations = ${t.confirmations}
       FOR UPDATE SKIP LOCKED`;
  if (!unchanged) return false;
  const owner = { merchantId: t.merchantId, isTest: t.isTest };
  if (state.state === 'pending') {
    if (state.confirmations !== t.confirmations) {
      await tx.transaction.update({ where: { id: t.id }, data: { confirmations: state.confirmations, blockNumber: state.blockNumber } });
    }
    return true;
  }
  await lockBalance(tx, owner, t.currency);
  const detected = await tx.ledgerEntry.findUniqueOrThrow({ where: { kind_transactionId: { kind: 'deposit_detected', transactionId: t.id } } });
  const net = money(detected.amount);
  const settle = { bucket: 'pending' as const, kind: 'deposit_settled' as const, amount: net.neg(), transactionId: t.id };
  if (state.state === 'failed') {
    await post(tx, owner, t.currency, [settle]);
    await tx.transaction.update({ where: { id: t.id }, data: { status: 'Failed', blockNumber: state.blockNumber, note: state.reason } });
    return true;
  }
  const now = deps.clock.now();
  const gross = money(t.amount);
  await post(tx, owner, t.currency, [
    settle,
    { bucket: 'available', kind: 'deposit', amount: gross, transactionId: t.id },
    { bucket: 'available', kind: 'fee', amount: net.sub(gross), transactionId: t.id },
  ]);
  const confirmed = await tx.transaction.update({
    where: { id: t.id },
    data: { status: 'Confirmed', confirmations: state.confirmations, blockNumber: state.blockNumber, confirmedAt: now },
  });
  await emitEvent(tx, deps.clock, owner, 'transaction.confirmed', { transaction: transactionDetailJson(confirmed) });
  await settleInvoice(deps, tx, confirmed);
  return true;
}

/**
 * What a confirmed transfer does to its invoice:
 * - seen before expiry: counts; the invoice is Paid once the sum reaches the amount
 *   (more than the amount is an overpayment: Paid, amountReceived shows it), else PartiallyPaid;
 * - seen after expiry (a late transfer): credited to the balance, the invoice is unchanged.
 */
async function settleInvoice(deps: CryptoDeps, tx: Tx, t: Transaction): Promise<void> {
  const [invoice] = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM invoices WHERE id = ${t.invoiceId}::uuid FOR UPDATE`;
  if (!invoice) return;
  const current = await tx.invoice.findUniqueOrThrow({ where: { id: t.invoiceId } });
  if (t.createdAt >= current.expiresAt || current.status === 'Expired' || current.status === 'Underpaid') return;
  const received = money(current.amountReceived).add(money(t.amount));
  const nowPaid = current.status !== 'Paid' && received.gte(money(current.amount));
  const updated = await tx.invoice.update({
    where: { id: current.id },
    data: {
      amountReceived: received.toFixed(),
      ...(nowPaid ? { status: 'Paid', paidAt: deps.clock.now() } : current.status === 'Pending' ? { status: 'PartiallyPaid' } : {}),
    },
  });
  if (nowPaid) {
    await emitEvent(tx, deps.clock, { merchantId: t.merchantId, isTest: t.isTest }, 'invoice.paid', {
      invoice: invoiceJson(updated, deps.config.PUBLIC_URL),
    });
  }
}
