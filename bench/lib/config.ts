/** The bench's options, all from environment variables (see bench/README.md). */
export interface BenchConfig {
  databaseUrl: string;
  redisUrl: string;
  /** Measured seconds per run. */
  seconds: number;
  /** Unmeasured seconds before each run. */
  warmupSeconds: number;
  /** Runs of each side per mode, alternating; each side's least disturbed one counts (bench/run.ts). */
  rounds: number;
  /** Fixed-rate runs offer this share of the baseline's saturation throughput. */
  rateFraction: number;
  /** Scenario or suite names to run; empty: all. */
  only: string[];
  /** Connections for every scenario, or per scenario name. */
  connections: { all?: number; byName: Record<string, number> };
  /** Extra node arguments for the measured service (e.g. --cpu-prof), and for the baseline. */
  serviceNodeArgs: string[];
  baselineNodeArgs: string[];
}

function positive(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!(n > 0)) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return n;
}

const words = (raw: string | undefined, separator = /[\s,]+/) => (raw ?? '').split(separator).filter(Boolean);

/** BENCH_CONNECTIONS: `60` (every scenario) or `crypto.get-invoice=200,crypto.withdraw-1=20`. */
function parseConnections(raw: string | undefined): BenchConfig['connections'] {
  if (!raw) return { byName: {} };
  if (!raw.includes('=')) return { all: positive('BENCH_CONNECTIONS', raw, 0), byName: {} };
  const byName: Record<string, number> = {};
  for (const pair of words(raw)) {
    const [name, n] = pair.split('=');
    byName[name!] = positive(`BENCH_CONNECTIONS (${name})`, n, 0);
  }
  return { byName };
}

export function readConfig(env: NodeJS.ProcessEnv): BenchConfig {
  const rateFraction = positive('BENCH_RATE_FRACTION', env.BENCH_RATE_FRACTION, 0.4);
  if (rateFraction > 1) throw new Error('BENCH_RATE_FRACTION must be at most 1');
  return {
    databaseUrl: env.BENCH_DATABASE_URL ?? 'postgresql://root@127.0.0.1:5432/payments_bench',
    redisUrl: env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/14',
    seconds: positive('BENCH_SECONDS', env.BENCH_SECONDS, 10),
    warmupSeconds: positive('BENCH_WARMUP_SECONDS', env.BENCH_WARMUP_SECONDS, 2),
    rounds: Math.round(positive('BENCH_ROUNDS', env.BENCH_ROUNDS, 2)),
    rateFraction,
    only: words(env.BENCH_ONLY),
    connections: parseConnections(env.BENCH_CONNECTIONS),
    serviceNodeArgs: words(env.BENCH_NODE_ARGS, /\s+/),
    baselineNodeArgs: words(env.BENCH_BASELINE_NODE_ARGS, /\s+/),
  };
}

export function connectionsFor(config: BenchConfig, scenario: { name: string; connections: number }): number {
  return config.connections.byName[scenario.name] ?? config.connections.all ?? scenario.connections;
}
