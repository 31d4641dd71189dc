import { setFlagsFromString } from 'node:v8';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import {
  DeleteQueryNode,
  InsertQueryNode,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
  UpdateQueryNode,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryExecutorProvider,
  type QueryResult,
} from 'kysely';
import kyselyExtension from 'prisma-extension-kysely';
import type pg from 'pg';
import { pgPool, type DatabasePooling } from './pool';
import { PgRows, textNumbers } from './rows';

/**
 * How long a transaction (`db.$transaction`) may wait for a pooled connection, and run.
 * Concurrent changes of one row queue on its lock while holding a connection, and background
 * passes share the pool with request bursts; at Prisma's defaults (2 s, 5 s) a busy pool
 * failed the outbox relay's pass (found by e2e/stack-doubled.test.ts under load). Every state
 * change of every service waits this long: a burst slows work down, it does not fail it.
 * `createDb` makes them the client's defaults.
 */
export const TRANSACTION_OPTIONS = { maxWait: 15_000, timeout: 20_000 } as const;

export interface DbOptions {
  /** DATABASE_URL */
  url: string;
  /** The owner's Postgres schema: Prisma's queries are qualified with it, and it is the pool's search_path. */
  schema: string;
  /** The process's connections (DATABASE_POOL_MAX): this is its one pool. */
  poolSize: number;
  /** DATABASE_POOLING: `transaction` behind PgBouncer in transaction pooling (pool.ts). */
  pooling?: DatabasePooling;
}

/** What `createDb` needs of a generated Prisma client class. */
export type PrismaClientClass<C> = new (options: { adapter: SqlDriverAdapterFactory; transactionOptions: { maxWait: number; timeout: number } }) => C;

/** Members of the client a transaction does not have. */
type NotInTransaction = '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends' | '$close';

/** Inside `db.$transaction`: the client's model API and `$kysely`, both on the transaction's connection. */
export type Tx<C, DB> = Omit<C, NotInTransaction> & { readonly $kysely: Kysely<DB> };

/**
 * A process's data access: its Prisma client on its one pool, with `$kysely`, the typed
 * builder over the owner's tables (prisma-kysely), and `$transaction(async (tx) => …)`, the
 * one way to open a transaction, in which `tx.$kysely` runs on the transaction's connection.
 */
export type Db<C, DB> = Omit<C, '$transaction' | '$extends'> & {
  readonly $kysely: Kysely<DB>;
  $transaction<T>(fn: (tx: Tx<C, DB>) => Promise<T>, options?: { maxWait?: number; timeout?: number }): Promise<T>;
  /** Ends the client and its pool (also when the client itself never connected). */
  $close(): Promise<void>;
};

/**
 * What a package that owns tables in its own Postgres schema (queue, webhooks, accounts, @pay/http's
 * idempotency) takes of its caller: the caller's client or transaction, of which it uses only
 * `$kysely`, so its statements run on the caller's connection (inside the caller's
 * transaction when it passes `tx`). The package names its tables with its schema
 * (`tablesOf`); it has no Prisma client of its own at run time.
 */
export interface Queries {
  readonly $kysely: Kysely<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** The caller's client, for a package that opens a transaction itself (the outbox relay, the webhook worker's dispatch). */
export interface Transactions extends Queries {
  $transaction<T>(fn: (tx: Queries) => Promise<T>): Promise<T>;
}

/** The pool under each client's `$kysely`: `preparedStatement` runs there. */
const poolOf = new WeakMap<object, pg.Pool>();

/** The schema each client's `$kysely` works in (its search_path): `postgresReady` checks it. */
const schemaOf = new WeakMap<object, string>();

/** The pool under a client's `$kysely` (outside a transaction), or undefined for a transaction's. */
export function poolUnder(kysely: object): pg.Pool | undefined {
  return poolOf.get(kysely);
}

/** Marks a builder derived from a client's `$kysely` (`tablesOf`) as running on its pool. */
export function underPool(kysely: object, pool: pg.Pool): void {
  poolOf.set(kysely, pool);
}

const dialect = (driver: Driver) => ({
  createAdapter: () => new PostgresAdapter(),
  createDriver: () => driver,
  createIntrospector: (db: Kysely<unknown>) => new PostgresIntrospector(db),
  createQueryCompiler: () => new PostgresQueryCompiler(),
});

const pgRows = new PgRows();

/**
 * One pg pool (kit's former `pgPool`: search_path, 5 s connect timeout, error listeners, the
 * db_pool_connections metric) and one Prisma client on it, extended with
 * prisma-extension-kysely. Each process makes exactly one, with its own generated client:
 * `createDb<PrismaClient, DB>(PrismaClient, { url, schema, poolSize })`.
 */
