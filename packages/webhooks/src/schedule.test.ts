import fc from 'fast-check';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS, RETRY_JITTER, retryAfterMsOf, retryDelayMs, seededRandom } from './schedule';

const fixed = (r: number) => () => r;

describe('the retry schedule', () => {
  it('is the spec schedule moved by at most ±10%: the random number picks where', () => {
    expect(retryDelayMs(1, { random: fixed(0.5) })).toBe(60_000);
    expect(retryDelayMs(1, { random: fixed(0) })).toBe(54_000);
    expect(retryDelayMs(1, { random: fixed(0.999999) })).toBe(66_000);
    expect(retryDelayMs(5, { random: fixed(0) })).toBe(4 * 3_600_000 * 0.9);
    expect(retryDelayMs(MAX_ATTEMPTS, { random: fixed(0.5) })).toBeNull();
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_ATTEMPTS - 1 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (made, r) => {
        const delay = retryDelayMs(made, { random: fixed(r) })!;
        expect(Math.abs(delay - RETRY_DELAYS_MS[made]!)).toBeLessThanOrEqual(RETRY_DELAYS_MS[made]! * RETRY_JITTER + 0.5);
      }),
    );
  });

  it("honours a longer Retry-After, never past the schedule's next delay; a shorter one changes nothing", () => {
    expect(retryDelayMs(1, { random: fixed(0.5), retryAfterMs: 120_000 })).toBe(120_000);
    expect(retryDelayMs(1, { random: fixed(0.5), retryAfterMs: 10 * 60_000 })).toBe(5 * 60_000);
    expect(retryDelayMs(1, { random: fixed(0.5), retryAfterMs: 5_000 })).toBe(60_000);
    // The last retry has no next delay: its own is the bound.
    expect(retryDelayMs(5, { random: fixed(0.5), retryAfterMs: 24 * 3_600_000 })).toBe(4 * 3_600_000);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_ATTEMPTS - 1 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), fc.nat(), (made, r, asked) => {
        const delay = retryDelayMs(made, { random: fixed(r), retryAfterMs: asked })!;
        const plain = retryDelayMs(made, { random: fixed(r) })!;
        expect(delay).toBeGreaterThanOrEqual(plain);
        expect(delay).toBeLessThanOrEqual(Math.max(plain, RETRY_DELAYS_MS[Math.min(made + 1, MAX_ATTEMPTS - 1)]!));
      }),
    );
  });

  it('seeds its jitter by delivery and attempt, so every place that computes it agrees; other seeds spread', () => {
    expect(seededRandom('d1:2')()).toBe(seededRandom('d1:2')());
    const values = Array.from({ length: 200 }, (_, i) => seededRandom(`delivery-${i}:1`)());
    expect(values.every((v) => v >= 0 && v < 1)).toBe(true);
    expect(new Set(values.map((v) => Math.floor(v * 10))).size).toBe(10);
  });

  it('reads Retry-After as seconds or an HTTP date, on 429 and 503 only', () => {
    const at = new Date('2026-11-25T10:00:00.000Z');
    expect(retryAfterMsOf(503, '120', at)).toBe(120_000);
    expect(retryAfterMsOf(429, 'Wed, 25 Nov 2026 10:02:30 GMT', at)).toBe(150_000);
    expect(retryAfterMsOf(429, 'Wed, 25 Nov 2026 09:00:00 GMT', at)).toBe(0);
    expect(retryAfterMsOf(503, 'soon', at)).toBeNull();
    expect(retryAfterMsOf(500, '120', at)).toBeNull();
    expect(retryAfterMsOf(503, null, at)).toBeNull();
  });
});
