import Decimal from 'decimal.js';
import {
  CompiledQuery,
  Kysely,
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
  return new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
}

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

export type { Kysely } from 'kysely';
