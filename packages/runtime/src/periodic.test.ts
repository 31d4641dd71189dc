import { eventually } from '@pay/testing';
import { createLogger } from './logger';
import { backoffDelay, every, MAX_BACKOFF_MS } from './periodic';

describe('every', () => {
  it('nextRun waits for a run that starts after it is asked, not for the one already running', async () => {
    const seen: number[] = [];
    let value = 0;
    let release: () => void = () => undefined;
    const p = every(
      't',
      60_000,
      async () => {
        seen.push(value);
        await new Promise<void>((r) => (release = r));
      },
      createLogger('t', 'silent'),
    );
    const first = p.runNow(); // running, having read 0
    await eventually(() => expect(seen).toEqual([0]));
    let done = false;
    const next = p.nextRun().then(() => (done = true));
    value = 1;
    release();
    await first;
    expect(done).toBe(false); // the run in progress read the old value: not the one waited for
    void p.runNow();
    await eventually(() => expect(seen).toEqual([0, 1]));
    release();
    await next;
    await p.stop();
  });

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
