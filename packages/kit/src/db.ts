import { setFlagsFromString } from 'node:v8';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { watchDatabasePool } from './metrics';

/**
 * A pg pool confined to one Postgres schema (search_path), shared by the schema's Prisma
 * client and by hot paths that query it directly: a plain parameterised query through `pg`
 * costs a fraction of the CPU of the same query through Prisma's runtime.
 */
export function pgPool(databaseUrl: string, schema: string, max = 10): pg.Pool {
  // A request never waits more than 5 s for a connection: an unreachable database, or a pool
  // exhausted for that long, fails the query (answered 503) instead of hanging it.
  const pool = new pg.Pool({ connectionString: databaseUrl, options: `-c search_path=${schema}`, max, connectionTimeoutMillis: 5_000 });
  // An idle connection that breaks (Postgres restarted) is dropped by the pool; unheard, its
  // 'error' would crash the process. The next query opens a new one, and /readyz reports the
  // outage meanwhile.
  pool.on('error', () => undefined);
  // A checked-out connection has no pool listener: one that breaks between two statements (a
  // builder's connection before its query starts, a transaction between statements) emits
  // 'error' on itself, which unheard ends the process. Heard here, it is merely broken: its
  // next statement fails (answered 503, the transaction rolled back) and the pool drops it on release.
  pool.on('connect', (client) => client.on('error', () => undefined));
  // db_pool_connections: how full the pool is (an alert fires when queries wait for a connection).
  const unwatch = watchDatabasePool(schema, pool);
  const end = pool.end.bind(pool) as (...args: unknown[]) => unknown;
  pool.end = ((...args: unknown[]) => {
    unwatch();
    return end(...args);
  }) as typeof pool.end;
  return pool;
}

/**
 * How a process's DATABASE_POOL_MAX connections are split between its pools: each of the
 * `minor` pools (the accounts and webhooks schemas, used for key lookups and event writes) gets a
 * quarter, at least one; the service's own schema gets the rest. The sizes add up to `total`, so
 * pods x DATABASE_POOL_MAX is what a deployment can open against Postgres' max_connections.
 */
export function databasePools(total: number, minor: number): { main: number; minor: number } {
  const small = Math.max(1, Math.floor(total / 4));
  const main = total - minor * small;
  if (main < 1) throw new Error(`DATABASE_POOL_MAX ${total} is too small for ${minor + 1} pools: set it to ${minor * small + 1} or more`);
  return { main, minor: small };
}

/**
 * Driver adapter for a Prisma client confined to one Postgres schema. The `schema` option
 * qualifies Prisma's own queries; the pool's search_path makes the typed builder's statements land in the same
 * schema. The client's `$disconnect` ends the pool once the client has connected; close a
 * client whose pool also serves the typed builder with `disconnectWithPool`.
 */
export function pgAdapter(pool: pg.Pool, schema: string): PrismaPg {
  keepPrismaCompilerOnLiftoff();
  return new PrismaPg(pool, { schema, disposeExternalPool: true });
}

/**
 * Ends a Prisma client and the pool under it. The adapter disposes of the pool only when the
 * client itself ever connected: a process that ran nothing but the typed builder on the pool (the hot
 * paths) would keep its idle connections open after `$disconnect`, and with them its event loop.
 */
export async function disconnectWithPool(client: { $disconnect(): Promise<void> }, pool: pg.Pool): Promise<void> {
  await client.$disconnect();
  if (!pool.ended) await pool.end();
}

/**
 * How long an interactive transaction (Prisma's `$transaction(fn, options)`) may wait for a
 * pooled connection, and run. Concurrent changes of one row queue on its lock while holding a
 * connection, and background passes share the pool with request bursts; at Prisma's defaults
 * (2 s, 5 s) a busy pool failed the outbox relay's pass (found by e2e/stack-doubled.test.ts
 * under load). Every state change of every service waits this long: a burst slows work down,
 * it does not fail it.
 */
export const TRANSACTION_OPTIONS = { maxWait: 15_000, timeout: 20_000 } as const;

