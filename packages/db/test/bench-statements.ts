// CPU per statement of this process (process.cpuUsage, user + system; Postgres' own CPU is not
// counted) for the same two statements three ways:
//   - `db.$kysely` (createDb: Kysely -> Prisma's raw path -> adapter-pg -> pg),
//   - `db.$queryRawUnsafe` (Prisma's raw path without Kysely, for where the cost lies),
//   - plain `pool.query(text, values)` on the same pool (no Kysely, no Prisma),
//   - a named prepared statement on that pool (`preparedStatement`: Kysely compiled once),
//   - the same statement unnamed, as it goes behind PgBouncer (`pooling: 'transaction'`: Postgres
//     parses and plans it on every call; its tables qualified, since that pool sets no search_path).
// Sequential calls on one connection, after 500 warm-up calls each.
// Usage: tsx packages/db/test/bench-statements.ts [calls=20000]  (DATABASE_URL, default the local `payments`)
import pg from 'pg';
import { createDb, poolUnder, preparedStatement, tablesOf } from '../src';
import { PrismaClient } from '../src/generated/test-client/client';
import type { DB } from '../src/generated/test-kysely/tables';

const N = Number(process.argv[2] ?? 20_000);
const url = process.env.DATABASE_URL ?? 'postgresql://root@127.0.0.1:5432/payments';
const SCHEMA = `db_bench_${process.pid}`;

async function main(): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${SCHEMA}`);
  await admin.query(`CREATE TABLE ${SCHEMA}.samples (
    id bigserial PRIMARY KEY, amount numeric(20,6) NOT NULL, label text NOT NULL, tags text[] NOT NULL,
    body jsonb NOT NULL, at timestamptz(3) NOT NULL, day date NOT NULL, bytes bytea, big bigint)`);
  const db = createDb<PrismaClient, DB>(PrismaClient, { url, schema: SCHEMA, poolSize: 1 });
  const pool = poolUnder(db.$kysely)!;
  const row = { amount: '10.50', label: 'x', tags: ['a'], body: '{"a":1}', at: new Date(), day: '2024-01-01', big: '1' };
  const values = [row.amount, row.label, row.tags, row.body, row.at, row.day, row.big];
  const insertSql = 'INSERT INTO samples (amount, label, tags, body, at, day, big) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id';
  const selectSql = 'SELECT id, amount, label, at FROM samples WHERE id = $1';
  const preparedInsert = preparedStatement((k: typeof db.$kysely, p: typeof row) =>
    k.insertInto('samples').values({ amount: p.amount, label: p.label, tags: p.tags, body: p.body, at: p.at, day: p.day, big: p.big }).returning('id'),
  );
  const preparedSelect = preparedStatement((k: typeof db.$kysely, p: { id: string }) => k.selectFrom('samples').select(['id', 'amount', 'label', 'at']).where('id', '=', p.id));
  // Directly on Postgres too: only the statements' names differ from the named ones above.
  const unnamedDb = createDb<PrismaClient, DB>(PrismaClient, { url, schema: SCHEMA, poolSize: 1, pooling: 'transaction' });
  const unnamed = tablesOf<DB>(unnamedDb, SCHEMA);
  const unnamedInsert = preparedStatement((k: typeof db.$kysely, p: typeof row) =>
    k.insertInto('samples').values({ amount: p.amount, label: p.label, tags: p.tags, body: p.body, at: p.at, day: p.day, big: p.big }).returning('id'),
  );
  const unnamedSelect = preparedStatement((k: typeof db.$kysely, p: { id: string }) => k.selectFrom('samples').select(['id', 'amount', 'label', 'at']).where('id', '=', p.id));
  const ids: string[] = [];

  const ways: Record<string, Record<string, (i: number) => Promise<unknown>>> = {
    'INSERT ... RETURNING': {
      'db.$kysely': async () => ids.push((await db.$kysely.insertInto('samples').values(row).returning('id').executeTakeFirstOrThrow()).id),
      'db.$queryRawUnsafe (no Kysely)': async () => ids.push((await db.$queryRawUnsafe<{ id: string }[]>(insertSql, ...values))[0]!.id),
      'pool.query': async () => ids.push((await pool.query(insertSql, values)).rows[0].id),
      'named prepared (preparedStatement)': async () => ids.push((await preparedInsert(db.$kysely, row))[0]!.id),
      'unnamed (preparedStatement, transaction pooling)': async () => ids.push((await unnamedInsert(unnamed, row))[0]!.id),
    },
    'SELECT by primary key': {
      'db.$kysely': (i) => db.$kysely.selectFrom('samples').select(['id', 'amount', 'label', 'at']).where('id', '=', ids[i % ids.length]!).executeTakeFirst(),
      'db.$queryRawUnsafe (no Kysely)': (i) => db.$queryRawUnsafe(selectSql, ids[i % ids.length]),
      'pool.query': (i) => pool.query(selectSql, [ids[i % ids.length]]),
      'named prepared (preparedStatement)': (i) => preparedSelect(db.$kysely, { id: ids[i % ids.length]! }),
      'unnamed (preparedStatement, transaction pooling)': (i) => unnamedSelect(unnamed, { id: ids[i % ids.length]! }),
    },
  };
  try {
    for (const [statement, byWay] of Object.entries(ways)) {
      for (const [way, run] of Object.entries(byWay)) {
        for (let i = 0; i < 500; i++) await run(i); // warm: plans, JIT, the connection
        const cpu0 = process.cpuUsage();
        const t0 = process.hrtime.bigint();
        for (let i = 0; i < N; i++) await run(i);
        const wall = Number(process.hrtime.bigint() - t0) / 1e3 / N;
        const cpu = process.cpuUsage(cpu0);
        console.log(`${statement.padEnd(22)} ${way.padEnd(48)} cpu ${((cpu.user + cpu.system) / N).toFixed(1).padStart(6)} µs/stmt  wall ${wall.toFixed(1).padStart(6)} µs/stmt`);
      }
    }
  } finally {
    await db.$close();
    await unnamedDb.$close();
    await admin.query(`DROP SCHEMA ${SCHEMA} CASCADE`);
    await admin.end();
  }
}

void main();
