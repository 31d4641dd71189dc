import { Redis } from 'ioredis';
import pg from 'pg';

/**
 * Where a process starts with no work waiting: a freshly migrated database of its own on the
 * shared server, and this jest worker's Redis db emptied. A process started on the worker's
 * usual database would rightly pick up what earlier test files left there (a batch whose
 * e-mails were never sent is queued again at start, by design), and then load what sending
 * needs: a test of what an idle process loads must start it idle.
 */
export async function idleStackEnv(name: string): Promise<{ DATABASE_URL: string; REDIS_URL: string }> {
  const workerDb = new URL(process.env.DATABASE_URL!);
  const database = `${workerDb.pathname.slice(1)}_idle_${name.replace(/\W/g, '_')}`;
  const admin = new pg.Client({ connectionString: Object.assign(new URL(workerDb), { pathname: '/postgres' }).toString() });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${database}"`);
  } finally {
    await admin.end();
  }
  const url = Object.assign(new URL(workerDb), { pathname: `/${database}` }).toString();
  const { deploy } = await import('@pay/migrate');
  await deploy({ databaseUrl: url, quiet: true });
  // Files of one jest worker run one after another, so its Redis db is this file's alone.
  const redis = new Redis(process.env.REDIS_URL!, { lazyConnect: true });
  try {
    await redis.connect();
    await redis.flushdb();
  } finally {
    redis.disconnect();
  }
  return { DATABASE_URL: url, REDIS_URL: process.env.REDIS_URL! };
}
