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

/** The rolling 24-hour limit is kept in per-minute totals: a withdrawal counts until 24 h after the end of its minute. */
describe('the rolling 24-hour withdrawal limit', () => {
  it('counts a withdrawal for a day from its minute, then frees its room', async () => {
    const m = await testMerchant(ctx.app);
    await fund(ctx, m, 'USDT_TRC20', 2000);
    const start = clock.now().getTime();
    expect((await withdraw(m, 300)).status).toBe(201);
    clock.set(start + DAY - MINUTE);
    const refused = await withdraw(m, 200.5);
    expect(refused.status).toBe(422);
    expect(refused.body.error.message).toMatch(/200 remains/);
    // 24 h after the end of the first withdrawal's minute, its 300 no longer counts.
    clock.set(start - 10_000 + MINUTE + DAY);
    expect((await withdraw(m, 500)).status).toBe(201);
    expect((await withdraw(m, 1)).status).toBe(422);
  });

  it('gives a failed withdrawal’s amount back to the limit', async () => {
    const m = await testMerchant(ctx.app);
    await fund(ctx, m, 'USDT_TRC20', 2000);
    const failing = await withdraw(m, 400, ZERO_ADDRESS.Tron);
    expect(failing.status).toBe(201);
    expect((await withdraw(m, 200)).status).toBe(422);
    // The sandbox chain fails a transfer to the zero address once it is mined.
    for (let i = 0; i < 40; i++) {
      if ((await advanceWithdrawal(ctx.deps, failing.body.data.id)) === 'done') break;
      clock.advance(ctx.deps.config.SANDBOX_BLOCK_MS * 5);
    }
    expect((await ctx.deps.db.withdrawal.findUniqueOrThrow({ where: { id: failing.body.data.id } })).status).toBe('Failed');
    expect((await withdraw(m, 500)).status).toBe(201);
  });
});
