import { signInToConsole, consoleSessionOf } from '@pay/accounts';
import { ManualClock } from '@pay/runtime';
import { housekeeping } from './background';
import { invoicingAppForSuite, newMerchant } from '../test/test-support';

const ctx = invoicingAppForSuite();

describe('housekeeping', () => {
  it('deletes expired console sessions and keeps live ones', async () => {
    const m = await newMerchant(ctx.deps);
    const t0 = new Date();
    const old = await signInToConsole(ctx.deps.accounts, ctx.deps.secrets, m.apiKey, t0);
    const clock = new ManualClock(new Date(t0.getTime() + 2 * 60 * 60 * 1000)); // past the 1 h idle expiry
    const fresh = await signInToConsole(ctx.deps.accounts, ctx.deps.secrets, m.apiKey, clock.now());

    const pruned = await housekeeping({ ...ctx.deps, clock });
    expect(pruned.consoleSessions).toBeGreaterThanOrEqual(1);
    const rows = await ctx.deps.accounts.consoleSession.findMany({ where: { merchantId: m.merchantId } });
    expect(rows.map((r) => r.csrfToken)).toEqual([fresh.csrfToken]);
    expect(await consoleSessionOf(ctx.deps.accounts, fresh.token, clock.now())).not.toBeNull();
    expect(await consoleSessionOf(ctx.deps.accounts, old.token, clock.now())).toBeNull();
  });
});
