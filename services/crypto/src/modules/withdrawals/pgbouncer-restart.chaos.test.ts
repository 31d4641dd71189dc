import { apiClient, fundCryptoMerchant, recordChaos, raceRequests, registerCryptoMerchant, serverFailures, startChaosStack } from '@pay/testing';
import { generateAddress } from '../../chains/addresses';
import { withdrawalCountIn, type SqlQuery } from '../../../test/withdrawals/store';
import { holdsAndAvailableIn } from '../../../test/ledger/store';

const WITHDRAWALS = 60;

/**
 * PgBouncer (transaction pooling, the crypto process's DATABASE_URL) killed and started again
 * while 60 withdrawals of 10 are under way, each retried under its Idempotency-Key as a careful
 * client does: every one is made once (none lost, none doubled), the ledger holds exactly 60
 * holds, and no request gets an answer other than 201 or a retryable 503.
 */
it('withdrawals through a PgBouncer restart: each made exactly once, the balance exact', async () => {
  const started = Date.now();
  const stack = await startChaosStack('withdrawal-pgbouncer-restart', { through: 'pgbouncer' });
  try {
    const svc = await stack.spawn('crypto', { WITHDRAWAL_DAILY_LIMIT: '100000' });
    const m = await registerCryptoMerchant(svc.url);
    await fundCryptoMerchant(svc.url, m, 'USDT_TRC20', 1000); // 990 available after the 1% fee
    const client = apiClient(() => svc.url, m, 'crypto');

    const addresses = Array.from({ length: WITHDRAWALS }, () => generateAddress('Tron'));
    // Spread over about 1.5 s, so requests are in flight on every side of the restart.
    const race = raceRequests(WITHDRAWALS, async (i) => {
      await new Promise((r) => setTimeout(r, i * 25));
      return client.signed('POST', '/api/v1/withdrawals', { toAddress: addresses[i], amount: 10, currency: 'USDT_TRC20' }, { 'Idempotency-Key': `pgbouncer-${i}` });
    });
    await new Promise((r) => setTimeout(r, 400));
    await stack.pgbouncer!.restart(1000);
    const { attempts, created: ok, counts } = await race;

    const query: SqlQuery = (text, values) => stack.query(text, values);
    const rows = { withdrawals: await withdrawalCountIn(query, m.merchantId), ...(await holdsAndAvailableIn(query, m.merchantId)) };
    await recordChaos('withdrawal-pgbouncer-restart', {
      ...counts,
      withdrawals: WITHDRAWALS,
      rows: rows.withdrawals,
      lost: WITHDRAWALS - rows.withdrawals,
      duplicated: rows.holds - WITHDRAWALS,
      durationMs: Date.now() - started,
    });

    expect(serverFailures(attempts)).toEqual([]);
    expect(counts.unavailable503 + counts.cut).toBeGreaterThan(0); // the restart was met
    expect(ok).toHaveLength(WITHDRAWALS);
    expect(rows).toEqual({ withdrawals: WITHDRAWALS, holds: WITHDRAWALS, available: '390.000000' });
  } finally {
    await stack.close();
  }
}, 180_000);
