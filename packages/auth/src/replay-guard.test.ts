import { ReplayGuard } from './replay-guard';
import { testRedis } from '../test/test-support';

const { redis, prefix, close } = testRedis('replay');
afterAll(close);

describe('ReplayGuard', () => {
  const guard = new ReplayGuard(redis, { windowMs: 300_000, prefix });

  it('grants a claim once', async () => {
    expect(await guard.claim('merchant-1:sig-a')).toBe(true);
    expect(await guard.claim('merchant-1:sig-a')).toBe(false);
    expect(await guard.claim('merchant-1:sig-a')).toBe(false);
  });

  it('keeps ids and prefixes apart', async () => {
    const other = new ReplayGuard(redis, { windowMs: 300_000, prefix: `${prefix}other:` });
    expect(await guard.claim('merchant-1:sig-b')).toBe(true);
    expect(await guard.claim('merchant-2:sig-b')).toBe(true);
    expect(await other.claim('merchant-1:sig-b')).toBe(true);
  });

  it('remembers a claim for twice the window, under the prefixed key', async () => {
    await guard.claim('merchant-1:sig-c');
    const ttl = await redis.pttl(`${prefix}merchant-1:sig-c`);
    expect(ttl).toBeGreaterThan(600_000 - 5_000);
    expect(ttl).toBeLessThanOrEqual(600_000);
  });

  it('lets the id be claimed again once the claim has expired', async () => {
    const short = new ReplayGuard(redis, { windowMs: 50, prefix });
    expect(await short.claim('merchant-1:sig-d')).toBe(true);
    expect(await short.claim('merchant-1:sig-d')).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await short.claim('merchant-1:sig-d')).toBe(true);
  });

  it('grants exactly one of many concurrent claims', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => guard.claim('merchant-1:sig-e')));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses windowMs %p', (windowMs) => {
    expect(() => new ReplayGuard(redis, { windowMs, prefix })).toThrow(/positive integer/);
  });
});
