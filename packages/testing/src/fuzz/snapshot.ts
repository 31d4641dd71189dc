import pg from 'pg';

/**
 * Tells whether anything was written to a database between two calls: per table, its row
 * count and the newest row version (max xmin: an insert or update makes a newer one, a delete
 * lowers the count). Cheap enough to take around every fuzz case on a test database.
 * Bookkeeping columns that every authenticated request may touch (an API key's last use,
 * `last_used_at`) are named in `ignoreColumns`, by column, so this knows no owner's tables:
 * a table with such a column is compared by content without it instead.
 */
export class WriteSnapshot {
  private query: string | null = null;
  private readonly pool: pg.Pool;

  constructor(
    databaseUrl: string,
    private readonly schemas: string[],
    private readonly ignoreColumns: string[] = ['last_used_at'],
  ) {
    this.pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  }

  async take(): Promise<string> {
    if (!this.query) {
      const { rows } = await this.pool.query<{ t: string; skip: string[] | null }>(
        `SELECT format('%I.%I', t.schemaname, t.tablename) AS t,
                (SELECT array_agg(c.column_name::text ORDER BY c.column_name) FROM information_schema.columns c
                  WHERE c.table_schema = t.schemaname AND c.table_name = t.tablename AND c.column_name = ANY($2)) AS skip
           FROM pg_tables t WHERE t.schemaname = ANY($1) AND t.tablename <> '_prisma_migrations' ORDER BY 1`,
        [this.schemas, this.ignoreColumns],
      );
      if (rows.length === 0) throw new Error(`no tables in schemas ${this.schemas.join(', ')}`);
      const skipOf = new Map(rows.map((r) => [r.t, r.skip]));
      const state = (t: string) => {
        const skip = skipOf.get(t);
        if (!skip) return `(SELECT count(*) || ':' || coalesce(max(xmin::text::bigint), 0) FROM ${t})`;
        const columns = skip.map((c) => `'${c.replace(/'/g, "''")}'`).join(', ');
        return `(SELECT count(*) || ':' || coalesce(md5(string_agg((to_jsonb(x) - ARRAY[${columns}]::text[])::text, ',' ORDER BY x.id)), '') FROM ${t} x)`;
      };
      this.query = `SELECT ${rows.map((r) => `${state(r.t)} AS "${r.t}"`).join(', ')}`;
    }
    const { rows } = await this.pool.query(this.query);
    return JSON.stringify(rows[0]);
  }

  /** The tables whose count or newest version differ between two snapshots. */
  static changed(before: string, after: string): string[] {
    const a = JSON.parse(before) as Record<string, string>;
    const b = JSON.parse(after) as Record<string, string>;
    return Object.keys(b).filter((t) => a[t] !== b[t]);
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
