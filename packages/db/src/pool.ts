import pg from 'pg';

/** A pg pool's counts as pg reports them (pg.Pool's totalCount, idleCount, waitingCount) and its size. */
export interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
  options: { max?: number };
}

const open = new Map<string, PoolCounts>();

/**
 * The pools this process has open, by schema: the `db_pool_connections` gauge (@pay/runtime's metrics)
 * reads them at every scrape. A later pool of the same schema replaces the earlier one.
 */
export function openPools(): ReadonlyMap<string, PoolCounts> {
  return open;
}

/**
 * What is between the process and Postgres (DATABASE_POOLING): `session`, Postgres itself or a
 * pooler that gives a client one server connection for its whole session; `transaction`, a
 * PgBouncer in transaction pooling, where consecutive transactions of one client connection
 * run on different server connections, so nothing may outlive a transaction: no named
 * prepared statement (PgBouncer 1.18, Debian's, does not track them), no session SET.
 */
export type DatabasePooling = 'session' | 'transaction';

/** The pools whose server connections change between transactions (DATABASE_POOLING=transaction). */
const transactionPooled = new WeakSet<pg.Pool>();

/** Whether `pool` is behind a transaction pooler: its statements must go unnamed (prepared.ts). */
export function isTransactionPooled(pool: pg.Pool): boolean {
  return transactionPooled.has(pool);
}

/**
 * A pg pool confined to one Postgres schema (search_path). `createDb` makes the one pool of a
 * process on it and puts its Prisma client there; nothing else should call it but code that
 * has not moved to `createDb` yet.
 *
 * Directly on Postgres the search_path is a startup option of each connection. PgBouncer 1.18
 * refuses that option ("unsupported startup parameter: options"), and a session SET would stay
 * on whichever server connection ran it; behind it the search_path is the PgBouncer database
 * entry's (`connect_query='SET search_path TO <schema>'`, one entry per service schema: README
 * "PgBouncer"), and `postgresReady` checks that it is this schema.
 */
export function pgPool(databaseUrl: string, schema: string, max = 10, pooling: DatabasePooling = 'session'): pg.Pool {
  // A request never waits more than 5 s for a connection: an unreachable database, or a pool
  // exhausted for that long, fails the query (answered 503) instead of hanging it.
  const searchPath = pooling === 'session' ? { options: `-c search_path=${schema}` } : {};
  const pool = new pg.Pool({ connectionString: databaseUrl, ...searchPath, max, connectionTimeoutMillis: 5_000 });
  if (pooling === 'transaction') transactionPooled.add(pool);
  // An idle connection that breaks (Postgres restarted) is dropped by the pool; unheard, its
  // 'error' would crash the process. The next query opens a new one, and /readyz reports the
  // outage meanwhile.
  pool.on('error', () => undefined);
  // A checked-out connection has no pool listener: one that breaks between two statements (a
  // transaction's connection between statements) emits 'error' on itself, which unheard ends
  // the process. Heard here, it is merely broken: its next statement fails (answered 503, the
  // transaction rolled back) and the pool drops it on release.
  pool.on('connect', (client) => client.on('error', () => undefined));
  // db_pool_connections: how full the pool is (an alert fires when queries wait for a connection).
  open.set(schema, pool);
  const end = pool.end.bind(pool) as (...args: unknown[]) => unknown;
  pool.end = ((...args: unknown[]) => {
    if (open.get(schema) === pool) open.delete(schema);
    return end(...args);
  }) as typeof pool.end;
  return pool;
}
