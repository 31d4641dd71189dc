import { eventually } from '@pay/testing';
import { createLogger } from './logger';
import { backoffDelay, every, MAX_BACKOFF_MS } from './periodic';

describe('every', () => {
  it('runs on schedule, one run at a time', async () => {
    let running = 0;
    let overlap = false;
    let runs = 0;
    const p = every(
      't',
      5,
      async () => {
        running++;
        if (running > 1) overlap = true;
        await new Promise((r) => setTimeout(r, 15));
        runs++;
        running--;
      },
      createLogger('t', 'silent'),
    );
    await eventually(() => expect(runs).toBeGreaterThanOrEqual(3), 2000, 5);
    await p.stop();
    const after = runs;
    // Nothing to wait on for "no further run": a few of its periods pass, and none may start.
    await new Promise((r) => setTimeout(r, 40));
    expect(runs).toBe(after); // stopped means stopped
    expect(overlap).toBe(false);
  });

  it('backs off while failing, up to a cap', () => {
    expect([0, 1, 2, 3].map((f) => backoffDelay(100, f))).toEqual([100, 200, 400, 800]);
    expect(backoffDelay(100, 50)).toBe(MAX_BACKOFF_MS);
  });
});
