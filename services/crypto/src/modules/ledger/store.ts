import { sql } from 'kysely';
import type { Owner } from '@pay/auth';
import type { Currency, LedgerBucket, LedgerEntryKind } from '../../generated/kysely/tables';
import type { CryptoQueries } from '../../db';
import { CURRENCY_CODES } from '../../shared/currencies';
import { Money, money } from '../../shared/money';

/**
 * The one owner of `crypto.ledger_entries`. Its writer lives in Postgres (`lock_balance`,
 * `ledger_head`, `ledger_post`: migration ledger_running_balance); they are called here as
 * `sql` templates of the typed builder (one parameterised statement each), their rows typed
 * beside the call since their signatures live in the migration, not in schema.prisma. Each
 * function runs on what it is given: the client (`deps.db`) or a transaction (`tx`).
 */

type Tx = CryptoQueries;

/**
 * Serialises every change to one balance (merchant, mode, currency) for the rest of the
 * transaction. Concurrent withdrawals queue here, so each sees the holds of the others.
 * (The ledger's functions live in Postgres: see the ledger_running_balance migration.)
 */
export async function lockBalance(tx: Tx, owner: Owner, currency: Currency): Promise<void> {
  await sql`SELECT FROM lock_balance(${owner.merchantId}::uuid, ${owner.isTest}, ${currency}::"Currency")`.execute(tx.$kysely);
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
async function headBalances(on: CryptoQueries, owner: Owner, currencies: readonly Currency[]): Promise<HeadRow[]> {
  const { rows } = await sql<HeadRow>`
    SELECT c.currency::text AS currency, b.bucket::text AS bucket, h.balance_after::text AS balance
      FROM unnest(${currencies}::text[]::"Currency"[]) AS c(currency)
     CROSS JOIN unnest(enum_range(NULL::"LedgerBucket")) AS b(bucket)
      LEFT JOIN LATERAL ledger_head(${owner.merchantId}::uuid, ${owner.isTest}, c.currency, b.bucket) h ON true`.execute(on.$kysely);
  return rows;
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
  const {
    rows: [short],
  } = await sql<{ bucket: LedgerBucket; balance: string }>`
    SELECT short_bucket::text AS bucket, short_balance::text AS balance
      FROM ledger_post(${owner.merchantId}::uuid, ${owner.isTest}, ${currency}::"Currency",
                       ${column((p) => p.bucket)}::text[]::"LedgerBucket"[], ${column((p) => p.kind)}::text[]::"LedgerEntryKind"[],
                       ${column((p) => p.amount.toFixed())}::text[]::numeric[],
                       ${column((p) => p.transactionId ?? null)}::text[]::uuid[], ${column((p) => p.withdrawalId ?? null)}::text[]::uuid[])`.execute(tx.$kysely);
  if (short) throw new InsufficientFunds(short.bucket, money(short.balance));
}

export interface Balance {
  currency: Currency;
  available: Money;
  pending: Money;
}

/** Every currency of the spec, in the spec's order, zero where nothing was ever posted. */
export async function balances(on: CryptoQueries, owner: Owner): Promise<Balance[]> {
  const rows = await headBalances(on, owner, CURRENCY_CODES);
  return CURRENCY_CODES.map((currency) => ({
    currency,
    available: balanceOf(rows, currency, 'available'),
    pending: balanceOf(rows, currency, 'pending'),
  }));
}

/** Lifetime total of one kind of entry per currency (reporting; it reads the whole history). */
export async function sumOfKind(on: CryptoQueries, owner: Owner, kind: LedgerEntryKind): Promise<{ currency: Currency; amount: Money }[]> {
  const sums = await on.$kysely
    .selectFrom('ledger_entries')
    .select(['currency', (eb) => eb.fn.sum<string>('amount').as('amount')])
    .where('merchant_id', '=', owner.merchantId)
    .where('is_test', '=', owner.isTest)
    .where('kind', '=', kind)
    .groupBy('currency')
    .execute();
  return sums.map((s) => ({ currency: s.currency, amount: money(s.amount ?? 0) }));
}

/**
 * What the ledger owes every live merchant together in `currency`, by bucket (each balance is
 * the sum of its entries): what must be on chain for them (solvency).
 */
export async function liveLedgerTotals(on: CryptoQueries, currency: Currency): Promise<{ available: Money; pending: Money }> {
  const rows = await on.$kysely
    .selectFrom('ledger_entries')
    .select(['bucket', (eb) => eb.fn.sum<string>('amount').as('amount')])
    .where('is_test', '=', false)
    .where('currency', '=', currency)
    .groupBy('bucket')
    .execute();
  const of = (bucket: LedgerBucket) => money(rows.find((r) => r.bucket === bucket)?.amount ?? 0);
  return { available: of('available'), pending: of('pending') };
}

/** The amount one transaction's entry of `kind` posted (what a detected transfer put into pending). */
export async function postedAmount(tx: CryptoQueries, kind: LedgerEntryKind, transactionId: string): Promise<Money> {
  const entry = await tx.$kysely
    .selectFrom('ledger_entries')
    .select('amount')
    .where('kind', '=', kind)
    .where('transaction_id', '=', transactionId)
    .executeTakeFirstOrThrow(() => new Error(`transaction ${transactionId} has no ${kind} entry`));
  return money(entry.amount);
}
