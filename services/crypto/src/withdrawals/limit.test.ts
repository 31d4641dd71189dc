import { ManualClock } from '@pay/kit';
import { fund, signedRequest, cryptoAppForSuite, testMerchant, type TestMerchant } from '../../test/test-support';
import { ZERO_ADDRESS } from '../chain/sandbox';
import { advanceWithdrawal } from './processing';

const TRON = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

const clock = new ManualClock(Date.parse('2026-11-21T10:00:10.000Z'));
const ctx = cryptoAppForSuite({ clock, env: { WITHDRAWAL_DAILY_LIMIT: '500' } });
const withdraw = (m: TestMerchant, amount: number, toAddress = TRON) =>
  signedRequest(ctx.app, m, 'post', '/api/v1/withdrawals', { toAddress, amount, currency: 'USDT_TRC20' }, { now: clock.now().getTime() });

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
    expect((await ctx.deps.db.withdrawal.findUniqueOrThrow({ where: { id: failing.body.data.id } })).status).toBe('Failed');
    expect((await withdraw(m, 500)).status).toBe(201);
  });
});
