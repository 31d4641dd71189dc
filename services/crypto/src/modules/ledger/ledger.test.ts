import { sql } from 'kysely';
import { randomUUID } from 'node:crypto';
import { eventually } from '@pay/testing';
import { cryptoAppForSuite } from '../../../test/test-support';
import { money } from '../../shared/money';
import type { Owner } from '@pay/auth';
import { balances, InsufficientFunds, lockBalance, post } from './ledger';
import { insertRawEntry, ledgerChain } from '../../../test/ledger/store';

const ctx = cryptoAppForSuite();

const owner = (): Owner => ({ merchantId: randomUUID(), isTest: true });

/** Posts under the balance lock, as every use-case does. */
function locked(o: Owner, postings: Parameters<typeof post>[3]) {
  return ctx.deps.db.$transaction(async (tx) => {
    await lockBalance(tx, o, 'USDT_TRC20');
    await post(tx, o, 'USDT_TRC20', postings);
  });
}

async function chain(o: Owner, bucket: 'available' | 'pending') {
  const rows = await ledgerChain(ctx.deps.db, o.merchantId, 'USDT_TRC20', bucket);
  return rows.map((r) => ({ seq: Number(r.seq), amount: money(r.amount).toFixed(), after: money(r.balanceAfter).toFixed() }));
}

describe('ledger', () => {
  it('chains each account: seq counts up, balance_after is the running sum, and balances read the head', async () => {
    const o = owner();
    await locked(o, [
      { bucket: 'pending', kind: 'deposit_detected', amount: money('99.099'), transactionId: randomUUID() },
    ]);
    const t = randomUUID();
    await locked(o, [
      { bucket: 'pending', kind: 'deposit_settled', amount: money('-99.099'), transactionId: t },
      { bucket: 'available', kind: 'deposit', amount: money('100.1'), transactionId: t },
      { bucket: 'available', kind: 'fee', amount: money('-1.001'), transactionId: t },
    ]);
    await locked(o, [{ bucket: 'available', kind: 'withdrawal_hold', amount: money('-10.1'), withdrawalId: randomUUID() }]);

    expect(await chain(o, 'available')).toEqual([
      { seq: 1, amount: '100.1', after: '100.1' },
      { seq: 2, amount: '-1.001', after: '99.099' },
      { seq: 3, amount: '-10.1', after: '88.999' },
    ]);
    expect(await chain(o, 'pending')).toEqual([
      { seq: 1, amount: '99.099', after: '99.099' },
      { seq: 2, amount: '-99.099', after: '0' },
    ]);
    const [trc20, ...others] = await balances(ctx.deps.db, o);
    expect(trc20).toMatchObject({ currency: 'USDT_TRC20' });
    expect(trc20!.available.toFixed()).toBe('88.999');
    expect(trc20!.pending.toFixed()).toBe('0');
    expect(others.map((b) => [b.currency, b.available.toFixed(), b.pending.toFixed()])).toEqual([
      ['USDT_ERC20', '0', '0'],
      ['USDC_ERC20', '0', '0'],
      ['USDT_BEP20', '0', '0'],
      ['USDC_BEP20', '0', '0'],
    ]);
  });

  it('refuses to overdraw: InsufficientFunds names the balance, and nothing of the posting is written', async () => {
    const o = owner();
    await locked(o, [{ bucket: 'available', kind: 'deposit', amount: money(5), transactionId: randomUUID() }]);
    const attempt = locked(o, [
      { bucket: 'available', kind: 'deposit', amount: money(1), transactionId: randomUUID() },
      { bucket: 'available', kind: 'withdrawal_hold', amount: money('-6.000001'), withdrawalId: randomUUID() },
    ]);
    await expect(attempt).rejects.toBeInstanceOf(InsufficientFunds);
    await expect(attempt).rejects.toMatchObject({ bucket: 'available' });
    expect(await chain(o, 'available')).toEqual([{ seq: 1, amount: '5', after: '5' }]);
  });

  it('cannot fork: a writer that skips the lock and builds on the same head fails instead of landing', async () => {
    const o = owner();
    await locked(o, [{ bucket: 'available', kind: 'deposit', amount: money(100), transactionId: randomUUID() }]);
    const hold = (amount: number) => [{ bucket: 'available' as const, kind: 'withdrawal_hold' as const, amount: money(amount), withdrawalId: randomUUID() }];
    // A writes seq 2 and stays open; B, without the lock, reads the same head (seq 1) and
    // tries seq 2 too. Postgres makes B wait on A's row; once A commits, B must fail.
    let posted!: () => void;
    const aPosted = new Promise<void>((r) => (posted = r));
    let commit!: () => void;
    const mayCommit = new Promise<void>((r) => (commit = r));
    const a = ctx.deps.db.$transaction(async (tx) => {
      await post(tx, o, 'USDT_TRC20', hold(-60));
      posted();
      await mayCommit;
    });
    await aPosted;
    const b = ctx.deps.db.$transaction(async (tx) => post(tx, o, 'USDT_TRC20', hold(-30)));
    await eventually(async () => {
      const {
        rows: [w],
      } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(ctx.deps.db.$kysely);
      if (w!.n === 0) throw new Error('B is not waiting on A yet');
    });
    commit();
    await a;
    await expect(b).rejects.toThrow(/ledger_entries_merchant_id_is_test_currency_bucket_seq_key/); // the unique chain position
    expect(await chain(o, 'available')).toEqual([
      { seq: 1, amount: '100', after: '100' },
      { seq: 2, amount: '-60', after: '40' },
    ]);
  });

  it('is guarded in Postgres too: a negative balance_after is refused by the CHECK constraint', async () => {
    const o = owner();
    const insert = insertRawEntry(ctx.deps.db, { merchantId: o.merchantId, currency: 'USDT_TRC20', bucket: 'available', kind: 'withdrawal_hold', amount: '-1', seq: '1', balanceAfter: '-1', withdrawalId: randomUUID() });
    await expect(insert).rejects.toThrow(/ledger_entries_balance_after_non_negative/);
  });
});
