import { tablesOf, type Kysely, type Queries } from '@pay/db';

/**
 * What tests read and write beside the API, through the typed builder (`deps.db`: the
 * service's own tables, typed from prisma/schema.prisma), never SQL text.
 */

/** `count(*)` of a built query, as a number (pg answers bigint as text). */
export async function countOf(query: { executeTakeFirstOrThrow(): Promise<{ n: string | number | bigint }> }): Promise<number> {
  return Number((await query.executeTakeFirstOrThrow()).n);
}

/**
 * Tables of packages the service uses, as tests look at them (each package owns its table and
 * generates no builder types of its own: these are the columns tests touch, from its
 * prisma/schema.prisma). They run on the service's client (`deps.db`).
 */
interface QueueTables {
  outbox: { id: string; queue: string; job_id: string; payload: unknown; published_at: Date | null };
}
interface KitTables {
  idempotency_keys: { scope: string; key: string; status: string; response_status: number | null; response_body: unknown; locked_at: Date };
}

/** `queue.outbox` on the service's pool: which jobs a use-case wrote. */
export function outboxOf(on: Queries): Kysely<QueueTables> {
  return tablesOf<QueueTables>(on, 'queue');
}

/** `kit.idempotency_keys` on the service's pool. */
export function idempotencyKeysOf(on: Queries): Kysely<KitTables> {
  return tablesOf<KitTables>(on, 'kit');
}
