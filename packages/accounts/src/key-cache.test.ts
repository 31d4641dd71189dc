import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import pino from 'pino';
import type { KeyResolver, ResolvedKey } from '@pay/auth';
import { eventually } from '@pay/testing';
import { accountKeys, CachedKeyResolver, publishKeyChange } from './key-cache';

const logger = pino({ level: 'silent' });
const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Stands in for the accounts table: the cache's own logic is what is tested here. */
class CountingKeys implements KeyResolver {
  reads = 0;
  gate: Promise<void> | null = null;
  readonly rows = new Map<string, ResolvedKey>();
  async resolve(hash: string): Promise<ResolvedKey | null> {
    this.reads++;
    const row = this.rows.get(hash) ?? null;
    if (this.gate) await this.gate;
    return row;
  }
}

function keyOf(merchantId: string, secret = 's'): ResolvedKey {
  return { keyId: randomUUID(), merchantId, isTestKey: true, revokedAt: null, merchantActive: true, hmacSecret: async () => secret };
}

const clients: Redis[] = [];
function redis(): Redis {
  const r = new Redis(url, { maxRetriesPerRequest: 1 });
  clients.push(r);
  return r;
}
afterAll(async () => {
  await Promise.all(clients.map((c) => c.quit().catch(() => c.disconnect())));
});

async function listeningCache(inner: KeyResolver, now?: () => number, subscriber = redis()) {
  const cache = new CachedKeyResolver(inner, subscriber, logger, 1000, now);
  await eventually(() => expect(cache.caching).toBe(true), 5000);
  return cache;
}

