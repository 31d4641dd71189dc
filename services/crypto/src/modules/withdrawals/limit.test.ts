import request from 'supertest';
import { ManualClock } from '@pay/runtime';
import { fund, signedRequest, cryptoAppForSuite, testMerchant, type TestMerchant } from '../../../test/test-support';
import { ZERO_ADDRESS } from '../../chains/sandbox/sandbox';
import { advanceWithdrawal } from './processing';
import { withdrawalCount, withdrawalStatus } from '../../../test/withdrawals/store';

const TRON = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';
const ETH = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

const clock = new ManualClock(Date.parse('2026-11-21T10:00:10.000Z'));
const ctx = cryptoAppForSuite({ clock, env: { WITHDRAWAL_DAILY_LIMIT: '500', WITHDRAWALS_PER_HOUR: '3' } });
const withdraw = (m: TestMerchant, amount: number, toAddress = TRON, currency = 'USDT_TRC20') =>
  signedRequest(ctx.app, m, 'post', '/api/v1/withdrawals', { toAddress, amount, currency }, { now: clock.now().getTime() });

/** A 422 in the API's error shape: the limit's code, what remains, and the field to change. */
function expectLimitRefusal(res: Awaited<ReturnType<typeof withdraw>>, remains: string) {
  expect(res.status).toBe(422);
  expect(res.body).toEqual({
    success: false,
    error: {
      code: 'WITHDRAWAL_LIMIT_EXCEEDED',
      message: `Withdrawals of USDT_TRC20 are limited to 500 per 24 hours; ${remains} remains`,
      details: [{ field: 'amount', message: `must be at most ${remains} within the rolling 24-hour limit` }],
    },
  });
}

/** The rolling 24-hour limit is kept in per-minute totals: a withdrawal counts until 24 h after the end of its minute. */
describe('the rolling 24-hour withdrawal limit', () => {
  it('counts a withdrawal for a day from its minute, then frees its room', async () => {
    const m = await testMerchant(ctx.app);
    await fund(ctx, m, 'USDT_TRC20', 2000);
    const start = clock.now().getTime();
    expect((await withdraw(m, 300)).status).toBe(201);
    clock.set(start + DAY - MINUTE);
    expectLimitRefusal(await withdraw(m, 200.5), '200');
    // 24 h after the end of the first withdrawal's minute, its 300 no longer counts.
    clock.set(start - 10_000 + MINUTE + DAY);
    expect((await withdraw(m, 500)).status).toBe(201);
    expectLimitRefusal(await withdraw(m, 1), '0');
  });

  it('gives a failed withdrawal’s amount back to the limit', async () => {
    const m = await testMerchant(ctx.app);
    await fund(ctx, m, 'USDT_TRC20', 2000);
    const failing = await withdraw(m, 400, ZERO_ADDRESS.Tron);
    expect(failing.status).toBe(201);
    expectLimitRefusal(await withdraw(m, 200), '100');
    // The sandbox chain fails a transfer to the zero address once it is mined.
    for (let i = 0; i < 40; i++) {
      if ((await advanceWithdrawal(ctx.deps, failing.body.data.id)) === 'done') break;
      clock.advance(ctx.deps.config.SANDBOX_BLOCK_MS * 5);
    }
    expect(await withdrawalStatus(ctx.deps.db, failing.body.data.id)).toBe('Failed');
    expect((await withdraw(m, 500)).status).toBe(201);
  });
});

/** Each payout costs the hot wallet gas: a merchant makes at most WITHDRAWALS_PER_HOUR (3 here) in any hour, every currency counted. */
describe('the hourly count of withdrawals', () => {
  it('refuses the fourth within an hour with WITHDRAWAL_LIMIT_EXCEEDED (422), holding nothing, and takes it once the hour has passed', async () => {
    const m = await testMerchant(ctx.app);
    await fund(ctx, m, 'USDT_TRC20', 100);
    await fund(ctx, m, 'USDT_ERC20', 100);
    const start = clock.now().getTime();
    expect((await withdraw(m, 1)).status).toBe(201);
    expect((await withdraw(m, 1, ETH, 'USDT_ERC20')).status).toBe(201);
    clock.set(start + 30 * MINUTE);
    expect((await withdraw(m, 2)).status).toBe(201);
    const over = await withdraw(m, 1, ETH, 'USDT_ERC20');
    expect(over.status).toBe(422);
    expect(over.body.error).toEqual({
      code: 'WITHDRAWAL_LIMIT_EXCEEDED',
      message: 'At most 3 withdrawals can be made per hour; 3 were made in the last hour: try again later',
    });
    const balance = (await request(ctx.app).get('/api/v1/withdrawals/balance').set('X-Api-Key', m.apiKey)).body.data.balances;
    expect(balance.find((b: { currency: string }) => b.currency === 'USDT_ERC20').available).toBe(98);
    expect(await withdrawalCount(ctx.deps.db, m.merchantId)).toBe(3);
    // An hour after the end of the first two's minute, they no longer count; the third still does.
    clock.set(start - (start % MINUTE) + MINUTE + 60 * MINUTE);
    expect((await withdraw(m, 1, ETH, 'USDT_ERC20')).status).toBe(201);
    expect((await withdraw(m, 1)).status).toBe(201);
    expect((await withdraw(m, 3)).status).toBe(422);
  });
});
