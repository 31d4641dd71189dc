import pg from 'pg';
import { isDatabaseUnavailable, isUniqueViolation } from './db';

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
