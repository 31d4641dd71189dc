import type { Owner } from '@pay/auth';
import type { Currency, LedgerBucket, LedgerEntryKind, Prisma } from '../generated/prisma/client';
import { CURRENCY_CODES } from '../currencies';
import { Money, money } from '../money';

type Tx = Prisma.TransactionClient;

/**
 * Serialises every change to one balance (merchant, mode, currency) for the rest of the
 * transaction. Concurrent withdrawals queue here, so each sees the holds of the others.
 * (The ledger's functions live in Postgres: see the ledger_running_balance migration.)
 */
export async function lockBalance(tx: Tx, owner: Owner, currency: Currency): Promise<void> {
  await tx.$executeRaw`SELECT FROM lock_balance(${owner.merchantId}::uuid, ${owner.isTest}, ${currency}::"Currency")`;
}

export interface Posting {
  bucket: LedgerBucket;
  kind: LedgerEntryKind;
  amount: Money;
  transactionId?: string;
  withdrawalId?: string;
}

/** A posting would take a bucket below zero; nothing was written. */
export class InsufficientFunds extends Error {
  constructor(
    readonly bucket: LedgerBucket,
    /** The bucket's balance before the posting. */
    readonly balance: Money,
  ) {
    super(`the ${bucket} balance ${balance.toFixed()} cannot cover this posting`);
    this.name = 'InsufficientFunds';
  }
}

interface HeadRow {
  currency: Currency;
  bucket: LedgerBucket;
  balance: string | null;
}

/**
 * The balance of every account of the owner in the given currencies, read from each
 * account's newest entry (`ledger_head`): one index probe each (see the LedgerEntry model).
 */
async function headBalances(db: Tx, owner: Owner, currencies: readonly Currency[]): Promise<HeadRow[]> {
  return db.$queryRaw<HeadRow[]>`
    SELECT c.currency::text AS currency, b.bucket::text AS bucket, h.balance_after::text AS balance
      FROM unnest(${currencies}::text[]::"Currency"[]) AS c(currency)
     CROSS JOIN unnest(enum_range(NULL::"LedgerBucket")) AS b(bucket)
      LEFT JOIN LATERAL ledger_head(${owner.merchantId}::uuid, ${owner.isTest}, c.currency, b.bucket) h ON true`;
}

function balanceOf(rows: HeadRow[], currency: Currency, bucket: LedgerBucket): Money {
  return money(rows.find((r) => r.currency === currency && r.bucket === bucket)?.balance ?? 0);
}

/**
 * Appends postings to one balance's accounts, in order, through `ledger_post` (the one writer
 * of the ledger; it runs in Postgres so that withdrawals can post in the same statement that
 * checks them). The caller holds `lockBalance`; had it not, a concurrent writer on the same
 * head would make this fail on the unique chain position rather than fork the history.
 * If any entry would take its bucket below zero, nothing is written and InsufficientFunds
 * says which bucket and what it held; the caller's transaction stays usable.
 */
export async function post(tx: Tx, owner: Owner, currency: Currency, postings: Posting[]): Promise<void> {
  const column = <T>(pick: (p: Posting) => T) => postings.map(pick);
  const [short] = await tx.$queryRaw<{ bucket: LedgerBucket; balance: string }[]>`
    SELECT short_bucket::text AS bucket, short_balance::text AS balance
      FROM ledger_post(${owner.merchantId}::uuid, ${owner.isTest}, ${currency}::"Currency",
                       ${column((p) => p.bucket)}::text[]::"LedgerBucket"[], ${column((p) => p.kind)}::text[]::"LedgerEntryKind"[],
                       ${column((p) => p.amount.toFixed())}::text[]::numeric[],
                       ${column((p) => p.transactionId ?? null)}::text[]::uuid[], ${column((p) => p.withdrawalId ?? null)}::text[]::uuid[])`;
  if (short) throw new InsufficientFunds(short.bucket, money(short.balance));
}

export interface Balance {
  currency: Currency;
  available: Money;
  pending: Money;
}

/** Every currency of the spec, in the spec's order, zero where nothing was ever posted. */
export async function balances(db: Tx, owner: Owner): Promise<Balance[]> {
  const rows = await headBalances(db, owner, CURRENCY_CODES);
  return CURRENCY_CODES.map((currency) => ({
    currency,
    available: balanceOf(rows, currency, 'available'),
    pending: balanceOf(rows, currency, 'pending'),
  }));
}

/** Lifetime total of one kind of entry per currency (reporting; it reads the whole history). */
export async function sumOfKind(db: Tx, owner: Owner, kind: LedgerEntryKind): Promise<{ currency: Currency; amount: Money }[]> {
  const sums = await db.ledgerEntry.groupBy({
    by: ['currency'],
    where: { merchantId: owner.merchantId, isTest: owner.isTest, kind },
    _sum: { amount: true },
  });
  return sums.map((s) => ({ currency: s.currency, amount: money(s._sum.amount ?? 0) }));
}
