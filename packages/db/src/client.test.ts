import pg from 'pg';
import { sql } from 'kysely';
import { createDb, isDatabaseUnavailable, isUniqueViolation, openPools, preparedStatement, tablesOf, type Queries } from './index';
import { PrismaClient } from './generated/test-client/client';
import type { DB } from './generated/test-kysely/tables';

// A throwaway schema of this run, with the table of test/schema.prisma.
const SCHEMA = `db_test_${process.pid}`;
const url = process.env.DATABASE_URL!;
const admin = new pg.Pool({ connectionString: url, max: 1 });
const db = createDb<PrismaClient, DB>(PrismaClient, { url, schema: SCHEMA, poolSize: 3 });

beforeAll(async () => {
  await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE; CREATE SCHEMA ${SCHEMA}`);
  await admin.query(`CREATE TABLE ${SCHEMA}.samples (
    id bigserial PRIMARY KEY, amount numeric(20,6) NOT NULL, label text NOT NULL, tags text[] NOT NULL,
    body jsonb NOT NULL, at timestamptz(3) NOT NULL, day date NOT NULL, bytes bytea, big bigint)`);
});
beforeEach(() => admin.query(`TRUNCATE ${SCHEMA}.samples`));
afterAll(async () => {
  await db.$close();
  await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await admin.end();
});

const sample = {
  amount: '10.50',
  label: 'a',
  tags: ['x', 'y'],
  body: JSON.stringify({ a: [1, { b: 'c' }], n: 1.5 }),
  at: new Date('2026-01-02T03:04:05.678Z'),
  day: '2024-02-29',
  bytes: Buffer.from([0, 1, 255]),
  big: '12345678901234567',
};

/** What pg itself hands over for the same row: what the generated types say, and what every path must give. */
async function pgRow(id: string) {
  const { rows } = await admin.query(`SELECT * FROM ${SCHEMA}.samples WHERE id = $1`, [id]);
  return rows[0];
}

describe('db.$kysely and tx.$kysely read rows as pg does', () => {
  it('numeric with its scale, bigint as text, json, dates, arrays, bytes', async () => {
    const { id } = await db.$kysely.insertInto('samples').values(sample).returning('id').executeTakeFirstOrThrow();
    expect(typeof id).toBe('string'); // bigserial: text, as pg gives it
    const expected = await pgRow(id);
    expect(expected).toMatchObject({ amount: '10.500000', big: '12345678901234567', tags: ['x', 'y'], body: { a: [1, { b: 'c' }], n: 1.5 } });
    expect(Buffer.isBuffer(expected.bytes)).toBe(true);
    const outside = await db.$kysely.selectFrom('samples').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const inside = await db.$transaction((tx) => tx.$kysely.selectFrom('samples').selectAll().where('id', '=', id).executeTakeFirstOrThrow());
    expect(outside).toEqual(expected);
    expect(inside).toEqual(expected);
    expect(Buffer.isBuffer(outside.bytes)).toBe(true);
    expect(outside.at).toEqual(sample.at);
  });

  it('keeps the scale of computed numerics and of numbers past 2^53', async () => {
    const row = await sql<{ n: string; z: string; neg: string; b: string; arr: string[] }>`
      SELECT 10.50::numeric AS n, 0.000::numeric AS z, -1.10::numeric(10,2) AS neg, 9007199254740993::bigint AS b, ARRAY[1::bigint, 2::bigint] AS arr`.execute(db.$kysely);
    expect(row.rows[0]).toEqual({ n: '10.50', z: '0.000', neg: '-1.10', b: '9007199254740993', arr: ['1', '2'] });
    const inTx = await db.$transaction((tx) => sql<{ n: string }>`SELECT 10.50::numeric AS n`.execute(tx.$kysely));
    expect(inTx.rows[0]).toEqual({ n: '10.50' });
  });

  it("leaves Prisma's model API its own types (Decimal, BigInt)", async () => {
    await db.$kysely.insertInto('samples').values(sample).execute();
    const viaModel = await db.sample.findFirstOrThrow();
    expect(viaModel.amount.toFixed(2)).toBe('10.50');
    expect(typeof viaModel.id).toBe('bigint');
    expect(viaModel.big).toBe(12345678901234567n);
    const sum = await db.sample.aggregate({ _sum: { amount: true } });
    expect(sum._sum.amount?.toString()).toBe('10.5');
    const inTx = await db.$transaction((tx) => tx.sample.findFirstOrThrow());
    expect(inTx.amount.toString()).toBe('10.5');
  });

  it('a write without RETURNING counts its rows', async () => {
    await db.$kysely.insertInto('samples').values([sample, { ...sample, label: 'b' }]).execute();
    const res = await db.$kysely.updateTable('samples').set({ label: 'c' }).executeTakeFirst();
    expect(res.numUpdatedRows).toBe(2n);
    const del = await db.$transaction((tx) => tx.$kysely.deleteFrom('samples').where('label', '=', 'c').executeTakeFirst());
    expect(del.numDeletedRows).toBe(2n);
  });
});

describe('db.$transaction', () => {
  it("runs tx.$kysely on the transaction's connection, and rolls back when the function throws", async () => {
    const failed = db.$transaction(async (tx) => {
      await tx.$kysely.insertInto('samples').values(sample).execute();
      // Its own write is visible inside; the client outside (another connection) does not see it.
      expect(await tx.$kysely.selectFrom('samples').select('id').execute()).toHaveLength(1);
      expect(await db.$kysely.selectFrom('samples').select('id').execute()).toHaveLength(0);
      throw new Error('no');
    });
    await expect(failed).rejects.toThrow('no');
    expect(await db.$kysely.selectFrom('samples').select('id').execute()).toHaveLength(0);
  });

  it('mixes the model API and tx.$kysely in one transaction', async () => {
    await db.$transaction(async (tx) => {
      const { id } = await tx.$kysely.insertInto('samples').values(sample).returning('id').executeTakeFirstOrThrow();
      await tx.sample.update({ where: { id: BigInt(id) }, data: { label: 'model' } });
    });
    expect(await db.$kysely.selectFrom('samples').select('label').execute()).toEqual([{ label: 'model' }]);
  });
});

describe('errors through $kysely', () => {
  it('a unique violation is recognised, by index name', async () => {
    const { id } = await db.$kysely.insertInto('samples').values(sample).returning('id').executeTakeFirstOrThrow();
    const err = await db.$kysely
      .insertInto('samples')
      .values({ ...sample, id })
      .execute()
      .catch((e: unknown) => e);
    expect(isUniqueViolation(err)).toBe(true);
    expect(isUniqueViolation(err, 'samples_pkey')).toBe(true);
    expect(isUniqueViolation(err, 'other')).toBe(false);
    expect(isDatabaseUnavailable(err)).toBe(false);
  });

  it('an unreachable server is "unavailable", and $close ends the pool', async () => {
    const away = createDb<PrismaClient, DB>(PrismaClient, { url: 'postgresql://root@127.0.0.1:1/payments', schema: 'away', poolSize: 1 });
    expect(openPools().has('away')).toBe(true);
    const err = await sql`SELECT 1`.execute(away.$kysely).catch((e: unknown) => e);
    expect(isDatabaseUnavailable(err)).toBe(true);
    await away.$close();
    expect(openPools().has('away')).toBe(false);
  });
});

describe('tablesOf', () => {
  it("names a package's tables with its schema on the caller's client or transaction", async () => {
    const caller = createDb<PrismaClient, DB>(PrismaClient, { url, schema: 'public', poolSize: 1 });
    try {
      const insert = (on: Queries) => tablesOf<DB>(on, SCHEMA).insertInto('samples').values(sample).returning('amount').executeTakeFirstOrThrow();
      expect(await insert(caller)).toEqual({ amount: '10.500000' });
      await expect(caller.$transaction(async (tx) => [await insert(tx), tx.$kysely === caller.$kysely])).resolves.toEqual([{ amount: '10.500000' }, false]);
      expect(tablesOf(caller, SCHEMA)).toBe(tablesOf(caller, SCHEMA));
      expect((await admin.query(`SELECT count(*)::int AS n FROM ${SCHEMA}.samples`)).rows[0].n).toBe(2);
    } finally {
      await caller.$close();
    }
  });
});

describe('preparedStatement', () => {
  const byLabel = preparedStatement((k: typeof db.$kysely, p: { label: string }) => k.selectFrom('samples').selectAll().where('label', '=', p.label));

  it('runs on the pool by name outside a transaction, and inside one on its connection, reading the same rows', async () => {
    const { id } = await db.$kysely.insertInto('samples').values(sample).returning('id').executeTakeFirstOrThrow();
    const expected = await pgRow(id);
    expect(await byLabel(db.$kysely, { label: 'a' })).toEqual([expected]);
    expect(await byLabel(db.$kysely, { label: 'b' })).toEqual([]);
    await db.$transaction(async (tx) => {
      await tx.$kysely.insertInto('samples').values({ ...sample, label: 'b' }).execute();
      expect(await byLabel(tx.$kysely, { label: 'b' })).toHaveLength(1);
      expect(await byLabel(db.$kysely, { label: 'b' })).toHaveLength(0);
    });
  });
});

describe('concurrent transactions', () => {
  it("each runs tx.$kysely on its own transaction, never another's", async () => {
    const seen = await Promise.all(
      ['a', 'b', 'c'].map((label, i) =>
        db.$transaction(async (tx) => {
          await new Promise((r) => setTimeout(r, 30 * i));
          await tx.$kysely.insertInto('samples').values({ ...sample, label }).execute();
          await new Promise((r) => setTimeout(r, 100 - 30 * i));
          const pid = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(tx.$kysely);
          const viaModel = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(tx.$kysely);
          const labels = (await tx.$kysely.selectFrom('samples').select('label').execute()).map((r) => r.label);
          if (label === 'b') throw Object.assign(new Error('b rolls back'), { labels });
          return { labels, pid: pid.rows[0]!.pid, again: viaModel.rows[0]!.pid };
        }).catch((e: { labels: string[] }) => ({ labels: e.labels, pid: -1, again: -1 })),
      ),
    );
    // Each saw its own uncommitted row only (and whatever committed before it read).
    expect(seen[0]!.labels).toContain('a');
    expect(seen[0]!.labels).not.toContain('b');
    expect(seen[1]!.labels).toContain('b');
    expect(seen[2]!.labels).toContain('c');
    expect(seen[2]!.labels).not.toContain('b');
    expect(seen[0]!.pid).toBe(seen[0]!.again);
    expect(seen[0]!.pid).not.toBe(seen[2]!.pid);
    const committed = (await db.$kysely.selectFrom('samples').select('label').orderBy('label').execute()).map((r) => r.label);
    expect(committed).toEqual(['a', 'c']);
  });
});
