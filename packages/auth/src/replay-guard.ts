import type { Redis } from 'ioredis';

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

  constructor(
    private readonly redis: Pick<Redis, 'set'>,
    opts: ReplayGuardOptions,
  ) {
    if (!Number.isInteger(opts.windowMs) || opts.windowMs <= 0) throw new Error('ReplayGuard windowMs must be a positive integer');
    this.windowMs = opts.windowMs;
    this.prefix = opts.prefix;
  }

  /** True the first time `id` is claimed within the retention period, false afterwards. Atomic across processes. */
  async claim(id: string): Promise<boolean> {
    const result = await this.redis.set(`${this.prefix}${id}`, '1', 'PX', this.windowMs * 2, 'NX');
    return result === 'OK';
  }
}
