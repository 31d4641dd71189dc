import { randomBytes } from 'node:crypto';
import { ApiError } from '@pay/schemas';
import { outboxMessage } from '@pay/queue';
import type { Currency, Prisma, Withdrawal, WithdrawalStatus } from '../generated/prisma/client';
import type { CryptoDeps } from '../deps';
import { currencyInfo } from '../currencies';
import { money, parseAmount, withdrawalFee } from '../money';
import { availableBalance, lockBalance, post, type Owner } from '../ledger/ledger';
import { addressProblem } from '../chain/addresses';
import { requireChain } from '../chain/chain';
import { pageWindow } from '../paging';
import { writeOutbox } from '../events/outbox';

export interface CreateWithdrawalInput {
  toAddress: string;
  amount: number;
  currency: Currency;
}

const SUFFIX_ALPHABET = '0123456789ABCDEFGHJKLMNPQRSTUVWXYZ';

/** `WD-<yyyymmdd>-<8 chars>`: readable on a phone call, unique by its random part. */
export function withdrawalNumber(at: Date): string {
  const date = at.toISOString().slice(0, 10).replace(/-/g, '');
  const suffix = [...randomBytes(8)].map((b) => SUFFIX_ALPHABET[b % SUFFIX_ALPHABET.length]).join('');
  return `WD-${date}-${suffix}`;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Checks, then holds the amount and queues the payout — all in one transaction under the
 * balance's lock, so concurrent withdrawals can never spend the same funds twice.
 */
export async function createWithdrawal(deps: CryptoDeps, owner: Owner, input: CreateWithdrawalInput): Promise<Withdrawal> {
  requireChain(deps.chains, owner.isTest, 'withdrawals');
  const { network } = currencyInfo(input.currency);
  const problem = addressProblem(network, input.toAddress);
  if (problem) {
    throw new ApiError('INVALID_ADDRESS', `toAddress is not a valid ${network} address: ${problem}`, [{ field: 'toAddress', message: problem }]);
  }
  const amount = parseAmount(input.amount);
  const minimum = money(deps.config.WITHDRAWAL_MIN_AMOUNT);
  if (amount.lt(minimum)) {
    throw new ApiError('AMOUNT_TOO_SMALL', `The minimum withdrawal is ${minimum.toString()} ${input.currency}`, [
      { field: 'amount', message: `must be at least ${minimum.toString()}` },
    ]);
  }
  const { fee, netAmount } = withdrawalFee(amount);
  const now = deps.clock.now();
  const limit = money(deps.config.WITHDRAWAL_DAILY_LIMIT);

  const withdrawal = await deps.db.$transaction(async (tx) => {
    await lockBalance(tx, owner, input.currency);
    const recent = await tx.withdrawal.aggregate({
      where: { ...owner, currency: input.currency, status: { not: 'Failed' }, createdAt: { gt: new Date(now.getTime() - DAY_MS) } },
      _sum: { amount: true },
    });
    const used = money(recent._sum.amount ?? 0);
    if (used.add(amount).gt(limit)) {
      const left = limit.sub(used);
      throw new ApiError(
        'WITHDRAWAL_LIMIT_EXCEEDED',
        `Withdrawals of ${input.currency} are limited to ${limit.toString()} per 24 hours; ${left.lt(0) ? '0' : left.toString()} remains`,
        [{ field: 'amount', message: `must be at most ${left.lt(0) ? '0' : left.toString()} within the rolling 24-hour limit` }],
      );
    }
    const available = await availableBalance(tx, owner, input.currency);
    if (available.lt(amount)) {
      throw new ApiError('INSUFFICIENT_BALANCE', `Available ${input.currency} balance is ${available.toString()}, less than ${amount.toString()}`, [
        { field: 'amount', message: `must be at most the available balance ${available.toString()}` },
      ]);
    }
    const w = await tx.withdrawal.create({
      data: {
        merchantId: owner.merchantId,
        isTest: owner.isTest,
        withdrawalNumber: withdrawalNumber(now),
        toAddress: input.toAddress,
        amount: amount.toFixed(),
        fee: fee.toFixed(),
        netAmount: netAmount.toFixed(),
        currency: input.currency,
        network,
        createdAt: now,
      },
    });
    await post(tx, owner, input.currency, [{ bucket: 'available', kind: 'withdrawal_hold', amount: amount.neg(), withdrawalId: w.id }]);
    await writeOutbox(tx, outboxMessage('withdrawals', w.id, { withdrawalId: w.id }));
    return w;
  });
  deps.kickOutbox();
  return withdrawal;
}

export async function getWithdrawal(deps: CryptoDeps, owner: Owner, id: string): Promise<Withdrawal> {
  const w = await deps.db.withdrawal.findFirst({ where: { id, ...owner } });
  if (!w) throw new ApiError('NOT_FOUND', `Withdrawal ${id} not found`);
  return w;
}

export async function listWithdrawals(deps: CryptoDeps, owner: Owner, q: { page: number; pageSize: number; status?: WithdrawalStatus }) {
  const where: Prisma.WithdrawalWhereInput = { ...owner, ...(q.status ? { status: q.status } : {}) };
  const [items, totalCount] = await Promise.all([
    deps.db.withdrawal.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], ...pageWindow(q) }),
    deps.db.withdrawal.count({ where }),
  ]);
  return { items, totalCount };
}
