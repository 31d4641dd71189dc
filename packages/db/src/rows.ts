import Decimal from 'decimal.js';
import type { SqlDriverAdapter, SqlDriverAdapterFactory, SqlQueryable, SqlResultSet, Transaction } from '@prisma/driver-adapter-utils';
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';

// How rows read. Every statement runs through Prisma's raw path (`$queryRawUnsafe`), whose
// rows differ from what pg hands over and what the generated table types say (`numeric` and
// `bigint` as text, `bytea` as a Buffer). Two steps make them read like pg's, and so the same
// whether a statement runs on the client, inside a transaction, or as a prepared statement on
// the pool (`preparedStatement`):
//
// 1. `textNumbers` (on the driver adapter, under Prisma): Prisma makes a `numeric` a Decimal,
//    which drops its scale ("10.50" becomes 10.5), and a `bigint` a BigInt. The adapter
//    already holds Postgres' text; reporting those columns as text to Prisma's raw path keeps
//    it. Prisma's model API is untouched: its rows are typed by the schema, not by these
//    column types (db.test.ts reads a Decimal and a BigInt through it).
// 2. `PgRows` (a Kysely plugin on every `$kysely`): what is left (a `bytea` arrives as a
//    Uint8Array, pg gives a Buffer), and any Decimal or BigInt that reaches it anyway.

/** Column types of Postgres' text for numbers that Prisma would turn into Decimal or BigInt. */
const AS_TEXT: Record<number, number> = {
  1: 7, // Int64 -> Text
  4: 7, // Numeric -> Text
  65: 71, // Int64Array -> TextArray
  68: 71, // NumericArray -> TextArray
};

function withTextNumbers(result: SqlResultSet): SqlResultSet {
  if (!result.columnTypes.some((t) => t in AS_TEXT)) return result;
  return { ...result, columnTypes: result.columnTypes.map((t) => (AS_TEXT[t] ?? t) as typeof t) };
}

function queryable<Q extends SqlQueryable>(q: Q): Q {
  const queryRaw = q.queryRaw.bind(q);
  q.queryRaw = async (query) => withTextNumbers(await queryRaw(query));
  return q;
}

/** The driver adapter with `numeric` and `bigint` results reported to Prisma as the text Postgres sent. */
export function textNumbers(factory: SqlDriverAdapterFactory): SqlDriverAdapterFactory {
  return {
    adapterName: factory.adapterName,
    provider: factory.provider,
    async connect(): Promise<SqlDriverAdapter> {
      const adapter = queryable(await factory.connect());
      const startTransaction = adapter.startTransaction.bind(adapter);
      adapter.startTransaction = async (...args): Promise<Transaction> => queryable(await startTransaction(...args));
      return adapter;
    },
  };
}

/** A value as pg would have handed it over. */
function asPg(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return typeof value === 'bigint' ? value.toString() : value;
  if (value instanceof Date || Buffer.isBuffer(value)) return value;
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (Decimal.isDecimal(value)) return (value as Decimal).toFixed();
  if (Array.isArray(value)) return value.map(asPg);
  return value; // json: parsed the same way by both
}

/** Kysely plugin: rows read as pg's (see above). */
export class PgRows implements KyselyPlugin {
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    for (const row of args.result.rows) for (const key of Object.keys(row)) row[key] = asPg(row[key]);
    return args.result;
  }
}
