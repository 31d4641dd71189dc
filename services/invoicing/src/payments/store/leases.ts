import type { InvoicingQueries } from '../../db';

/**
 * Takes or keeps the lease `name` for `ttlMs` (table job_leases): true when this holder leads.
 * Free when nobody holds it or its holder let it run out (stopped, killed, cut off from the
 * database); one conditional update decides between contenders, so at most one process holds
 * it at a time (by the clock of the ones asking). The leader renews it each run.
 */
export async function holdLease(on: InvoicingQueries, name: string, holder: string, ttlMs: number, now: Date): Promise<boolean> {
  const expiresAt = new Date(now.getTime() + ttlMs);
  const db = on.$kysely;
  // Insert-if-absent: a new lease is this holder's; an existing one is left to the update below.
  await db.insertInto('job_leases').values({ name, holder, expires_at: expiresAt }).onConflict((oc) => oc.column('name').doNothing()).execute();
  const res = await db
    .updateTable('job_leases')
    .set({ holder, expires_at: expiresAt })
    .where('name', '=', name)
    .where((eb) => eb.or([eb('holder', '=', holder), eb('expires_at', '<', now)]))
    .executeTakeFirst();
  return res.numUpdatedRows === 1n;
}

/** Gives the lease up at shutdown, so another process leads at once rather than after its ttl. */
export async function releaseLease(on: InvoicingQueries, name: string, holder: string): Promise<void> {
  await on.$kysely.deleteFrom('job_leases').where('name', '=', name).where('holder', '=', holder).execute();
}
