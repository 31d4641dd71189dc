import { leastDisturbed } from './rounds';
import type { Figures } from './types';

const run = (rps: number, cpu: number | null, codes: Record<string, number> = { '201': rps * 10 }, socketErrors = 0): Figures => {
  const non2xx = Object.entries(codes).reduce((n, [code, c]) => (code.startsWith('2') ? n : n + c), 0);
  return { rps, p50: 1, p99: 10, errors: non2xx + socketErrors, non2xx, socketErrors, requests: rps * 10, statusCodes: codes, cpuMsPerRequest: cpu };
};

describe('leastDisturbed', () => {
  it('keeps the run with the least CPU per request, whole (its rate and latencies with it)', () => {
    const runs = [run(1000, 0.5), { ...run(1200, 0.4), p99: 7 }, run(1100, 0.45)];
    expect(leastDisturbed(runs)).toEqual({ ...run(1200, 0.4), p99: 7 });
    expect(leastDisturbed([run(900, 0.3)])).toEqual(run(900, 0.3));
  });

  it('keeps every run’s errors: a failing run is not hidden by a clean one', () => {
    const kept = leastDisturbed([run(1000, 0.4), run(800, 0.6, { '201': 7000, '503': 3 }, 2)]);
    expect(kept.rps).toBe(1000);
    expect(kept.errors).toBe(5);
    expect(kept.non2xx).toBe(3);
    expect(kept.socketErrors).toBe(2);
    expect(kept.statusCodes).toEqual({ '201': 10000, '503': 3 });
  });

  it('keeps a run during which the machine did not stall over one with less CPU that stalled, and the least CPU when each stalled', () => {
    const stalled = { ...run(1300, 0.35), p99: 280, stalls: { longestMs: 85, count: 2 } };
    const calm = { ...run(1200, 0.4), stalls: { longestMs: 12, count: 0 } };
    expect(leastDisturbed([stalled, calm, run(1100, 0.45)])).toEqual(calm);
    const lessStalled = { ...run(1100, 0.3), stalls: { longestMs: 40, count: 1 } };
    expect(leastDisturbed([stalled, lessStalled])).toEqual(lessStalled);
  });

  it('takes a run with a CPU figure over one without', () => {
    expect(leastDisturbed([run(1000, null), run(900, 0.5)]).rps).toBe(900);
  });
});
