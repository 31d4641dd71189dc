import Decimal from 'decimal.js';
import {
  CompiledQuery,
  Kysely,
  type Compilable,
  PostgresAdapter,
  PostgresDialect,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
} from 'kysely';
import { PrismaPg } from '@prisma/adapter-pg';
import type pg from 'pg';
import { keepPrismaCompilerOnLiftoff } from './client';

// THE OLD BRIDGE, kept until the services have moved to `createDb` (client.ts) and their
// `$kysely`; delete each piece once nothing imports it.

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
 * The one way hand-written SQL is written: Kysely, typed by the tables generated from the
 * owner's Prisma schema (`prisma-kysely`, at install: see scripts/generate-clients.mjs), so a
 * renamed column or a new enum value fails `pnpm typecheck` where it is used. A statement is
 * still one statement, with no ORM work per row.
 *
 * Over the pool: every statement checks out a connection of the pool the schema's Prisma
 * client also uses (search_path set to the schema), as `pool.query` does.
 */
export function typedSql<DB>(pool: pg.Pool): Kysely<DB> {
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  pools.set(db, pool);
  return db;
}

/** The pool under each builder `typedSql` made: prepared statements run on it by name. */
const pools = new WeakMap<object, pg.Pool>();

const inTransactions = new WeakMap<Sql, Kysely<unknown>>();

/**
 * The same builder inside a transaction someone else opened: a Prisma interactive
 * transaction (the services' `inTransaction`) or `pgSql(pool).$transaction`. Its statements run
 * on that transaction's connection; it never opens, commits or rolls back one itself.
 *
 * Rows read the same as through the pool (what the generated types say): Prisma hands a
 * `numeric` over as a Decimal and a `bigint` as a BigInt, pg as text; both become text here.
 */
export function typedSqlIn<DB>(tx: Sql): Kysely<DB> {
  let db = inTransactions.get(tx);
  if (!db) {
    db = new Kysely<unknown>({ dialect: transactionDialect(tx) });
    inTransactions.set(tx, db);
  }
  return db as Kysely<DB>;
}

/** A Prisma row value as pg would have parsed it. */
function asPg(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (Decimal.isDecimal(value)) return (value as Decimal).toFixed();
  if (Array.isArray(value)) return value.map(asPg);
  return value;
}

function asPgRow(row: Record<string, unknown>): Record<string, unknown> {
  for (const key of Object.keys(row)) row[key] = asPg(row[key]);
  return row;
}

/** Kysely node kinds whose statement answers a row count rather than rows, unless it has RETURNING. */
const WRITES = new Set(['InsertQueryNode', 'UpdateQueryNode', 'DeleteQueryNode', 'MergeQueryNode']);

/**
 * Where the compiler for a caller's transaction puts a value: NUL, which no SQL text can hold,
 * so the compiled text splits into exactly the pieces around its values.
 */
const VALUE = '\u0000';

/** Postgres SQL whose values stand as VALUE, to be handed over as a tagged template's pieces. */
class PiecesCompiler extends PostgresQueryCompiler {
  protected override getCurrentParameterPlaceholder(): string {
    return VALUE;
  }
}

/** A compiled statement as the arguments of a tagged template: its text's pieces, then its values. */
function asTemplate(query: CompiledQuery): [TemplateStringsArray, ...unknown[]] {
  const pieces = query.sql.split(VALUE);
  if (pieces.length !== query.parameters.length + 1) throw new Error('typedSqlIn: a statement must hold each of its values once');
  return [Object.assign([...pieces], { raw: pieces }) as TemplateStringsArray, ...query.parameters];
}

function transactionDialect(tx: Sql): Dialect {
  const connection: DatabaseConnection = {
    async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
      const node = query.query as { kind: string; returning?: unknown };
      if (WRITES.has(node.kind) && !node.returning) {
        const n = await tx.$executeRaw(...asTemplate(query));
        return { rows: [], numAffectedRows: BigInt(n) };
      }
      const rows = await tx.$queryRaw<Record<string, unknown>[]>(...asTemplate(query));
      return { rows: rows.map(asPgRow) as R[], numAffectedRows: WRITES.has(node.kind) ? BigInt(rows.length) : undefined };
    },
    streamQuery(): AsyncIterableIterator<never> {
      throw new Error('typedSqlIn: streaming is not supported inside a transaction');
    },
  };
  const outside = () => {
    throw new Error('typedSqlIn runs inside the caller’s transaction: open transactions with inTransaction, not with this builder');
  };
  const driver: Driver = {
    init: async () => undefined,
    acquireConnection: async () => connection,
    beginTransaction: outside,
    commitTransaction: outside,
    rollbackTransaction: outside,
    releaseConnection: async () => undefined,
    destroy: async () => undefined,
  };
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => driver,
    createQueryCompiler: () => new PiecesCompiler(),
    createIntrospector: (db) => new PostgresIntrospector(db),
  };
}

