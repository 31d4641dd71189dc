import type { CompiledQuery, Compilable, Kysely } from 'kysely';
import { poolUnder } from './client';
import { isTransactionPooled } from './pool';

/** Where a prepared statement takes a value: stands in for it while the statement is compiled. */
class Slot {
  constructor(readonly name: string) {}
}

let statements = 0;

/**
 * The one sanctioned way around Prisma for a hot statement: a named prepared statement on the
 * pool under the process's client (the same pool, so still one pool per process).
 *
 * When: only for a statement on a hot path (run per request of a high-volume operation) whose
 * cost through `db.$kysely` the bench shows is too high, and only inside the store of the
 * table's owner, with the measurement in the commit that adds it. Through `$kysely` a
 * statement is built and compiled by Kysely, then planned by Prisma's query compiler and
 * parsed and planned by Postgres on every call; here it is built and compiled once, sent as
 * a named statement that Postgres parses and plans once per connection, and its rows come
 * from pg (which is what `$kysely`'s rows read like anyway; see rows.ts). For the figures see
 * packages/db/README.md.
 *
 * `build` must give a statement whose shape does not depend on the values (no `$if` on them,
 * no `in` lists): each value of `params` is a placeholder that becomes one parameter. Run it
 * with `db.$kysely` (on the pool, by name) or with `tx.$kysely` (inside the transaction: the
 * same compiled SQL, unnamed, through Prisma, since a transaction's connection is Prisma's).
 */
export function preparedStatement<DB, P extends object, O>(build: (db: Kysely<DB>, params: P) => Compilable<O>) {
  let compiled: CompiledQuery<O> | undefined;
  const name = `pay-db-${++statements}`;
  return async (db: Kysely<DB>, values: P): Promise<O[]> => {
    compiled ??= build(db, new Proxy({}, { get: (_, key) => new Slot(String(key)) }) as P).compile();
    const parameters = compiled.parameters.map((p) => (p instanceof Slot ? (values as Record<string, unknown>)[p.name] : p));
    const pool = poolUnder(db);
    // Behind PgBouncer in transaction pooling the next call may reach a server connection that
    // never saw this statement's Parse ("prepared statement does not exist"): sent unnamed there,
    // Postgres parses and plans it on every call (README "When to use preparedStatement").
    if (pool) return (await pool.query(isTransactionPooled(pool) ? { text: compiled.sql, values: parameters as unknown[] } : { name, text: compiled.sql, values: parameters as unknown[] })).rows as O[];
    return (await db.executeQuery<O>({ ...compiled, parameters })).rows;
  };
}
