import { recordChaos, raceRequests, serverFailures } from '@pay/testing';
import { generateAddress } from '../../chains/addresses';
import { fundedMerchantOnChaosStack } from '../../../test/withdrawals/chaos';

const WITHDRAWALS = 100;

/**
 * 100 withdrawals of 25 race on one balance of 990, signed requests over real HTTP to a crypto
 * process of its own: exactly 39 are made (39 × 25 = 975 ≤ 990 < 40 × 25), the rest refused
 * for the balance, and the ledger holds exactly those 39. The same directly on Postgres and
 * through PgBouncer in transaction pooling (the balance's row locks live in transactions,
 * which PgBouncer keeps on one server connection each).
 */
it.each([
  ['directly', 'withdrawal-race', {}],
  ['through PgBouncer', 'withdrawal-race-pgbouncer', { through: 'pgbouncer' as const }],
])('100 concurrent withdrawals against a balance for 39 (%s): exactly 39 made, the rest INSUFFICIENT_BALANCE', async (_, scenario, through) => {
  const started = Date.now();
  const { stack, client, ledger } = await fundedMerchantOnChaosStack(scenario, through);
  try {

    // Each to its own address (so its own signature), with its own key: a 503 (a pool out of
    // time on a loaded machine) is retried as a client would.
    const addresses = Array.from({ length: WITHDRAWALS }, () => generateAddress('Tron'));
    const { attempts, created: ok, refused, counts } = await raceRequests(WITHDRAWALS, (i) =>
      client.signed('POST', '/api/v1/withdrawals', { toAddress: addresses[i], amount: 25, currency: 'USDT_TRC20' }, { 'Idempotency-Key': `race-${i}` }),
    );
    const rows = await ledger();
    const balance = await client.keyed('GET', '/api/v1/withdrawals/balance');
    await recordChaos(scenario, {
      ...counts,
      withdrawals: WITHDRAWALS,
      rows: rows.withdrawals,
      lost: ok.length - rows.withdrawals,
      duplicated: rows.holds - ok.length,
      durationMs: Date.now() - started,
    });

    expect(serverFailures(attempts)).toEqual([]);
    expect(ok).toHaveLength(39);
    expect(refused).toHaveLength(WITHDRAWALS - 39);
    for (const a of refused) expect(a.body.error.code).toBe('INSUFFICIENT_BALANCE');
    expect(rows).toEqual({ withdrawals: 39, holds: 39, available: '15.000000' });
    expect(balance.body.data.balances[0]).toMatchObject({ currency: 'USDT_TRC20', available: 15 });
  } finally {
    await stack.close();
  }
}, 180_000);
