import type { Redis } from 'ioredis';

/**
 * One Lua script per request for everything a request asks of Redis: count it against a
 * fixed-window rate limit and, for a signed request, claim its signature against replays.
 * Both decisions are made in one round trip; the claim is skipped when the rate limit
 * refuses, so a refused request never burns its signature.
 * KEYS: counter, claim. ARGV: limit (0: no counting), window ms, claim ttl ms (0: no claim).
 * Returns { count, verdict }: verdict 1 passed, 0 replayed, -1 over the limit.
 */
const GATE_SCRIPT = `
local count = 0
local limit = tonumber(ARGV[1])
if limit > 0 then
  count = redis.call('INCR', KEYS[1])
  if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
  if count > limit then return {count, -1} end
end
if tonumber(ARGV[3]) > 0 then
  if not redis.call('SET', KEYS[2], '1', 'PX', ARGV[3], 'NX') then return {count, 0} end
end
return {count, 1}`;

type GateRedis = Redis & { payGate(counter: string, claim: string, limit: number, windowMs: number, claimTtlMs: number): Promise<[number, number]> };

const defined = new WeakSet<Redis>();

/** A fixed-window limit: at most `limit` requests per `windowMs`, counted per caller under `prefix`. */
export interface RateRule {
  /** Redis key prefix, e.g. `rl:crypto:key`. */
  prefix: string;
  limit: number;
  windowMs: number;
}

export interface GateResult {
  /** Requests counted in the current window, this one included (0 when not counted). */
  count: number;
  /** False when the rate limit refused the request. */
  allowed: boolean;
  /** Whether the claim was granted; null when nothing was claimed or the limit refused first. */
  claimed: boolean | null;
  /** Seconds until the window resets (for Retry-After). */
  retryAfterS: number;
}

export class RedisGate {
  private readonly redis: GateRedis;

  constructor(redis: Redis) {
    if (!defined.has(redis)) {
      // EVALSHA with a fallback to EVAL when the script cache is empty (after a Redis restart).
      redis.defineCommand('payGate', { numberOfKeys: 2, lua: GATE_SCRIPT });
      defined.add(redis);
    }
    this.redis = redis as GateRedis;
  }

  /** Counts one request of `who` under `rule` and/or claims `claim.key` for `claim.ttlMs`, in one round trip. */
  async pass(opts: { rate?: { rule: RateRule; who: string }; claim?: { key: string; ttlMs: number }; now?: number }): Promise<GateResult> {
    const now = opts.now ?? Date.now();
    const rule = opts.rate?.rule;
    const window = rule ? Math.floor(now / rule.windowMs) : 0;
    const counter = rule ? `${rule.prefix}:${opts.rate!.who}:${window}` : '';
    const [count, verdict] = await this.redis.payGate(
      counter,
      opts.claim?.key ?? '',
      rule?.limit ?? 0,
      rule?.windowMs ?? 0,
      opts.claim?.ttlMs ?? 0,
    );
    const retryAfterS = rule ? Math.max(1, Math.ceil(((window + 1) * rule.windowMs - now) / 1000)) : 0;
    return {
      count,
      allowed: verdict !== -1,
      claimed: opts.claim && verdict !== -1 ? verdict === 1 : null,
      retryAfterS,
    };
  }
}
