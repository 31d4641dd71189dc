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
import type pg from 'pg';
import type { Sql } from './db';

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

function transactionDialect(tx: Sql): Dialect {
  const connection: DatabaseConnection = {
    async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
      const node = query.query as { kind: string; returning?: unknown };
      if (WRITES.has(node.kind) && !node.returning) {
        const n = await tx.$executeRawUnsafe(query.sql, ...query.parameters);
        return { rows: [], numAffectedRows: BigInt(n) };
      }
      const rows = await tx.$queryRawUnsafe<Record<string, unknown>[]>(query.sql, ...query.parameters);
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
    createQueryCompiler: () => new PostgresQueryCompiler(),
    createIntrospector: (db) => new PostgresIntrospector(db),
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
  let compiled: CompiledQuery<O> | undefined;
  // On a pool, a named statement: Postgres parses and plans it once per connection, not per call.
  const name = `prepared-${++statements}`;
  return async (db: Kysely<DB>, values: P): Promise<O[]> => {
    compiled ??= build(db, new Proxy({}, { get: (_, name) => new Slot(String(name)) }) as P).compile();
    const parameters = compiled.parameters.map((p) => (p instanceof Slot ? (values as Record<string, unknown>)[p.name] : p));
    const pool = pools.get(db);
    if (pool) return (await pool.query({ name, text: compiled.sql, values: parameters as unknown[] })).rows as O[];
    return (await db.executeQuery<O>({ ...compiled, parameters })).rows;
  };
}

let statements = 0;

export type { Kysely } from 'kysely';