export function createDb<C extends object, DB>(Client: PrismaClientClass<C>, options: DbOptions): Db<C, DB> {
  keepPrismaCompilerOnLiftoff();
  const pool = pgPool(options.url, options.schema, options.poolSize, options.pooling);
  const adapter = textNumbers(new PrismaPg(pool, { schema: options.schema, disposeExternalPool: true }));
  const client = new Client({ adapter, transactionOptions: { ...TRANSACTION_OPTIONS } }) as C & {
    $disconnect(): Promise<void>;
    $extends(ext: unknown): unknown;
  };
  const close = async () => {
    await client.$disconnect();
    // The adapter ends the pool only when the client itself connected.
    if (!pool.ended) await pool.end();
  };
  const withClose = client.$extends({ client: { $close: close } }) as { $extends(ext: unknown): unknown; $transaction(fn: (tx: object) => Promise<unknown>, options?: object): Promise<unknown> };
  const extended = withClose.$extends(kyselyExtension({ kysely: (driver) => new Kysely<DB>({ dialect: dialect(driver), plugins: [pgRows] }) })) as Db<C, DB>;
  // The extension's own `$transaction` sets `tx.$kysely` on an object that concurrent
  // transactions share (seen: two transactions at once both got the later one's builder, so
  // statements ran in the other transaction, or in one already committed). Each transaction
  // gets its own builder here instead, on a view of its own transaction client.
  const transaction = (fn: (tx: Tx<C, DB>) => Promise<unknown>, options?: object) =>
    withClose.$transaction((tx) => {
      const kysely = new Kysely<DB>({ dialect: dialect(new TransactionDriver(tx as TransactionClient)), plugins: [pgRows] });
      return fn(new Proxy(tx, { get: (target, key) => (key === '$kysely' ? kysely : Reflect.get(target, key)) }) as Tx<C, DB>);
    }, options);
  const db = new Proxy(extended, { get: (target, key, receiver) => (key === '$transaction' ? transaction : Reflect.get(target, key, receiver)) }) as Db<C, DB>;
  poolOf.set(db.$kysely, pool);
  schemaOf.set(db.$kysely, options.schema);
  return db;
}

/** What a transaction client runs raw SQL with. */
interface TransactionClient {
  $queryRawUnsafe<T>(sql: string, ...values: unknown[]): Promise<T>;
  $executeRawUnsafe(sql: string, ...values: unknown[]): Promise<number>;
}

/** Kysely's driver for one Prisma interactive transaction: as prisma-extension-kysely's, on `tx`. */
class TransactionDriver implements Driver {
  constructor(private readonly tx: TransactionClient) {}
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    const tx = this.tx;
    return {
      async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
        const node = query.query;
        const writes = DeleteQueryNode.is(node) || UpdateQueryNode.is(node) || InsertQueryNode.is(node);
        if (writes && !node.returning) return { rows: [], numAffectedRows: BigInt(await tx.$executeRawUnsafe(query.sql, ...query.parameters)) };
        return { rows: await tx.$queryRawUnsafe<R[]>(query.sql, ...query.parameters) };
      },
      streamQuery(): AsyncIterableIterator<never> {
        throw new Error('streaming is not supported');
      },
    };
  }
  beginTransaction(): Promise<void> {
    throw new Error('tx.$kysely runs inside db.$transaction: it opens no transaction of its own');
  }
  commitTransaction(): Promise<void> {
    throw new Error('tx.$kysely runs inside db.$transaction: it opens no transaction of its own');
  }
  rollbackTransaction(): Promise<void> {
    throw new Error('tx.$kysely runs inside db.$transaction: it opens no transaction of its own');
  }
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {}
}

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
export function keepPrismaCompilerOnLiftoff(): void {
  setFlagsFromString(`--wasm-tiering-budget=${WASM_TIERING_BUDGET}`);
}

/**
 * The readiness probe's question to Postgres: a statement with no table, through the
 * process's client like every other one (`postgresReady(db.$kysely)`). For a client of
 * `createDb` it also checks that the connection works in the client's schema: behind PgBouncer
 * (DATABASE_POOLING=transaction) the search_path is set by PgBouncer's database entry, and one
 * that sets none would have the service's unqualified tables, functions and types missing.
 */
export async function postgresReady(db: QueryExecutorProvider): Promise<void> {
  const { rows } = await sql<{ schema: string | null }>`SELECT current_schema() AS schema`.execute(db);
  const expected = schemaOf.get(db);
  const schema = rows[0]?.schema ?? null;
  if (expected && schema !== expected) {
    throw new Error(
      `the database connection works in schema ${schema ?? '(none)'}, not ${expected}: behind PgBouncer (DATABASE_POOLING=transaction) give this service a database entry with connect_query='SET search_path TO ${expected}' and point DATABASE_URL at it`,
    );
  }
}