/**
 * What a package that owns tables (queue, webhooks, @pay/http's idempotency, accounts) needs of the
 * caller's client to run its typed statements there: any service's Prisma client or
 * interactive transaction satisfies it, and so does `pgSql(pool)`, for processes that load no
 * Prisma client at all. `typedSqlIn` hands them what the builder compiled as a tagged
 * template (the text's pieces, then every value as a parameter): the way into a Prisma
 * transaction that takes no SQL text.
 */
export interface Sql {
  $queryRaw<T = unknown>(pieces: TemplateStringsArray, ...values: unknown[]): PromiseLike<T>;
  $executeRaw(pieces: TemplateStringsArray, ...values: unknown[]): PromiseLike<number>;
}

export interface SqlWithTransactions extends Sql {
  $transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
}

/** A tagged template's pieces as pg's text, each value a `$n` parameter. */
const textOf = (pieces: TemplateStringsArray) => pieces.reduce((text, piece, i) => `${text}$${i}${piece}`);

function sqlOn(client: pg.Pool | pg.PoolClient): Sql {
  return {
    $queryRaw: async <T>(pieces: TemplateStringsArray, ...values: unknown[]) => (await client.query(textOf(pieces), values)).rows as T,
    $executeRaw: async (pieces: TemplateStringsArray, ...values: unknown[]) => (await client.query(textOf(pieces), values)).rowCount ?? 0,
  };
}

/**
 * `Sql` on a pg pool made by `pgPool`. The webhook worker runs on it: a Prisma client costs about 70 MB
 * resident (its query compiler) in a process that only ever runs hand-written SQL. Values
 * come back as pg parses them (int as number; bigint and numeric as text), which is what
 * `typedSqlIn` makes Prisma's rows read as too.
 */
export function pgSql(pool: pg.Pool): SqlWithTransactions & { end(): Promise<void> } {
  return {
    ...sqlOn(pool),
    async $transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
      // A client that loses its connection here is heard by the pool's own listener (pgPool)
      // and fails its next statement; the pool drops it on release.
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query('BEGIN');
        const result = await fn(sqlOn(client));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        // A connection that cannot even roll back (Postgres restarted under it) is destroyed,
        // not returned to the pool, or every later transaction would fail on it.
        await client.query('ROLLBACK').catch((e: Error) => (broken = e));
        throw err;
      } finally {
        client.release(broken);
      }
    },
    end: () => pool.end(),
  };
}

/** Where a prepared statement takes a value: stands in for it while the statement is compiled. */
class Slot {
  constructor(readonly name: string) {}
}

/**
 * A hot statement, built and compiled by the typed builder once, then run with new values:
 * building and compiling a statement costs about as much CPU as running it (~0.1-0.3 ms for a
 * create or a get with its joins), which a hot path cannot spend on every request. `build`
 * must give a statement whose shape does not depend on the values (no `$if` on them, no
 * `in` lists): each value of `params` is a placeholder that becomes one parameter.
 */
export function prepared<DB, P extends object, O>(build: (db: Kysely<DB>, params: P) => Compilable<O>) {
  // Compiled once for a pool and once for a caller's transaction: their compilers write values differently.
  let onPool: CompiledQuery<O> | undefined;
  let inTransaction: CompiledQuery<O> | undefined;
  const compile = (db: Kysely<DB>) => build(db, new Proxy({}, { get: (_, name) => new Slot(String(name)) }) as P).compile();
  // On a pool, a named statement: Postgres parses and plans it once per connection, not per call.
  const name = `prepared-${++statements}`;
  return async (db: Kysely<DB>, values: P): Promise<O[]> => {
    const pool = pools.get(db);
    const compiled = pool ? (onPool ??= compile(db)) : (inTransaction ??= compile(db));
    const parameters = compiled.parameters.map((p) => (p instanceof Slot ? (values as Record<string, unknown>)[p.name] : p));
    if (pool) return (await pool.query({ name, text: compiled.sql, values: parameters as unknown[] })).rows as O[];
    return (await db.executeQuery<O>({ ...compiled, parameters })).rows;
  };
}

let statements = 0;
