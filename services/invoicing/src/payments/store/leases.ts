import type { InvoicingDb } from '../../db';

/**
 * Takes or keeps the lease `name` for `ttlMs` (table job_leases): true when this holder leads.
 * Free when nobody holds it or its holder let it run out (stopped, killed, cut off from the
 * database); one conditional update decides between contenders, so at most one process holds
 * it at a time (by the clock of the ones asking). The leader renews it each run.
 */
export async function holdLease(db: InvoicingDb, name: string, holder: string, ttlMs: number, now: Date): Promise<boolean> {
  const expiresAt = new Date(now.getTime() + ttlMs);
  await db.jobLease.createMany({ data: [{ name, holder, expiresAt }], skipDuplicates: true });
  const { count } = await db.jobLease.updateMany({ where: { name, OR: [{ holder }, { expiresAt: { lt: now } }] }, data: { holder, expiresAt } });
  return count === 1;
}

/** Gives the lease up at shutdown, so another process leads at once rather than after its ttl. */
export async function releaseLease(db: InvoicingDb, name: string, holder: string): Promise<void> {
  await db.jobLease.deleteMany({ where: { name, holder } });
}
