import { Cluster, Redis, type ClusterNode, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';

/** How long a request waits on Redis before treating it as unavailable. */
export const REQUEST_REDIS_TIMEOUT_MS = 500;

/** A connection to one Redis server or to a Redis Cluster: every package takes either. */
export type RedisClient = Redis | Cluster;

/** Where Redis is: `REDIS_CLUSTER_NODES` (a cluster) when set, else `REDIS_URL` (one server). */
export interface RedisSettings {
  REDIS_URL: string;
  REDIS_CLUSTER_NODES?: string;
}

/** `host:port,host:port` as ioredis's startup nodes (the config's pattern has checked the form). */
export function clusterNodesOf(list: string): ClusterNode[] {
  return list
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const at = entry.lastIndexOf(':');
      return { host: entry.slice(0, at), port: Number(entry.slice(at + 1)) };
    });
}

/** How often a cluster client asks for the slot map unprompted, so it learns of a promoted replica within this even on a connection no command fails on. */
export const CLUSTER_SLOTS_REFRESH_MS = 2000;

/**
 * One client for either deployment, with the same per-connection options. On a cluster the
 * client learns every node from any startup node that answers (CLUSTER SLOTS, again every
 * CLUSTER_SLOTS_REFRESH_MS), follows MOVED/ASK, and after a failover finds the promoted
 * replica by refreshing the slots; it sends to masters only (`scaleReads` stays `master`), so a
 * request never reads a replica's lag.
 *
 * `deadlineMs` bounds a command on a cluster from the moment it is sent, across the client's
 * own retries. Without it, a command for the slots of a master just killed is retried every
 * `retryDelayOnFailover` (each time after a slots refresh) up to `maxRedirections` times:
 * 4.5 s measured for one INCR whose `commandTimeout` was 500 ms, since that per-connection
 * timer starts only once a node takes the command, and a node being reconnected refuses it
 * first (redis-failover.test.ts). Such a client does not auto-pipeline on a cluster: a slot's
 * next auto-pipeline waits, unsent and so with no timer running, until the one in flight has
 * finished its retries (2.6 s measured with the deadline armed and auto-pipelining on).
 */
function connect(
  settings: RedisSettings,
  options: RedisOptions,
  clusterOptions: { enableOfflineQueue?: boolean; enableAutoPipelining?: boolean } = {},
  deadlineMs?: number,
): RedisClient {
  if (!settings.REDIS_CLUSTER_NODES) return new Redis(settings.REDIS_URL, { ...options, ...clusterOptions });
  const cluster = new Cluster(clusterNodesOf(settings.REDIS_CLUSTER_NODES), {
    ...clusterOptions,
    ...(deadlineMs === undefined ? {} : { enableAutoPipelining: false }),
    redisOptions: options,
    // A failover takes cluster-node-timeout plus an election: retry a redirected or refused
    // command for that long rather than failing it on the first refusal.
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 200,
    retryDelayOnTryAgain: 200,
    slotsRefreshTimeout: 2000,
  });
  // A node's connection is opened lazily, by the first command sent to it; on the request path
  // that command's 500 ms deadline then covers a TCP connect and a handshake too (fresh-ci saw
  // a gate call time out on a loaded machine). So each master's connection is opened as soon
  // as the client learns of it: at startup, and for a replica promoted by a failover. Replicas
  // are sent no request's command (reads stay on masters), so they are left to the slots
  // refresh, which asks any node.
  cluster.on('+node', (node: Redis) => {
    if (!node.options.readOnly && node.status === 'wait') node.connect().catch(() => undefined);
  });
  // Not ioredis's slotsRefreshInterval: a refresh in flight when the client quits arms its
  // timer again, for ever, and the process never ends (seen in a test that closed its client
  // during a failover). This one is unref'd and stops when the client ends.
  const refresh = setInterval(() => cluster.status === 'ready' && cluster.refreshSlotsCache(), CLUSTER_SLOTS_REFRESH_MS).unref();
  cluster.once('end', () => clearInterval(refresh));
  if (deadlineMs !== undefined) {
    const send = cluster.sendCommand.bind(cluster);
    // ioredis arms a command's timer once (Command#setTimeout keeps the first): armed here, at
    // the cluster, it runs across every retry, and the node's own commandTimeout is a no-op.
    cluster.sendCommand = (command, stream, node) => {
      command.setTimeout(deadlineMs);
      return send(command, stream, node);
    };
  }
  return cluster;
}