describe('CachedKeyResolver', () => {
  it('answers repeated resolutions from memory, for at most the TTL', async () => {
    let t = 1_000_000;
    const keys = new CountingKeys();
    keys.rows.set('h1', keyOf('m1'));
    const cache = await listeningCache(keys, () => t);
    await cache.resolve('h1');
    await cache.resolve('h1');
    expect(keys.reads).toBe(1);
    t += 999;
    await cache.resolve('h1');
    expect(keys.reads).toBe(1);
    t += 1; // one second after the first read began: read again
    await cache.resolve('h1');
    expect(keys.reads).toBe(2);
    await cache.close();
  });

  it('drops a merchant’s entries as soon as a change is published, in every process', async () => {
    const merchant = randomUUID();
    const a = new CountingKeys();
    const b = new CountingKeys();
    for (const k of [a, b]) k.rows.set('h2', keyOf(merchant));
    const [cacheA, cacheB] = await Promise.all([listeningCache(a), listeningCache(b)]);
    await Promise.all([cacheA.resolve('h2'), cacheB.resolve('h2')]);
    await publishKeyChange(redis(), logger, merchant);
    await eventually(async () => {
      await Promise.all([cacheA.resolve('h2'), cacheB.resolve('h2')]);
      expect([a.reads, b.reads]).toEqual([2, 2]);
    }, 500, 5);
    await Promise.all([cacheA.close(), cacheB.close()]);
  });

  it('a change this process announces drops its own entries at once, before its message comes back (its next request reads the database)', async () => {
    const merchant = randomUUID();
    const keys = new CountingKeys();
    keys.rows.set('h9', keyOf(merchant));
    const account = accountKeys({ resolver: keys, redis: redis(), logger });
    const cache = account.resolver as CachedKeyResolver;
    await eventually(() => expect(cache.caching).toBe(true), 5000);
    await cache.resolve('h9');
    // The message comes back on the cache's own connection, in a later socket read: held here
    // until the next resolution has answered, as a request arriving first would see it.
    const subscriber = (cache as unknown as { subscriber: Redis }).subscriber;
    subscriber.stream.pause();
    try {
      await account.changed(merchant);
      await cache.resolve('h9');
      expect(keys.reads).toBe(2);
    } finally {
      subscriber.stream.resume();
      await account.close();
    }
  });

  it('does not store a read that overlapped a change (a row read before a revocation committed)', async () => {
    const merchant = randomUUID();
    const keys = new CountingKeys();
    keys.rows.set('h3', keyOf(merchant));
    const subscriber = redis();
    const cache = await listeningCache(keys, undefined, subscriber);
    // The cache listens on this connection first, so once this listener hears the change the cache has handled it.
    const arrived = new Promise<void>((r) => subscriber.on('message', (_channel: string, id: string) => id === merchant && r()));
    let release!: () => void;
    keys.gate = new Promise((r) => (release = r));
    const pending = cache.resolve('h3');
    await publishKeyChange(redis(), logger, merchant);
    await arrived;
    release();
    keys.gate = null;
    await pending;
    await cache.resolve('h3');
    expect(keys.reads).toBe(2);
    await cache.close();
  });

  it('resolutions that miss together share one read (no stampede when an entry expires under load)', async () => {
    const keys = new CountingKeys();
    keys.rows.set('h6', keyOf('m6'));
    keys.rows.set('h7', keyOf('m7'));
    const cache = await listeningCache(keys);
    let release!: () => void;
    keys.gate = new Promise((r) => (release = r));
    const together = [...Array.from({ length: 50 }, () => cache.resolve('h6')), cache.resolve('h7'), cache.resolve('unknown')];
    release();
    const answers = await Promise.all(together);
    expect(keys.reads).toBe(3); // one per key hash, an unknown one included
    expect(new Set(answers.slice(0, 50).map((k) => k!.keyId)).size).toBe(1);
    expect(answers.at(-1)).toBeNull();
    await cache.close();
  });

  it('a resolution after a change never joins a read begun before it (that row may predate a revocation)', async () => {
    const merchant = randomUUID();
    const keys = new CountingKeys();
    keys.rows.set('h8', keyOf(merchant));
    const subscriber = redis();
    const cache = await listeningCache(keys, undefined, subscriber);
    const arrived = new Promise<void>((r) => subscriber.on('message', (_channel: string, id: string) => id === merchant && r()));
    let release!: () => void;
    keys.gate = new Promise((r) => (release = r));
    const before = cache.resolve('h8');
    keys.rows.set('h8', { ...keyOf(merchant), revokedAt: new Date() });
    await publishKeyChange(redis(), logger, merchant);
    await arrived;
    const after = cache.resolve('h8');
    release();
    keys.gate = null;
    expect((await before)!.revokedAt).toBeNull();
    expect((await after)!.revokedAt).not.toBeNull();
    expect(keys.reads).toBe(2);
    await cache.close();
  });

  it('shares no read while the invalidation channel is down', async () => {
    const keys = new CountingKeys();
    keys.rows.set('h9', keyOf('m9'));
    const dead = new Redis('redis://127.0.0.1:1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    dead.on('error', () => undefined);
    const offline = new CachedKeyResolver(keys, dead, logger);
    await Promise.all([offline.resolve('h9'), offline.resolve('h9')]);
    expect(keys.reads).toBe(2);
    await offline.close();
  });

  it('caches nothing while the invalidation channel is down, and unseals a secret once per entry', async () => {
    const keys = new CountingKeys();
    let unsealed = 0;
    keys.rows.set('h4', { ...keyOf('m4'), hmacSecret: async () => `secret-${++unsealed}` });
    const dead = new Redis('redis://127.0.0.1:1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    dead.on('error', () => undefined);
    const offline = new CachedKeyResolver(keys, dead, logger);
    await offline.resolve('h4');
    await offline.resolve('h4');
    expect(keys.reads).toBe(2);
    await offline.close();

    const cache = await listeningCache(keys);
    const first = await cache.resolve('h4');
    const second = await cache.resolve('h4');
    expect(await first!.hmacSecret()).toBe(await second!.hmacSecret());
    expect(unsealed).toBe(1);
    await cache.close();
  });

  it('empties itself when its connection drops', async () => {
    const keys = new CountingKeys();
    keys.rows.set('h5', keyOf('m5'));
    const sub = redis();
    const cache = new CachedKeyResolver(keys, sub, logger);
    await eventually(() => expect(cache.caching).toBe(true), 5000);
    await cache.resolve('h5');
    const closed = new Promise((r) => sub.once('close', r));
    sub.disconnect(true); // and reconnects
    await closed;
    expect(cache.caching).toBe(false);
    await cache.resolve('h5');
    expect(keys.reads).toBe(2);
    await eventually(() => expect(cache.caching).toBe(true), 5000);
    await cache.close();
  });
});
