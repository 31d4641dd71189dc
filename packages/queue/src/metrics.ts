import { tablesOf, type Queries } from '@pay/db';
import { oncePerScrape, scrapedGauge } from '@pay/runtime';
import type { DB } from './generated/kysely/tables';

/** The outbox databases this process relays from (every running OutboxRelay adds its own). */
const sources = new Set<Queries>();

/** Reports the outbox's backlog at every scrape while a relay runs in this process. */
export function watchOutbox(db: Queries): () => void {
  sources.add(db);
  return () => void sources.delete(db);
}

const outbox = (db: Queries) => tablesOf<DB>(db, 'queue');

async function backlog(db: Queries): Promise<{ pending: number; oldestSeconds: number }> {
  const row = await outbox(db)
    .selectFrom('outbox')
    .select((eb) => [eb.cast<number>(eb.fn.countAll(), 'integer').as('pending'), eb.fn.min('created_at').as('oldest')])
    .where('published_at', 'is', null)
    .executeTakeFirstOrThrow();
  const oldest = row.oldest ? new Date(row.oldest as Date | string).getTime() : null;
  return { pending: row.pending, oldestSeconds: oldest === null ? 0 : Math.max(0, (Date.now() - oldest) / 1000) };
}

/** One read per scrape, shared by both gauges; null while no relay runs here, or the database is away. */
const backlogNow = oncePerScrape(async () => {
  const db = sources.values().next().value;
  return db ? backlog(db).catch(() => null) : null;
});

scrapedGauge(backlogNow, 'outbox_pending', 'Outbox rows committed and not yet moved onto their queues (the shared queue.outbox table)', (r) => r.pending);

scrapedGauge(backlogNow, 'outbox_lag_seconds', 'Age of the oldest outbox row not yet moved onto its queue (0 when none waits): how far the relays are behind', (r) => r.oldestSeconds);
