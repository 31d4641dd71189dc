import { recordChaos, raceRequests, serverFailures } from '@pay/testing';
import { generateAddress } from '../../chains/addresses';
import { fundedMerchantOnChaosStack } from '../../../test/withdrawals/chaos';

const WITHDRAWALS = 60;

/**
 * PgBouncer (transaction pooling, the crypto process's DATABASE_URL) killed and started again
 * while 60 withdrawals of 10 are under way, each retried under its Idempotency-Key as a careful
 * client does: every one is made once (none lost, none doubled), the ledger holds exactly 60
 * holds, and no request gets an answer other than 201 or a retryable 503.
 */
it('withdrawals through a PgBouncer restart: each made exactly once, the balance exact', async () => {
  const started = Date.now();
  const { stack, client, ledger } = await fundedMerchantOnChaosStack('withdrawal-pgbouncer-restart', { through: 'pgbouncer' });
  try {

    const addresses = Array.from({ length: WITHDRAWALS }, () => generateAddress('Tron'));
    // Spread over about 1.5 s, so requests are in flight on every side of the restart.
    const race = raceRequests(WITHDRAWALS, async (i) => {
      await new Promise((r) => setTimeout(r, i * 25));
      return client.signed('POST', '/api/v1/withdrawals', { toAddress: addresses[i], amount: 10, currency: 'USDT_TRC20' }, { 'Idempotency-Key': `pgbouncer-${i}` });
    });
    await new Promise((r) => setTimeout(r, 400));
    await stack.pgbouncer!.restart(1000);
    const { attempts, created: ok, counts } = await race;

    const rows = await ledger();
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
