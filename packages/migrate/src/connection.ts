import pg from 'pg';

export const DEFAULT_DATABASE_URL = 'postgresql://root@127.0.0.1:5432/payments';

// Where CREATE/DROP DATABASE run from; it always exists on a stock server.
const MAINTENANCE_DATABASE = 'postgres';

/**
 * Connection settings as separate fields. adapter-pg derives the shadow database by spreading
 * its config with a new `database`; a `connectionString` would win over that field and point
 * the "shadow" at the main database, so nothing here ever hands a URL to pg.
 */
export interface PgFields {
  host: string;
  port: number;
  user: string;
  password?: string;
  database: string;
}

export function parseDatabaseUrl(url: string): PgFields {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`DATABASE_URL is not a URL: ${redact(url)}`);
  }
  if (u.protocol !== 'postgresql:' && u.protocol !== 'postgres:') {
    throw new Error(`DATABASE_URL must be postgresql://..., got ${u.protocol}`);
  }
  const database = decodeURIComponent(u.pathname.replace(/^\//, ''));
  if (!database) throw new Error(`DATABASE_URL names no database: ${redact(url)}`);
  const fields: PgFields = {
    // libpq allows ?host=/var/run/postgresql for a socket; honour it like psql does.
    host: u.searchParams.get('host') ?? (decodeURIComponent(u.hostname) || '127.0.0.1'),
    port: u.port ? Number(u.port) : 5432,
    user: decodeURIComponent(u.username) || process.env.PGUSER || 'postgres',
    database,
  };
  if (u.password) fields.password = decodeURIComponent(u.password);
  return fields;
}

export function redact(url: string): string {
  return url.replace(/(\/\/[^:/@]+):[^@]*@/, '$1:***@');
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export async function withClient<T>(fields: PgFields, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ ...fields, application_name: 'pay-migrate' });
  // Without a listener a server-side disconnect would crash the process instead of failing fn.
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export function maintenanceFields(fields: PgFields): PgFields {
  return { ...fields, database: MAINTENANCE_DATABASE };
}

function pgCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined;
}

/** Creates the database unless it exists; a concurrent creator winning the race is fine. */
export async function ensureDatabase(fields: PgFields): Promise<boolean> {
  return withClient(maintenanceFields(fields), async (client) => {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [fields.database]);
    if (found.rowCount) return false;
    try {
      await client.query(`CREATE DATABASE ${quoteIdent(fields.database)}`);
      return true;
    } catch (err) {
      // 42P04 duplicate_database; 23505 when two CREATEs race on pg_database's unique index.
      if (pgCode(err) === '42P04' || pgCode(err) === '23505') return false;
      throw err;
    }
  });
}

export async function dropDatabase(fields: PgFields, database: string): Promise<void> {
  await withClient(maintenanceFields(fields), async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(database)} WITH (FORCE)`);
  });
}
