import type { Currency, LedgerBucket, LedgerEntryKind, Prisma } from '../generated/prisma/client';
import { CURRENCIES } from '../currencies';
import { Money, money } from '../money';

type Tx = Prisma.TransactionClient;

export interface Owner {
  merchantId: string;
  isTest: boolean;
}

/**
 * Serialises every change to one balance (merchant, mode, currency) for the rest of the
 * transaction. Concurrent withdrawals queue here, so each sees the holds of the others.
 */
export async function lockBalance(tx: Tx, owner: Owner, currency: Currency): Promise<void> {
  const key = `balance:${owner.merchantId}:${owner.isTest ? 'test' : 'live'}:${currency}`;
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`;
}

export interface Posting {
  bucket: LedgerBucket;
  kind: LedgerEntryKind;
  amount: Money;
  transactionId?: string;
  withdrawalId?: string;
}

export async function post(tx: Tx, owner: Owner, currency: Currency, postings: Posting[]): Promise<void> {
  await tx.ledgerEntry.createMany({
    data: postings.map((p) => ({
      merchantId: owner.merchantId,
      isTest: owner.isTest,
      currency,
      bucket: p.bucket,
      kind: p.kind,
      amount: p.amount.toFixed(),
      transactionId: p.transactionId ?? null,
      withdrawalId: p.withdrawalId ?? null,
    })),
  });
}

export async function availableBalance(tx: Tx, owner: Owner, currency: Currency): Promise<Money> {
  const agg = await tx.ledgerEntry.aggregate({
    where: { merchantId: owner.merchantId, isTest: owner.isTest, currency, bucket: 'available' },
    _sum: { amount: true },
  });
  return money(agg._sum.amount ?? 0);
}

export interface Balance {
  currency: Currency;
  available: Money;
  pending: Money;
}

/** Every currency of the spec, zero where nothing was ever posted. */
export async function balances(db: Tx, owner: Owner): Promise<Balance[]> {
  const sums = await db.ledgerEntry.groupBy({
    by: ['currency', 'bucket'],
    where: { merchantId: owner.merchantId, isTest: owner.isTest },
    _sum: { amount: true },
  });
  return CURRENCIES.map(({ code }) => {
    const of = (bucket: LedgerBucket) => money(sums.find((s) => s.currency === code && s.bucket === bucket)?._sum.amount ?? 0);
    return { currency: code, available: of('available'), pending: of('pending') };
  });
}

export async function sumOfKind(db: Tx, owner: Owner, kind: LedgerEntryKind): Promise<{ currency: Currency; amount: Money }[]> {
  const sums = await db.ledgerEntry.groupBy({
    by: ['currency'],
    where: { merchantId: owner.merchantId, isTest: owner.isTest, kind },
    _sum: { amount: true },
  });
  return sums.map((s) => ({ currency: s.currency, amount: money(s._sum.amount ?? 0) }));
}
