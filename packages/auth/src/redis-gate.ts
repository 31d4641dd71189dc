import type { Cluster, Redis } from 'ioredis';

/**
 * One Lua script per request for everything a request asks of Redis: count it against a
 * fixed-window rate limit and, for a signed request, claim its signature against replays.
 * Both decisions are made in one round trip; the claim is skipped when the rate limit
 * refuses, so a refused request never burns its signature.
 * KEYS: counter, claim (in one slot on a cluster: see `keyCaller`; the one not used repeats the
 * other). ARGV: limit (0: no counting), window ms, claim ttl ms (0: no claim).
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

type GateRedis = (Redis | Cluster) & { payGate(counter: string, claim: string, limit: number, windowMs: number, claimTtlMs: number): Promise<[number, number]> };

const defined = new WeakSet<Redis | Cluster>();

/**
 * The per-key limit's caller: the key under its merchant's hash tag. A signed request's count
 * and its signature's claim (keyed by merchant) run in one script, and a Redis Cluster runs a
 * script only on keys of one slot (else CROSSSLOT): both keys carry `{merchantId}`, which
 * Cluster hashes alone. Key-only requests count the same key under the same name.
 */
export function keyCaller(auth: { merchantId: string; keyId: string }): string {
  return `{${auth.merchantId}}:${auth.keyId}`;
}

/** A signature's claim, one per merchant (the payload does not name the key), in the slot of `keyCaller`. */
export function signatureClaimId(merchantId: string, signature: string): string {
  return `{${merchantId}}:${signature}`;
}

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

  constructor(redis: Redis | Cluster) {
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
    const counter = rule ? `${rule.prefix}:${opts.rate!.who}:${window}` : null;
    const claim = opts.claim?.key ?? null;
    // A key the script does not touch still names a slot: the one in use stands in for it, so a
    // count alone or a claim alone is in one slot on a cluster ('' would be slot 0: CROSSSLOT).
    const [count, verdict] = await this.redis.payGate(
      counter ?? claim ?? '',
      claim ?? counter ?? '',
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
