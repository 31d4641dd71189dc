import type { Cluster, Redis } from 'ioredis';
import { RedisGate, type GateResult, type RateRule } from './redis-gate';

export interface ReplayGuardOptions {
  /** The signature acceptance window; a claim is remembered for twice this long. */
  windowMs: number;
  /** Namespaces the Redis keys, e.g. `replay:crypto:`. */
  prefix: string;
}

/**
 * Remembers accepted signatures so each is accepted once. A timestamp T is acceptable from
 * T - window to T + window, so remembering a claim for 2 × window from its first use covers
 * every moment the same signature could still pass the timestamp check.
 */
export class ReplayGuard {
  readonly windowMs: number;
  private readonly prefix: string;
  private readonly gate: RedisGate;

  constructor(redis: Redis | Cluster, opts: ReplayGuardOptions) {
    if (!Number.isInteger(opts.windowMs) || opts.windowMs <= 0) throw new Error('ReplayGuard windowMs must be a positive integer');
    this.windowMs = opts.windowMs;
    this.prefix = opts.prefix;
    this.gate = new RedisGate(redis);
  }

  /** True the first time `id` is claimed within the retention period, false afterwards. Atomic across processes. */
  async claim(id: string): Promise<boolean> {
    return (await this.claimCounted(id)).claimed === true;
  }

  /**
   * Claims `id` and, in the same round trip, counts the request against `rate`: a request over
   * the limit is refused before its signature is claimed.
   */
  claimCounted(id: string, rate?: { rule: RateRule; who: string }, now?: number): Promise<GateResult> {
    return this.gate.pass({ rate, claim: { key: `${this.prefix}${id}`, ttlMs: this.windowMs * 2 }, now });
  }

  /** Counts a request that will be refused anyway (a bad signature), so refusals are rate limited too. */
  count(rate: { rule: RateRule; who: string }, now?: number): Promise<GateResult> {
    return this.gate.pass({ rate, now });
  }
}
