import type { Cluster } from 'ioredis';
import pino from 'pino';
import { keyCaller, RedisGate, signatureClaimId } from '@pay/auth';
import { closeRedis, duplicateRedis, requestRedis, type RedisClient } from '@pay/runtime';
import { eventually, firstConnection, startRedisCluster, type RedisClusterServer } from '@pay/testing';
import { KEY_INVALIDATION_CHANNEL, publishKeyChange } from './key-cache';

/**
 * The request path's Redis on a Redis Cluster (three masters, a replica each), through the
 * connection the services open with REDIS_CLUSTER_NODES (`requestRedis`): the auth gate's
 * script over its two keys (a signed request's count and its signature's claim, in the
 * merchant's slot) and key changes over pub/sub (a subscriber on one node, the publish on
 * another); then both again once a master is killed and its replica has taken over.
 */
const logger = pino({ level: 'silent' });

describe('the request path’s Redis on a Redis Cluster', () => {
  let cluster: RedisClusterServer;
  const clients: RedisClient[] = [];
  const open = <C extends RedisClient>(c: C): C => {
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    cluster = await startRedisCluster();
  }, 180_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => closeRedis(c)));
    await cluster?.stop();
  });

  async function gateWorks(gate: RedisGate, merchant: string) {
    const rule = { prefix: 'rl:test:key', limit: 2, windowMs: 60_000 };
    const who = keyCaller({ merchantId: merchant, keyId: 'k1' });
    const claim = (signature: string) => ({ key: `replay:test:${signatureClaimId(merchant, signature)}`, ttlMs: 60_000 });
    const first = await gate.pass({ rate: { rule, who }, claim: claim('sig-1') });
    const replay = await gate.pass({ rate: { rule, who }, claim: claim('sig-1') });
    const over = await gate.pass({ rate: { rule, who }, claim: claim('sig-2') });
    expect([first, replay, over].map((r) => [r.count, r.allowed, r.claimed])).toEqual([
      [1, true, true],
      [2, true, false],
      [3, false, null],
    ]);
  }

  async function keyChangesArrive(publisher: RedisClient, received: string[], merchantId: string) {
    // A message goes out through whichever node the publisher's command lands on.
    await eventually(async () => {
      await publishKeyChange(publisher, logger, merchantId);
      expect(received).toContain(merchantId);
    }, 20_000, 200);
  }

  it('counts a request alone (key-only and anonymous limits) and claims a signature alone, whatever slot the key falls in', async () => {
    const request = open(requestRedis({ REDIS_URL: 'redis://127.0.0.1:1', REDIS_CLUSTER_NODES: cluster.nodes }, logger));
    await firstConnection(request);
    // Every master's connection opens before any command needs it, so no request's deadline
    // pays for a connect.
    await eventually(async () => {
      expect((request as Cluster).nodes('master').map((n) => n.status)).toEqual(['ready', 'ready', 'ready']);
    }, 10_000, 50);
    const gate = new RedisGate(request);
    // Callers enough that their keys fall on every master, few of them in the slot of '' (0).
    const callers = Array.from({ length: 12 }, (_, i) => `10.0.0.${i}`);
    const rule = { prefix: 'rl:test:ip', limit: 1, windowMs: 60_000 };
    const counted = await Promise.all(callers.map(async (who) => [(await gate.pass({ rate: { rule, who } })).allowed, (await gate.pass({ rate: { rule, who } })).allowed]));
    expect(counted).toEqual(callers.map(() => [true, false]));
    const claims = await Promise.all(callers.map(async (who) => [(await gate.pass({ claim: { key: `replay:test:${who}`, ttlMs: 60_000 } })).claimed, (await gate.pass({ claim: { key: `replay:test:${who}`, ttlMs: 60_000 } })).claimed]));
    expect(claims).toEqual(callers.map(() => [true, false]));
    // Sent in one tick, as a service's concurrent requests are: while the request client
    // auto-pipelined on a cluster, a node's share went as one pipeline, which one call across two
    // slots failed whole, signed requests' claims included (the doubled stack's 503s).
    const signed = (i: number) => ({ rate: { rule: { ...rule, prefix: 'rl:test:key' }, who: keyCaller({ merchantId: `m-${i}`, keyId: 'k' }) }, claim: { key: `replay:test:${signatureClaimId(`m-${i}`, 'sig')}`, ttlMs: 60_000 } });
    const mixed = await Promise.allSettled(callers.flatMap((who, i) => [gate.pass({ rate: { rule, who: `${who}-mixed` } }), gate.pass(signed(i))]));
    expect(mixed.map((r) => (r.status === 'fulfilled' ? r.value.allowed : String(r.reason)))).toEqual(mixed.map(() => true));
  }, 60_000);

  it('counts and claims in one script in the merchant’s slot, and carries key changes; again after a master is killed and its replica took over', async () => {
    const request = open(requestRedis({ REDIS_URL: 'redis://127.0.0.1:1', REDIS_CLUSTER_NODES: cluster.nodes }, logger));
    await firstConnection(request);
    const gate = new RedisGate(request);
    const subscriber = open(duplicateRedis(request));
    await firstConnection(subscriber);
    const received: string[] = [];
    subscriber.on('message', (channel: string, merchantId: string) => channel === KEY_INVALIDATION_CHANNEL && received.push(merchantId));
    await subscriber.subscribe(KEY_INVALIDATION_CHANNEL);

    // Merchants enough that their slots fall on every master.
    const merchants = Array.from({ length: 12 }, (_, i) => `m-${i}-${Date.now()}`);
    for (const m of merchants) await gateWorks(gate, m);
    // Without the merchant's tag on both keys most pairs fall in two slots, which a cluster
    // refuses (CROSSSLOT; the client's auto-pipelining refuses it first, naming the slot).
    const untagged = merchants.map((m) =>
      gate.pass({ rate: { rule: { prefix: 'rl:test:key', limit: 9, windowMs: 1000 }, who: `${m}:k1` }, claim: { key: `replay:test:${m}:sig`, ttlMs: 1000 } }),
    );
    expect((await Promise.allSettled(untagged)).map((r) => (r.status === 'rejected' ? String(r.reason) : 'ok'))).toContainEqual(expect.stringMatching(/CROSSSLOT|keys .* should belong to the same slot/));
    await keyChangesArrive(request, received, 'merchant-before');

    const failover = await cluster.killMaster();
    expect((await cluster.masters()).map((m) => m.port)).toContain(failover.promoted);
    // The client finds the promoted replica (MOVED, then a slots refresh); a command may fail
    // while it does (the request path fails fast, by design), so the check is retried.
    await eventually(async () => {
      for (const m of merchants) await gateWorks(gate, `${m}-after`);
    }, 60_000, 500);
    await keyChangesArrive(request, received, 'merchant-after');
  }, 240_000);
});