const lastErrors = new WeakMap<RedisClient, Error>();

function watched<C extends RedisClient>(redis: C, role: string, logger: Logger): C {
  // Without a listener ioredis prints every reconnect failure to stderr; with one, the
  // reason is logged once per outage and kept for /readyz.
  redis.on('error', (err: Error) => {
    if (!lastErrors.has(redis)) logger.warn({ err: { message: err.message }, redis: role }, 'redis unreachable; reconnecting');
    lastErrors.set(redis, err);
  });
  redis.on('ready', () => {
    if (lastErrors.delete(redis)) logger.info({ redis: role }, 'redis reachable again');
  });
  return redis;
}

/**
 * Redis for the request path (rate limits, replay guard, readiness). While Redis is away a
 * command fails at once instead of waiting in ioredis's offline queue, and a connected Redis
 * that stalls fails a command after `timeoutMs`. So a request never hangs on Redis: the rate
 * limiter lets it through and the replay guard answers 503. (Before the first connection
 * /readyz is not ready, so a balancer sends no traffic yet.)
 */
export function requestRedis(settings: RedisSettings, logger: Logger, timeoutMs = REQUEST_REDIS_TIMEOUT_MS): RedisClient {
  // Each command written as it is issued, not auto-pipelined: a request issues one command
  // (its gate), and ioredis's auto-pipeline (a Pipeline object, a setImmediate and its exec
  // per batch) cost more than the writes it shares. Measured with `pnpm bench` (2026-11-28,
  // invoicing.v2-create, two runs each way, CPU ms per request): auto-pipelined 0.753-0.771 at
  // saturation and 1.029-1.041 at the fixed rate; written as issued 0.643-0.744 and 0.964-0.972.
  return watched(connect(settings, { commandTimeout: timeoutMs, maxRetriesPerRequest: 1 }, { enableOfflineQueue: false, enableAutoPipelining: false }, timeoutMs), 'requests', logger);
}

/**
 * Redis for BullMQ queues and workers. BullMQ waits out outages itself and needs commands that
 * never give up (`maxRetriesPerRequest: null`); its work is never on a request's critical path.
 */
export function queueRedis(settings: RedisSettings, logger: Logger): RedisClient {
  return watched(connect(settings, { maxRetriesPerRequest: null }), 'queues', logger);
}

/** A second connection like `redis` (the same server or cluster, the same options): a subscribed connection takes no other command. */
export function duplicateRedis(redis: RedisClient): RedisClient {
  return redis instanceof Cluster ? redis.duplicate() : redis.duplicate();
}

/** Readiness check: says why Redis is unreachable (e.g. ECONNREFUSED) rather than timing out. */
export async function redisReady(redis: RedisClient): Promise<void> {
  if (redis.status !== 'ready') {
    throw new Error(`${redis.status}${lastErrors.has(redis) ? `: ${lastErrors.get(redis)!.message}` : ''}`);
  }
  await redis.ping();
}

/**
 * Closes a client at shutdown. QUIT lets a connected client finish what it sent; a client
 * that is not connected is dropped at once, since QUIT would wait for a Redis that is away.
 */
export async function closeRedis(redis: RedisClient): Promise<void> {
  if (redis.status === 'ready') {
    await redis.quit().catch(() => redis.disconnect());
  } else {
    redis.disconnect();
  }
}
