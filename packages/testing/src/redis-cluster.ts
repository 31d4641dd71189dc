import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from './eventually';
import { freePort } from './throwaway';

/**
 * How long a node may be unreachable before the others count it failed and its replica is
 * elected: short, so a chaos test's failover takes seconds, and still far above the pauses a
 * loaded two-core machine gives a process.
 */
const NODE_TIMEOUT_MS = 3000;
/** Everything here waits this long at most: starting six servers and electing on a starved machine. */
const WAIT_MS = 90_000;

interface ClusterNodeLine {
  id: string;
  port: number;
  role: 'master' | 'replica';
  failed: boolean;
  masterId: string | null;
  /** Slot ranges served, inclusive. */
  ranges: [number, number][];
  slots: number;
}

function cli(port: number, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 20_000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`redis-cli -p ${port} ${args.join(' ')}: ${stderr || err.message}`));
      resolve(stdout);
    }),
  );
}

/** Whether nobody listens on `port` right now. */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/**
 * Ports for the cluster's nodes, each a client port and a bus port (`cluster-port`). Inside
 * `TEST_REDIS_CLUSTER_PORTS` ("7100-7199") when set, for machines where a range is set aside
 * (from a random point in it, so two files starting together rarely reach for the same
 * ports; a server that still loses the race is started again on the next free ones); else
 * any free ports.
 */
function portSource(): () => Promise<number> {
  const range = process.env.TEST_REDIS_CLUSTER_PORTS?.match(/^(\d+)-(\d+)$/);
  if (!range) return freePort;
  const [from, to] = [Number(range[1]), Number(range[2])];
  const size = to - from + 1;
  let next = Math.floor(Math.random() * size);
  return async () => {
    for (let tried = 0; tried < size; tried++) {
      const port = from + (next++ % size);
      if (await portIsFree(port)) return port;
    }
    throw new Error(`no free port left in TEST_REDIS_CLUSTER_PORTS=${process.env.TEST_REDIS_CLUSTER_PORTS}`);
  };
}

/** `CLUSTER NODES` as seen from `port`. */
async function nodesSeenFrom(port: number): Promise<ClusterNodeLine[]> {
  const text = await cli(port, 'cluster', 'nodes');
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const [id, address, flags, masterId, , , , , ...slots] = line.split(' ');
      // `[slot->-node]` entries are slots being migrated.
      const ranges = slots.filter((s) => !s.startsWith('[')).map((s) => s.split('-').map(Number)).map(([a, b]) => [a!, b ?? a!] as [number, number]);
      return {
        id: id!,
        port: Number(address!.split('@')[0]!.split(':').pop()),
        role: flags!.includes('master') ? 'master' : 'replica',
        failed: /\bfail\b/.test(flags!) || flags!.includes('fail?') || flags!.includes('noaddr'),
        masterId: masterId === '-' ? null : masterId!,
        ranges,
        slots: ranges.reduce((n, [a, b]) => n + b - a + 1, 0),
      } satisfies ClusterNodeLine;
    });
}

/**
 * A Redis Cluster of the test's own from Debian's `redis-server`: `masters` masters (3) with
 * `replicasPerMaster` replicas each (1), so one master may be killed and its replica takes
 * over. Nothing on disk but each node's cluster state file. Resolves once every node says
 * `cluster_state:ok`, knows every other node, and every replica has its master's data link
 * up: a client's first command finds the slots served, and a failover has a replica in sync.
 * `env` is what a service needs to use it (REDIS_CLUSTER_NODES, and a hash-tagged QUEUE_PREFIX).
 */
