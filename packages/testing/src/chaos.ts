import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { spawnService, type RunningService } from './spawn-service';
import { startThrowawayPostgres, startThrowawayRedis } from './throwaway';
import { startPgBouncer } from './pgbouncer';
import { ARTEFACTS } from './artefacts';


/** How a chaos stack's services reach its Postgres: directly, or through PgBouncer in transaction pooling. */
export interface ChaosStackOptions {
  through?: 'pgbouncer';
}

/**
 * A stack of the scenario's own for chaos tests: a throwaway Postgres (migrated) and Redis that
 * the test may restart, flush or kill, and service processes on them (`spawnService`: the real
 * entry point under tsx). With `through: 'pgbouncer'` the services reach Postgres through a
 * PgBouncer in transaction pooling (`startPgBouncer`: DATABASE_URL their schema's entry,
 * DATABASE_DIRECT_URL the server), which the test may restart too. `close()` keeps every
 * process's log in artefacts/ beside the counts, to explain a failure after the fact, then
 * stops everything.
 */
export async function startChaosStack(name: string, opts: ChaosStackOptions = {}) {
  const postgres = await startThrowawayPostgres(name.replace(/\W/g, '_'));
  const redis = await startThrowawayRedis();
  const processes: { service: string; svc: RunningService }[] = [];
  let pgbouncer: Awaited<ReturnType<typeof startPgBouncer>> | undefined;
  try {
    const { deploy } = await import('@pay/migrate');
    await deploy({ databaseUrl: postgres.url, quiet: true });
    if (opts.through === 'pgbouncer') pgbouncer = await startPgBouncer(postgres.url);
  } catch (err) {
    await redis.stop();
    postgres.stop();
    throw err;
  }
  return {
    postgres,
    redis,
    /** The PgBouncer between the services and Postgres (`through: 'pgbouncer'`). */
    pgbouncer,
    /** Starts a service on this stack's Postgres (or its PgBouncer) and Redis. */
    async spawn(service: string, env: Record<string, string> = {}): Promise<RunningService> {
      const database = pgbouncer ? pgbouncer.envFor(service) : { DATABASE_URL: postgres.url };
      const svc = await spawnService(service, { ...database, REDIS_URL: redis.url, ...env });
      processes.push({ service, svc });
      return svc;
    },
    /** One statement on a connection of its own, so it works across restarts of the server. */
    async query<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
      const client = new pg.Client({ connectionString: postgres.url });
      await client.connect();
      try {
        return (await client.query<T>(text, values)).rows;
      } finally {
        await client.end();
      }
    },
    async close() {
      mkdirSync(ARTEFACTS, { recursive: true });
      processes.forEach(({ service, svc }, i) => writeFileSync(join(ARTEFACTS, `chaos-${name}-${service}-${i + 1}.log`), svc.logs()));
      if (pgbouncer) writeFileSync(join(ARTEFACTS, `chaos-${name}-pgbouncer.log`), pgbouncer.logs());
      await Promise.all(processes.map(({ svc }) => killHard(svc)));
      await pgbouncer?.stop();
      await redis.stop();
      postgres.stop();
    },
  };
}

export type ChaosStack = Awaited<ReturnType<typeof startChaosStack>>;

/** A process killed with SIGKILL, mid-whatever it was doing; resolves once it and its output pipes are gone. */
export function killHard(svc: RunningService): Promise<void> {
  const { child } = svc;
  const exited = child.exitCode !== null || child.signalCode !== null;
  if (exited && child.stdout?.closed !== false && child.stderr?.closed !== false) return Promise.resolve();
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  if (!exited) child.kill('SIGKILL');
  return closed;
}

/**
 * Adds one scenario's counts to artefacts/chaos.json (scenarios of other files are kept;
 * files in parallel jest workers take turns through a lock directory, `mkdir` being atomic).
 */
export async function recordChaos(scenario: string, counts: Record<string, unknown>): Promise<void> {
  mkdirSync(ARTEFACTS, { recursive: true });
  const file = join(ARTEFACTS, 'chaos.json');
  const lock = `${file}.lock`;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock left by a run that died is older than any write takes.
      const held = statSync(lock, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > 10_000) rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  try {
    let all: Record<string, unknown> = {};
    try {
      all = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch {
      // first scenario of the folder, or a file from an older format: start afresh
    }
    all[scenario] = { ...counts, at: new Date().toISOString() };
    writeFileSync(`${file}.tmp`, `${JSON.stringify(all, null, 2)}\n`);
    renameSync(`${file}.tmp`, file);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
