import type { KeyResolver, ResolvedKey } from '@pay/auth';
import { duplicateRedis, type Logger, type RedisClient } from '@pay/runtime';

/**
 * How long a process may answer from a cached key: a revoked key may work
 * for at most one second, so this bounds the damage of a lost invalidation message.
 */
export const KEY_CACHE_TTL_MS = 1000;
/** Every process of every service listens here; the message is a merchant id. */
export const KEY_INVALIDATION_CHANNEL = 'accounts:keys-changed';
const MAX_ENTRIES = 10_000;

interface Entry {
  key: ResolvedKey;
  expiresAt: number;
}

/**
 * Resolves API keys from a per-process cache, so an authenticated request costs no database
 * round trip. Correctness rests on three rules:
 * - a revocation or a secret regeneration publishes the merchant's id, and every process
 *   drops that merchant's entries at once (a regenerated secret is dead at once);
 * - an entry lives at most KEY_CACHE_TTL_MS from the moment its read began, so a lost
 *   message costs at most one second;
 * - while the invalidation channel is not connected and subscribed, nothing is cached
 *   (every request reads the database), and everything cached is dropped when it drops.
 * A read that overlaps an invalidation is not stored (generation check), so a row read
 * before a revocation committed cannot be cached after it.
 * Resolutions that miss together share one read (`reading`), as they would share the entry it
 * stores: without that, each expiry under load sent every request in flight for the key to the
 * database (most of the crypto GET's key reads). A resolution joins a read only while nothing
 * was invalidated since it began, and only while listening: the same rules as an entry.
 */
export class CachedKeyResolver implements KeyResolver {
  private readonly entries = new Map<string, Entry>();
  /** Reads under way, by key hash, with the generation they began in. */
  private readonly reading = new Map<string, { generation: number; key: Promise<ResolvedKey | null> }>();
  private generation = 0;
  private listening = false;
  private closed = false;

  constructor(
    private readonly inner: KeyResolver,
    private readonly subscriber: RedisClient,
    private readonly logger: Logger,
    private readonly ttlMs = KEY_CACHE_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {
    subscriber.on('message', (_channel: string, merchantId: string) => this.forget(merchantId));
    subscriber.on('ready', () => void this.subscribe());
    for (const lost of ['close', 'reconnecting', 'end'] as const) subscriber.on(lost, () => this.stopCaching());
    subscriber.on('error', () => this.stopCaching());
    if (subscriber.status === 'ready') void this.subscribe();
  }

  /** True while invalidations can reach this process, i.e. while answers may come from the cache. */
  get caching(): boolean {
    return this.listening;
  }

  async resolve(keyHash: string): Promise<ResolvedKey | null> {
    const started = this.now();
    const hit = this.listening ? this.entries.get(keyHash) : undefined;
    if (hit && hit.expiresAt > started) return hit.key;
    const generation = this.generation;
    const shared = this.listening ? this.reading.get(keyHash) : undefined;
    if (shared && shared.generation === generation) return shared.key;
    const key = this.inner.resolve(keyHash).then((found) => found && memoizeSecret(found));
    const read = { generation, key };
    if (this.listening) this.reading.set(keyHash, read);
    try {
      const cached = await key;
      if (cached && this.listening && generation === this.generation) {
        if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
        this.entries.set(keyHash, { key: cached, expiresAt: started + this.ttlMs });
      }
      return cached;
    } finally {
      if (this.reading.get(keyHash) === read) this.reading.delete(keyHash);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopCaching();
    if (this.subscriber.status === 'ready') await this.subscriber.quit().catch(() => this.subscriber.disconnect());
    else this.subscriber.disconnect();
  }

  private async subscribe(): Promise<void> {
    if (this.closed) return;
    try {
      await this.subscriber.subscribe(KEY_INVALIDATION_CHANNEL);
      // Messages sent while unsubscribed are lost; the cache was emptied when the link dropped.
      this.generation++;
      this.listening = true;
    } catch (err) {
      this.logger.warn({ err: { message: (err as Error).message } }, 'key invalidation channel unavailable; API keys are read from the database on every request');
    }
  }

  private stopCaching(): void {
    this.listening = false;
    this.generation++;
    this.entries.clear();
  }

  /**
   * Drops a merchant's entries, and stores no read begun before: on a change announced by any
   * process (the message), and at once by the process that made it (`accountKeys().changed`),
   * whose next request must not wait for its own message to come back.
   */
  forget(merchantId: string): void {
    this.generation++;
    for (const [hash, entry] of this.entries) if (entry.key.merchantId === merchantId) this.entries.delete(hash);
  }
}

/** The HMAC secret is unsealed once per cached entry rather than on every signed request. */
function memoizeSecret(key: ResolvedKey): ResolvedKey {
  let secret: Promise<string> | undefined;
  return { ...key, hmacSecret: () => (secret ??= key.hmacSecret()) };
}

/**
 * Tells every process that a merchant's keys or secret changed. Called after the change has
 * committed. A failed publish is logged, not thrown: the change stands, and the one-second
 * lifetime of cached entries bounds how long another process may still accept the old key.
 */
export async function publishKeyChange(redis: RedisClient, logger: Logger, merchantId: string): Promise<void> {
  try {
    await redis.publish(KEY_INVALIDATION_CHANNEL, merchantId);
  } catch (err) {
    logger.warn({ err: { message: (err as Error).message }, merchantId }, 'could not publish a key change; other processes may accept the old key for up to 1 s');
  }
}

/** API keys as every service sees them: resolved through the cache, and changes announced to every process. */
export interface AccountKeys {
  resolver: KeyResolver;
  /** Announces a committed revocation or secret regeneration of this merchant to every process. */
  changed(merchantId: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Builds the key resolution of one process: `redis` is the request-path client (it publishes);
 * a duplicate of it listens for changes. Close it at shutdown.
 */
export function accountKeys(o: { resolver: KeyResolver; redis: RedisClient; logger: Logger; ttlMs?: number }): AccountKeys {
  const cache = new CachedKeyResolver(o.resolver, duplicateRedis(o.redis), o.logger, o.ttlMs);
  return {
    resolver: cache,
    // This process first, then every other one: the message reaches this process's own
    // subscriber on another connection, after the answer to the revoking request may have
    // gone and the merchant's next request arrived (fresh-ci saw a key revoked by the previous
    // request still accepted).
    changed: (merchantId) => {
      cache.forget(merchantId);
      return publishKeyChange(o.redis, o.logger, merchantId);
    },
    close: () => cache.close(),
  };
}