export async function startRedisCluster(opts: { masters?: number; replicasPerMaster?: number; queuePrefix?: string } = {}) {
  const masters = opts.masters ?? 3;
  const replicas = opts.replicasPerMaster ?? 1;
  const dir = mkdtempSync(join(tmpdir(), 'pay-redis-cluster-'));
  const nextPort = portSource();
  const servers = new Map<number, ChildProcess>();

  /** One node, started again on other ports when it loses its ports to another process. */
  async function startNode(): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      const [port, bus] = [await nextPort(), await nextPort()];
      if (port === bus) continue;
      const child = spawn(
        'redis-server',
        [
          '--port', String(port),
          '--cluster-port', String(bus),
          '--bind', '127.0.0.1',
          '--cluster-enabled', 'yes',
          '--cluster-config-file', join(dir, `nodes-${port}.conf`),
          '--cluster-node-timeout', String(NODE_TIMEOUT_MS),
          // A replica is elected however long it was cut off: on a starved machine its last
          // contact may look old, and a cluster without its master's slots serves none of them.
          '--cluster-replica-validity-factor', '0',
          '--dir', dir,
          '--save', '',
          '--appendonly', 'no',
        ],
        { stdio: 'ignore' },
      );
      const exited = new Promise<'exited'>((resolve) => child.once('exit', () => resolve('exited')));
      const up = eventually(() => cli(port, 'ping'), WAIT_MS, 50).then(() => 'up' as const);
      if ((await Promise.race([up, exited])) === 'up') {
        servers.set(port, child);
        return port;
      }
      if (attempt >= 5) throw new Error(`redis-server would not start (tried ${attempt + 1} pairs of ports)`);
    }
  }

  async function stop(): Promise<void> {
    await Promise.all(
      [...servers.values()].map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGKILL');
          }),
      ),
    );
    rmSync(dir, { recursive: true, force: true });
  }

  /** The nodes still running. */
  const live = () => [...servers].filter(([, c]) => c.exitCode === null && c.signalCode === null).map(([port]) => port);

  /**
   * Every live node sees the cluster whole: state ok, `expectMasters` masters serving all
   * slots, and (unless null) each master with `expectReplicasEach` replicas, their links up.
   */
  async function settled(expectMasters: number, expectReplicasEach: number | null): Promise<ClusterNodeLine[]> {
    return eventually(
      async () => {
        const ports = live();
        let seen: ClusterNodeLine[] = [];
        for (const port of ports) {
          const info = await cli(port, 'cluster', 'info');
          if (!info.includes('cluster_state:ok')) throw new Error(`node ${port}: ${info.split('\n')[0]}`);
          seen = (await nodesSeenFrom(port)).filter((n) => !n.failed);
          const up = seen.filter((n) => n.role === 'master' && n.slots > 0);
          if (up.length !== expectMasters || up.reduce((n, m) => n + m.slots, 0) !== 16384) throw new Error(`node ${port} sees ${up.length} masters serving slots`);
          for (const m of expectReplicasEach === null ? [] : up) {
            const linked = seen.filter((n) => n.masterId === m.id).length;
            if (linked !== expectReplicasEach) throw new Error(`node ${port} sees ${linked} replicas of ${m.port}`);
          }
        }
        for (const n of seen.filter((s) => s.role === 'replica')) {
          const repl = await cli(n.port, 'info', 'replication');
          if (!repl.includes('master_link_status:up')) throw new Error(`replica ${n.port}: link to its master not up`);
        }
        return seen;
      },
      WAIT_MS,
      100,
    );
  }

  try {
    const ports: number[] = [];
    // One at a time: six servers starting at once on a loaded machine only slow each other.
    for (let i = 0; i < masters * (1 + replicas); i++) ports.push(await startNode());
    await new Promise<void>((resolve, reject) =>
      execFile(
        'redis-cli',
        ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', String(replicas), '--cluster-yes'],
        { timeout: WAIT_MS },
        (err, stdout, stderr) => (err ? reject(new Error(`redis-cli --cluster create: ${stderr || stdout || err.message}`)) : resolve()),
      ),
    );
    await settled(masters, replicas);
  } catch (err) {
    await stop();
    throw err;
  }

  const nodes = [...servers.keys()].map((p) => `127.0.0.1:${p}`).join(',');
  return {
    /** REDIS_CLUSTER_NODES: every node, as an operator lists the cluster's endpoints. */
    nodes,
    env: { REDIS_CLUSTER_NODES: nodes, QUEUE_PREFIX: opts.queuePrefix ?? '{bull}' },
    ports: [...servers.keys()],
    /** The masters serving slots now, as the live nodes see them. */
    async masters(): Promise<{ port: number; slots: number }[]> {
      const seen = await nodesSeenFrom(live()[0]!);
      return seen.filter((n) => n.role === 'master' && !n.failed && n.slots > 0).map(({ port, slots }) => ({ port, slots }));
    },
    /** The master serving `key`'s slot now, and how many replicas it has (killMaster needs one). */
    async masterOf(key: string): Promise<{ port: number; replicas: number }> {
      const seen = await nodesSeenFrom(live()[0]!);
      const slot = Number((await cli(live()[0]!, 'cluster', 'keyslot', key)).trim());
      const master = seen.find((n) => n.role === 'master' && !n.failed && n.ranges.some(([a, b]) => a <= slot && slot <= b));
      if (!master) throw new Error(`no master serves ${key} (slot ${slot})`);
      return { port: master.port, replicas: seen.filter((n) => n.masterId === master.id && !n.failed).length };
    },
    /**
     * SIGKILL to one master (the one holding `holding`'s slot, else the first), as a crashed
     * host: resolves once its replica has been elected and every live node says
     * `cluster_state:ok` again, with how long that took. The promoted replica has none left.
     */
    async killMaster(o: { holding?: string } = {}): Promise<{ killed: number; promoted: number; failoverMs: number }> {
      const before = await nodesSeenFrom(live()[0]!);
      const slot = o.holding === undefined ? null : Number((await cli(live()[0]!, 'cluster', 'keyslot', o.holding)).trim());
      const victim = before.find((n) => n.role === 'master' && n.slots > 0 && (slot === null || n.ranges.some(([a, b]) => a <= slot && slot <= b)));
      if (!victim) throw new Error(`no master serving slots${o.holding ? ` for ${o.holding}` : ''}`);
      const replica = before.find((n) => n.masterId === victim.id && !n.failed);
      if (!replica) throw new Error(`master ${victim.port} has no replica to take over: killing it would leave its slots unserved`);
      const started = Date.now();
      const child = servers.get(victim.port)!;
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      });
      await eventually(
        async () => {
          const seen = await nodesSeenFrom(replica.port);
          if (seen.find((n) => n.port === replica.port)?.role !== 'master') throw new Error(`replica ${replica.port} not promoted yet`);
        },
        WAIT_MS,
        100,
      );
      await settled(masters, null);
      return { killed: victim.port, promoted: replica.port, failoverMs: Date.now() - started };
    },
    stop,
  };
}

export type RedisClusterServer = Awaited<ReturnType<typeof startRedisCluster>>;
