import { STALL_MS } from './stalls';
import type { Figures } from './types';

/**
 * Of one side's runs of the same load, the least disturbed: of its runs during which the
 * machine did not stall (lib/stalls.ts: one such freeze sets a run's p99 by itself), or of all
 * if each had one, the one that spent the least CPU per request (other work on the machine
 * only ever adds to it). Its figures are kept whole (rate and latencies with its CPU and
 * stalls), and the errors of every run with them: a failing run must not be hidden by a
 * clean one.
 */
export function leastDisturbed(runs: Figures[]): Figures {
  const calm = runs.filter((r) => (r.stalls?.longestMs ?? 0) < STALL_MS);
  const kept = (calm.length ? calm : runs).reduce((best, r) => ((r.cpuMsPerRequest ?? Infinity) < (best.cpuMsPerRequest ?? Infinity) ? r : best));
  const add = (a: Record<string, number> = {}, b: Record<string, number> = {}) => {
    const sum = { ...a };
    for (const [k, n] of Object.entries(b)) sum[k] = (sum[k] ?? 0) + n;
    return sum;
  };
  const others = runs.filter((r) => r !== kept);
  return others.reduce(
    (f, r) => ({
      ...f,
      errors: f.errors + r.errors,
      non2xx: f.non2xx + r.non2xx,
      socketErrors: f.socketErrors + r.socketErrors,
      statusCodes: r.non2xx ? add(f.statusCodes, Object.fromEntries(Object.entries(r.statusCodes).filter(([code]) => !code.startsWith('2')))) : f.statusCodes,
      socketErrorCodes: r.socketErrorCodes ? add(f.socketErrorCodes, r.socketErrorCodes) : f.socketErrorCodes,
    }),
    kept,
  );
}
