import pg from 'pg';
import { startPgBouncer, type PgBouncer } from './pgbouncer';

// Debian's pgbouncer (scripts/bootstrap.sh installs it) in transaction pooling in front of this
// worker's test database, one server connection per database entry so that which server
// connection a transaction gets is known.
let bouncer: PgBouncer;
beforeAll(async () => {
  bouncer = await startPgBouncer(process.env.DATABASE_URL!, { poolSize: 2 });
}, 30_000);
afterAll(() => bouncer?.stop());

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

const searchPath = (url: string) => withClient(url, async (c) => (await c.query<{ search_path: string }>('SHOW search_path')).rows[0]!.search_path);

it("gives each service schema's entry that search_path, and the database's own entry none", async () => {
  expect(await searchPath(bouncer.urlFor('crypto'))).toBe('crypto');
  expect(await searchPath(bouncer.urlFor('invoicing'))).toBe('invoicing');
  expect(await searchPath(bouncer.urlFor('webhooks'))).toBe('webhooks');
  expect(await searchPath(bouncer.url)).toBe('"$user", public');
  expect(() => bouncer.urlFor('nope')).toThrow(/no database entry for schema nope/);
  expect(bouncer.envFor('webhook-worker')).toEqual({ DATABASE_URL: bouncer.urlFor('webhooks'), DATABASE_DIRECT_URL: process.env.DATABASE_URL, DATABASE_POOLING: 'transaction' });
});

it('pools transactions: a named statement prepared in one is gone in the next when another client holds its server connection, an unnamed one runs', async () => {
  // Why @pay/db sends statements unnamed behind it (DATABASE_POOLING=transaction).
  const url = bouncer.urlFor('crypto');
  await withClient(url, async (a) => {
    await withClient(url, async (b) => {
      const named = { name: 'pgbouncer-test', text: 'SELECT $1::int AS n', values: [1] };
      expect((await a.query(named)).rows).toEqual([{ n: 1 }]);
      await b.query('BEGIN');
      await b.query('SELECT 1');
      // `a`'s server connection, where its statement was prepared, is b's now: a gets another.
      await expect(a.query(named)).rejects.toThrow(/prepared statement "pgbouncer-test" does not exist/);
      expect((await a.query({ text: 'SELECT $1::int AS n', values: [2] })).rows).toEqual([{ n: 2 }]);
      await b.query('COMMIT');
    });
  });
});

it('refuses the search_path as a startup option, which is why the entries set it', async () => {
  await expect(withClient(`${bouncer.urlFor('crypto')}?options=-c%20search_path%3Dinvoicing`, async () => undefined)).rejects.toThrow(/unsupported startup parameter: options/);
});

it('restarts on the same port: connections are cut, new ones work', async () => {
  const c = new pg.Client({ connectionString: bouncer.urlFor('crypto') });
  c.on('error', () => undefined);
  await c.connect();
  await bouncer.restart(100);
  await expect(c.query('SELECT 1')).rejects.toThrow();
  await c.end().catch(() => undefined);
  expect(await searchPath(bouncer.urlFor('crypto'))).toBe('crypto');
  expect(bouncer.logs()).toMatch(/process up: PgBouncer/);
}, 30_000);
