import { signInToConsole, consoleSessionOf } from '@pay/accounts';
import { storedConsoleSessionTokens } from '@pay/accounts/test';
import { ManualClock } from '@pay/runtime';
import { housekeeping } from './background';
import { invoicingAppForSuite, newMerchant } from '../test/test-support';

const ctx = invoicingAppForSuite();

describe('housekeeping', () => {
  it('deletes expired console sessions and keeps live ones', async () => {
    const m = await newMerchant(ctx.deps);
    const t0 = new Date();
    const old = await signInToConsole(ctx.deps.db, ctx.deps.secrets, m.apiKey, t0);
    const clock = new ManualClock(new Date(t0.getTime() + 2 * 60 * 60 * 1000)); // past the 1 h idle expiry
    const fresh = await signInToConsole(ctx.deps.db, ctx.deps.secrets, m.apiKey, clock.now());

    const pruned = await housekeeping({ ...ctx.deps, clock });
    expect(pruned.consoleSessions).toBeGreaterThanOrEqual(1);
    expect(await storedConsoleSessionTokens(ctx.deps.db, m.merchantId)).toEqual([fresh.csrfToken]);
    expect(await consoleSessionOf(ctx.deps.db, fresh.token, clock.now())).not.toBeNull();
    expect(await consoleSessionOf(ctx.deps.db, old.token, clock.now())).toBeNull();
  });
});
