import pg from 'pg';
import { isDatabaseUnavailable, isUniqueViolation } from './errors';
import { pgPool } from './pool';

/** Hot paths query the pg pool directly; its errors must be read like Prisma's. */
describe('pg pool errors', () => {
  it('an unreachable server is "unavailable" (answered 503), not a bug', async () => {
    const pool = new pg.Pool({ connectionString: 'postgresql://root@127.0.0.1:1/payments', connectionTimeoutMillis: 2000 });
    const err = await pool.query('SELECT 1').catch((e: unknown) => e);
    await pool.end();
    expect(isDatabaseUnavailable(err)).toBe(true);
    expect(isUniqueViolation(err)).toBe(false);
  });

  it('a unique violation is recognised, by index name when asked', async () => {
    const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
    const client = await pool.connect();
    try {
      await client.query('CREATE TEMP TABLE t (id int CONSTRAINT t_id_key UNIQUE)');
      await client.query('INSERT INTO t VALUES (1)');
      const err = await client.query('INSERT INTO t VALUES (1)').catch((e: unknown) => e);
      expect(isUniqueViolation(err)).toBe(true);
      expect(isUniqueViolation(err, 't_id_key')).toBe(true);
      expect(isUniqueViolation(err, 'other_key')).toBe(false);
      expect(isDatabaseUnavailable(err)).toBe(false);
      const bad = await client.query('SELECT 1/0').catch((e: unknown) => e);
      expect(isUniqueViolation(bad)).toBe(false);
      expect(isDatabaseUnavailable(bad)).toBe(false);
    } finally {
      client.release();
      await pool.end();
    }
  });
});

describe('pgPool', () => {
  it('outlives a checked-out connection that Postgres ends between statements, and drops it', async () => {
    const pool = pgPool(process.env.DATABASE_URL!, 'public', 2);
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    try {
      const client = await pool.connect();
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      // Waits on its end, not its 'error': a listener of the test's own would hear what the pool must.
      const ended = new Promise((resolve) => client.once('end', resolve));
      // What a Postgres restart sends every connection: FATAL 57P01, here with no statement running.
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      await ended; // and the process (this jest worker) is still here
      await expect(client.query('SELECT 1')).rejects.toThrow();
      client.release();
      expect(pool.totalCount).toBe(0); // dropped, not handed to the next caller
      expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await admin.end();
      await pool.end();
    }
  });
});


describe('pgPool size', () => {
  it('a pool of n opens at most n connections to Postgres, however many queries wait', async () => {
    const pool = pgPool(process.env.DATABASE_URL!, 'public', 3);
    const tag = `pool-max-${process.pid}-${Date.now()}`;
    try {
      await pool.query(`SET application_name = '${tag}'`);
      const counts: number[] = [];
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          const c = await pool.connect();
          try {
            await c.query(`SET application_name = '${tag}'`);
            const { rows } = await c.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1`, [tag]);
            counts.push(rows[0].n);
            await c.query('SELECT pg_sleep(0.05)');
          } finally {
            c.release();
          }
        }),
      );
      expect(counts).toHaveLength(8);
      expect(Math.max(...counts)).toBeLessThanOrEqual(3);
    } finally {
      await pool.end();
    }
  });
});