/**
 * V8 budget (roughly bytes executed) before a WebAssembly function is recompiled by TurboFan;
 * V8's default is 1,800,000.
 */
export const WASM_TIERING_BUDGET = 50_000_000;

/**
 * Prisma 7 plans queries with a WebAssembly query compiler. With V8's default budget its hot
 * functions are recompiled by TurboFan during the first few query shapes, and that compile
 * leaves about 50 MB of malloc arenas resident for the life of the process (the invoicing
 * process idle: 200 MB with the default, 150 MB with this budget, the same as with
 * `--liftoff-only`). Plans are cached per query shape, so the compiler runs rarely and its
 * baseline (Liftoff) code is fast enough. The setting is process-wide: WebAssembly that is
 * really hot (OCR, the face model) still reaches TurboFan within its first milliseconds.
 * Set before the first client exists, since a function's budget is fixed when it is compiled.
 */
function keepPrismaCompilerOnLiftoff(): void {
  setFlagsFromString(`--wasm-tiering-budget=${WASM_TIERING_BUDGET}`);
}

/** What the pg driver adapter says about a failed query, when Prisma passes it on. */
interface DriverCause {
  kind?: string;
  /** Postgres SQLSTATE, e.g. 23505. */
  originalCode?: string;
  constraint?: { index?: string };
}

/** A query on the pg pool directly (hot paths) fails with pg's own error: SQLSTATE in `code`. */
interface PgError {
  code?: string;
  constraint?: string;
  severity?: string;
}

function failure(err: unknown): { code?: string; cause?: DriverCause } {
  const e = err as ({ code?: string; meta?: { driverAdapterError?: { cause?: DriverCause } } } & PgError) | null;
  if (e?.severity !== undefined && typeof e.code === 'string') {
    // pg's DatabaseError: read it as the adapter would have reported it.
    return { code: 'P2010', cause: { originalCode: e.code, constraint: e.constraint ? { index: e.constraint } : undefined } };
  }
  return { code: e?.code, cause: e?.meta?.driverAdapterError?.cause };
}

/** Socket-level failures of the pg driver (no server answer at all). */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const DRIVER_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection terminated unexpectedly)/;

/**
 * Whether a Prisma call or a pg pool query failed on a unique index: P2002 from typed writes,
 * Postgres's 23505 surfacing as P2010 from raw queries, or pg's own 23505. `index` narrows it to one index, so a retry meant for
 * one collision never swallows another.
 */
export function isUniqueViolation(err: unknown, index?: string): boolean {
  const { code, cause } = failure(err);
  const unique = code === 'P2002' || (code === 'P2010' && cause?.originalCode === '23505');
  return unique && (index === undefined || cause?.constraint?.index === index);
}

/** Driver-adapter error kinds that mean "the database cannot serve now", not "this request is wrong". */
const UNAVAILABLE_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
  'DatabaseDoesNotExist',
  'DatabaseAccessDenied',
  'AuthenticationFailed',
  'TlsConnectionError',
]);
/** Prisma's own codes for the same: unreachable, timed out, connection closed, pool exhausted. */
const UNAVAILABLE_CODES = new Set(['P1001', 'P1002', 'P1017', 'P2024']);

/**
 * Whether a Prisma call or a pg pool query failed because the database is unreachable or refusing connections
 * (including Postgres shutting down, 57P0x, or out of connections, 53300). Such a failure is
 * answered 503 with Retry-After: the request was fine and can be sent again.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const raw = err as { code?: unknown; message?: unknown } | null;
  if (typeof raw?.code === 'string' && NETWORK_CODES.has(raw.code)) return true;
  if (typeof raw?.message === 'string' && DRIVER_MESSAGES.test(raw.message)) return true;
  const { code, cause } = failure(err);
  if (code && UNAVAILABLE_CODES.has(code)) return true;
  if (cause?.kind && UNAVAILABLE_KINDS.has(cause.kind)) return true;
  const sqlState = cause?.originalCode ?? '';
  return sqlState.startsWith('57P') || sqlState === '53300';
}
