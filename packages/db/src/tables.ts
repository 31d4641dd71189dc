import type { Kysely } from 'kysely';
import { poolUnder, underPool, type Queries } from './client';

const bound = new WeakMap<Kysely<unknown>, Map<string, Kysely<unknown>>>();

/**
 * A package's own tables on the caller's client or transaction (`Queries`): the caller's
 * `$kysely`, typed by the package's generated tables and qualified with its schema (the
 * caller's search_path is the caller's own). Cached per caller's builder and schema, since a
 * hot path (the key resolver, recording an event) asks for it on every call.
 */
export function tablesOf<DB>(on: Queries, schema: string): Kysely<DB> {
  const k = on.$kysely as Kysely<unknown>;
  let bySchema = bound.get(k);
  if (!bySchema) bound.set(k, (bySchema = new Map()));
  let t = bySchema.get(schema);
  if (!t) {
    bySchema.set(schema, (t = k.withSchema(schema) as Kysely<unknown>));
    // A package's prepared statements on the caller's client run on the caller's pool too.
    const pool = poolUnder(k);
    if (pool) underPool(t, pool);
  }
  return t as Kysely<DB>;
}
