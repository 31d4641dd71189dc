import type { Logger } from 'pino';

export interface Periodic {
  /** Runs the task now (and waits for it), outside the schedule. */
  runNow(): Promise<void>;
  /** Stops scheduling and waits for a run in progress. */
  stop(): Promise<void>;
  /**
   * Resolves when a run that starts after this call has ended, scheduled or asked for: a test
   * waits on the schedule itself, not on the wall clock, which load stretches.
   */
  nextRun(): Promise<void>;
}

/** Longest wait between runs while the task keeps failing (e.g. the database is down). */
export const MAX_BACKOFF_MS = 30_000;

/** The wait after `failures` failures in a row: doubles each time, capped. */
export function backoffDelay(intervalMs: number, failures: number): number {
  return Math.min(intervalMs * 2 ** Math.min(failures, 20), Math.max(intervalMs, MAX_BACKOFF_MS));
}

/**
 * Runs `task` every `intervalMs`, one run at a time (the next waits for the previous to end).
 * A failure is logged, not thrown, and the next runs back off, so a dead dependency gives a
 * trickle of log lines rather than a flood.
 */
export function every(name: string, intervalMs: number, task: () => Promise<unknown>, logger: Logger): Periodic {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let failures = 0;
  let current: Promise<void> = Promise.resolve();
  let waiting: (() => void)[] = [];
  const run = () => {
    current = current.then(async () => {
      const served = waiting;
      waiting = [];
      try {
        await task();
        failures = 0;
      } catch (err) {
        failures++;
        logger.error({ err, task: name, failures }, 'periodic task failed; backing off');
      } finally {
        for (const done of served) done();
      }
    });
    return current;
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => void run().then(schedule), backoffDelay(intervalMs, failures));
    timer.unref();
  };
  schedule();
  return {
    runNow: run,
    nextRun: () => new Promise<void>((resolve) => waiting.push(resolve)),
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await current;
    },
  };
}
