import type { Queries } from '@pay/db';
import { oncePerScrape, scrapedGauge } from '@pay/runtime';
import { unpublishedBacklog } from './store/outbox';

/** The outbox databases this process relays from (every running OutboxRelay adds its own). */
const sources = new Set<Queries>();

/** Reports the outbox's backlog at every scrape while a relay runs in this process. */
export function watchOutbox(db: Queries): () => void {
  sources.add(db);
  return () => void sources.delete(db);
}

async function backlog(db: Queries): Promise<{ pending: number; oldestSeconds: number }> {
  const { pending, oldest } = await unpublishedBacklog(db);
  return { pending, oldestSeconds: oldest === null ? 0 : Math.max(0, (Date.now() - oldest.getTime()) / 1000) };
}

/** One read per scrape, shared by both gauges; null while no relay runs here, or the database is away. */
const backlogNow = oncePerScrape(async () => {
  const db = sources.values().next().value;
  return db ? backlog(db).catch(() => null) : null;
});

scrapedGauge(backlogNow, 'outbox_pending', 'Outbox rows committed and not yet moved onto their queues (the outbox every service writes, schema queue)', (r) => r.pending);

scrapedGauge(backlogNow, 'outbox_lag_seconds', 'Age of the oldest outbox row not yet moved onto its queue (0 when none waits): how far the relays are behind', (r) => r.oldestSeconds);
