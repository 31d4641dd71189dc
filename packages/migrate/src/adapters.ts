import { PrismaPg } from '@prisma/adapter-pg';
import { ColumnTypeEnum } from '@prisma/driver-adapter-utils';
import type {
  SqlDriverAdapter,
  SqlResultSet,
  SqlMigrationAwareDriverAdapterFactory,
  SqlQuery,
  Transaction,
} from '@prisma/driver-adapter-utils';
import type pg from 'pg';
import { dropDatabase, quoteIdent, type PgFields } from './connection';
import { createShadowDatabase } from './shadow';

export interface EngineAdaptersOptions {
  /** Postgres schema the main connection works in (search_path and the adapter's schemaName). */
  schema?: string;
  /** Goes into shadow database names, to tell them apart when one is left behind. */
  label: string;
}

type PgAdapter = Awaited<ReturnType<PrismaPg['connect']>>;

const PG_CHAR_OID = 18;
const PG_TEXT_OID = 25;

/**
 * adapter-pg has no mapping for the single-byte `"char"` type (OID 18) and throws
 * "Column type 'char' could not be deserialized". The engine's introspection reads several
 * pg_catalog columns of that type (relkind, contype, ...), so every diff against a live
 * database fails. pg already returns those values as one-letter strings: the column is
 * relabelled as text for the adapter's own mapping, then reported to the engine as a
 * Character column, which is what its describer asks for (a text column there panics it,
 * e.g. as soon as a table has a CHECK constraint).
 */
function readCharColumns(queryable: object): void {
  const q = queryable as unknown as {
    performIO: (query: SqlQuery) => Promise<pg.QueryResult>;
    queryRaw: (query: SqlQuery) => Promise<SqlResultSet>;
  };
  const performIO = q.performIO.bind(queryable);
  const queryRaw = q.queryRaw.bind(queryable);
  /** Keyed by the rows array, which queryRaw passes through: concurrent queries stay apart. */
  const charColumns = new WeakMap<object, number[]>();
  q.performIO = async (query) => {
    const result = await performIO(query);
    const columns: number[] = [];
    result.fields.forEach((field, i) => {
      if (field.dataTypeID !== PG_CHAR_OID) return;
      field.dataTypeID = PG_TEXT_OID;
      columns.push(i);
    });
    if (columns.length > 0) charColumns.set(result.rows, columns);
    return result;
  };
  q.queryRaw = async (query) => {
    const result = await queryRaw(query);
    for (const i of charColumns.get(result.rows) ?? []) result.columnTypes[i] = ColumnTypeEnum.Character;
    return result;
  };
}

/**
 * The adapter factory handed to the schema engine. It exists because adapter-pg alone gets
 * four things wrong for migrations:
 * - its shadow database is dropped by the adapter's own dispose, while its pool is still open,
 *   so the DROP fails; here shadows are dropped `WITH (FORCE)` after every pool is closed;
 * - the engine never disposes the main adapter, so its pool would keep Node alive ~10 s;
 * - it cannot read `"char"` columns (see readCharColumns);
 * - its executeScript splits the script on every `;`, which breaks any migration with a `;`
 *   inside a string or a `$$` body, and commits statement by statement. Sending the script
 *   as one simple query, as the native engine does, keeps it whole and atomic.
 */
export class EngineAdapters implements SqlMigrationAwareDriverAdapterFactory {
  readonly provider = 'postgres' as const;
  readonly adapterName = '@prisma/adapter-pg';
  private readonly adapters: SqlDriverAdapter[] = [];
  private readonly shadows: string[] = [];
  private closed = false;

  constructor(
    private readonly main: PgFields,
    private readonly options: EngineAdaptersOptions,
  ) {}

  async connect(): Promise<SqlDriverAdapter> {
    const { schema } = this.options;
    const config: pg.PoolConfig = { ...this.main, application_name: 'pay-migrate' };
    // Unqualified SQL and the engine's own `_prisma_migrations` both follow search_path.
    if (schema) config.options = `-c search_path=${quoteIdent(schema)}`;
    return this.track(await new PrismaPg(config, schema ? { schema } : undefined).connect());
  }

  async connectToShadowDb(): Promise<SqlDriverAdapter> {
    if (this.closed) throw new Error('adapters already closed');
    const database = await createShadowDatabase(this.main, this.options.label);
    this.shadows.push(database);
    const config: pg.PoolConfig = { ...this.main, database, application_name: 'pay-migrate-shadow' };
    return this.track(await new PrismaPg(config).connect());
  }

  /** Call after the engine is freed: closes every pool, then drops every shadow database. */
  async close(): Promise<void> {
    this.closed = true;
    const errors: unknown[] = [];
    for (const adapter of this.adapters.splice(0)) {
      await adapter.dispose().catch((err: unknown) => errors.push(err));
    }
    for (const database of this.shadows.splice(0)) {
      await dropDatabase(this.main, database).catch((err: unknown) => errors.push(err));
    }
    if (errors.length > 0) throw errors[0];
  }

  private track(adapter: PgAdapter): SqlDriverAdapter {
    const dispose = adapter.dispose.bind(adapter);
    let disposed: Promise<void> | undefined;
    // The engine may dispose a shadow adapter itself; pg.Pool#end throws on a second call.
    adapter.dispose = () => (disposed ??= dispose());
    adapter.executeScript = async (script: string) => {
      try {
        await adapter.underlyingDriver().query(script);
      } catch (err) {
        // Maps pg errors to the DriverAdapterError shape the engine reports from.
        adapter['onError'](err);
      }
    };
    readCharColumns(adapter);
    const startTransaction = adapter.startTransaction.bind(adapter);
    adapter.startTransaction = async (isolationLevel): Promise<Transaction> => {
      const tx = await startTransaction(isolationLevel);
      readCharColumns(tx);
      return tx;
    };
    this.adapters.push(adapter);
    return adapter;
  }
}
