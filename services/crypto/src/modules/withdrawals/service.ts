import { randomUUID } from 'node:crypto';
import { ApiError } from '@pay/schemas';
import { isUniqueViolation } from '@pay/db';
import { readableNumber } from '@pay/runtime';
import { outboxMessage } from '@pay/queue';
import { pageWindow } from '@pay/http';
import type { Currency, WithdrawalStatus } from '../../generated/prisma/client';
import { insertWithdrawal, unsentLiveWithdrawals, withdrawalOf, withdrawalsOf, type CreateOutcome, type CreatedWithdrawalRecord, type WithdrawalRecord } from './store';
import type { CryptoDeps } from '../../deps';
import { currencyInfo } from '../../shared/currencies';
import { Money, money, parseAmount, withdrawalFee } from '../../shared/money';
import type { Owner } from '@pay/auth';
import { addressProblem, canonicalAddress } from '../../chains/addresses';
import { requireChain, requirePayouts } from '../../chains/registry';

export interface CreateWithdrawalInput {
  toAddress: string;
  amount: number;
  currency: Currency;
}

const NUMBER_ATTEMPTS = 3;
/** `WD-<yyyymmdd>-<8 chars>`: readable on a phone call, unique by its random part. */
export function withdrawalNumber(at: Date): string {
  return readableNumber('WD', at);
}

export interface CreateOptions {
  /** The request's Idempotency-Key: a retry carrying it gets the first withdrawal back. */
  idempotencyKey?: string;
}

/**
 * Validates and prices the withdrawal here; what depends on the balance's other withdrawals
 * (the 24-hour limit, the available funds, the hold, the outbox job) is decided by one call
 * to `create_withdrawal` in Postgres, under the balance lock (see its migration). Concurrent
 * withdrawals can never spend the same funds twice, and the lock is held for the time
 * Postgres needs rather than across this process's network turns.
 */
export async function createWithdrawal(deps: CryptoDeps, owner: Owner, input: CreateWithdrawalInput, opts: CreateOptions = {}): Promise<CreatedWithdrawalRecord> {
  const chain = requireChain(deps.chains, owner.isTest, 'withdrawals', input.currency);
  const { network } = currencyInfo(input.currency);
  await requirePayouts(chain, network);
  const problem = addressProblem(network, input.toAddress);
  if (problem) {
    throw new ApiError('INVALID_ADDRESS', `toAddress is not a valid ${network} address: ${problem}`, [{ field: 'toAddress', message: problem }]);
  }
  const amount = parseAmount(input.amount);
  const minimum = minimumOf(deps, owner.isTest, input.currency);
  if (amount.lt(minimum)) {
    throw new ApiError('VALIDATION_ERROR', `The minimum ${owner.isTest ? 'test-mode' : 'live'} withdrawal of ${input.currency} is ${minimum.toString()}`, [
      { field: 'amount', message: `must be at least ${minimum.toString()}` },
    ]);
  }
  const { fee, netAmount } = withdrawalFee(amount);
  const limit = money(deps.config.WITHDRAWAL_DAILY_LIMIT);
  const id = randomUUID();
  const now = deps.clock.now();
  const job = outboxMessage('withdrawals', id, { withdrawalId: id });

  // The number's random suffix makes a collision very unlikely (34^8 a day), not impossible:
  // one aborts the whole call with nothing written, so it is simply drawn again.
  let r: CreateOutcome;
  for (let attempt = 1; ; attempt++) {
    try {
      r = await insertWithdrawal(deps.db, {
        id,
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
        dailyLimit: limit.toFixed(),
        hourlyCount: deps.config.WITHDRAWALS_PER_HOUR,
        ownAddress: canonicalAddress(network, input.toAddress),
        idempotencyKey: opts.idempotencyKey ?? null,
        jobQueue: job.queue,
        jobPayload: JSON.stringify(job.payload),
      });
      break;
    } catch (err) {
      if (attempt < NUMBER_ATTEMPTS && isUniqueViolation(err, 'withdrawals_withdrawal_number_key')) continue;
      throw err;
    }
  }
  switch (r.outcome) {
    case 'own_address':
      throw new ApiError('INVALID_ADDRESS', `toAddress ${input.toAddress} is one of this platform's own addresses (a deposit address or hot wallet): withdraw to a wallet of yours`, [
        { field: 'toAddress', message: 'must not be an address of this platform' },
      ]);
    case 'count_exceeded':
      throw new ApiError(
        'WITHDRAWAL_LIMIT_EXCEEDED',
        `At most ${deps.config.WITHDRAWALS_PER_HOUR} withdrawals can be made per hour; ${r.counted} were made in the last hour: try again later`,
      );
    case 'limit_exceeded': {
      const left = Money.max(0, limit.sub(money(r.withdrawn)));
      throw new ApiError(
        'WITHDRAWAL_LIMIT_EXCEEDED',
        `Withdrawals of ${input.currency} are limited to ${limit.toString()} per 24 hours; ${left.toString()} remains`,
        [{ field: 'amount', message: `must be at most ${left.toString()} within the rolling 24-hour limit` }],
      );
    }
    case 'insufficient_balance': {
      const available = money(r.available);
      throw new ApiError('INSUFFICIENT_BALANCE', `Available ${input.currency} balance is ${available.toString()}, less than ${amount.toString()}`, [
        { field: 'amount', message: `must be at most the available balance ${available.toString()}` },
      ]);
    }
    case 'created':
    case 'existing': {
      if (r.outcome === 'created') deps.kickOutbox();
      const { outcome: _, ...withdrawal } = r;
      return withdrawal;
    }
  }
}

export async function getWithdrawal(deps: CryptoDeps, owner: Owner, id: string): Promise<WithdrawalRecord> {
  const w = await withdrawalOf(deps.db, owner, id);
  if (!w) throw new ApiError('NOT_FOUND', `Withdrawal ${id} not found`);
  return w;
}

export function listWithdrawals(deps: CryptoDeps, owner: Owner, q: { page: number; pageSize: number; status?: WithdrawalStatus }) {
  return withdrawalsOf(deps.db, owner, { ...pageWindow(q), status: q.status });
}

/**
 * What live withdrawals not yet sent will pay out (their net amounts) in `currency`: the
 * tokens are still in the hot wallet and owed to their recipients (solvency).
 */
export function unsentLiveAmount(deps: Pick<CryptoDeps, 'db'>, currency: Currency): Promise<string> {
  return unsentLiveWithdrawals(deps.db, currency);
}

/** Live minimums cover the payout's gas (WITHDRAWAL_MINIMUMS); test mode pays none (WITHDRAWAL_MIN_AMOUNT). */
function minimumOf(deps: CryptoDeps, isTest: boolean, currency: Currency): Money {
  return (isTest ? undefined : deps.config.liveWithdrawalMinimums.get(currency)) ?? money(deps.config.WITHDRAWAL_MIN_AMOUNT);
}
