import { Queue } from 'bullmq';
import { assertValid } from '@pay/schemas';
import type { Queries, Transactions } from '@pay/db';
import { backoffDelay, deleteInBatches, type Logger, type RedisClient } from '@pay/runtime';
import { jobOptionsFor, Queues, type JobOf, type QueueKey } from './jobs';
import { watchOutbox } from './metrics';
import { deletePublishedBefore, insertOutboxRow, lockUnpublished, markPublished } from './store/outbox';

export { queueTables } from './store/outbox';

/** What a use-case writes, inside its own transaction, for the relay to enqueue. */
export interface OutboxWrite {
  queue: string;
  jobId: string;
  payload: object;
}

/**
 * Writes a job to the outbox with the caller's transaction client (any service's Prisma
 * client or transaction: `tx`), so the job exists exactly when the change that caused it commits.
 */
export async function writeOutbox(tx: Queries, msg: OutboxWrite): Promise<void> {
  await insertOutboxRow(tx, msg);
}

/** Builds an outbox row for a queue, validating the job now rather than when it is consumed. */
export function outboxMessage<K extends QueueKey>(queue: K, jobId: string, payload: JobOf<K>): OutboxWrite {
  const spec = Queues[queue];
  assertValid(spec.schema, payload, { what: `Job for ${spec.name}` });
  return { queue: spec.name, jobId, payload };
}

/**
 * The e-mail job of one webhook's disabling (webhookDisabledEmails), for whoever announces it:
 * the webhook worker, and invoicing when a merchant disables one. Its id names the disabling.
 */
export function webhookDisabledEmail(endpoint: { id: string; disabledAt: Date }): OutboxWrite {
  return outboxMessage('webhookDisabledEmails', webhookDisabledEmailId(endpoint), webhookDisabledEmailJob(endpoint));
}

/** The job id of a disabling's e-mail: one per disabling, whoever queues it (announcement or reconciler). */
export const webhookDisabledEmailId = (endpoint: { id: string; disabledAt: Date }) => `webhook-disabled-${endpoint.id}-${endpoint.disabledAt.getTime()}`;

/** The e-mail job of a disabling. */
export const webhookDisabledEmailJob = (endpoint: { id: string; disabledAt: Date }): JobOf<'webhookDisabledEmails'> => ({
  endpointId: endpoint.id,
  disabledAt: endpoint.disabledAt.toISOString(),
});

/**
 * Adds again, to `queue` (the queue of `key`), the jobs a reconciler found missing, with the
 * queue's job options and each job's own id: BullMQ skips an id it still holds (queued,
 * delayed, running), so a job that only looked lost is never doubled. The one way a
 * reconciler puts work back (withdrawals, receipt and KYC checks, batches, e-mails).
 */
export async function requeueJobs<K extends QueueKey>(queue: Queue, key: K, jobs: { jobId: string; data: JobOf<K> }[]): Promise<number> {
  if (jobs.length === 0) return 0;
  const spec = Queues[key];
  await queue.addBulk(jobs.map((j) => ({ name: spec.name, data: j.data, opts: { ...spec.jobOptions, jobId: j.jobId } })));
  return jobs.length;
}

/** Published outbox rows are kept this long for inspection, then pruned. */
export const OUTBOX_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** Deletes outbox rows published more than OUTBOX_RETENTION_MS ago; unpublished rows always stay. */
export function pruneOutbox(db: Queries, now: Date = new Date()): Promise<number> {
  const before = new Date(now.getTime() - OUTBOX_RETENTION_MS);
  return deleteInBatches((batch) => deletePublishedBefore(db, before, batch));
}

export interface RelayOptions {
  db: Transactions;
  connection: RedisClient;
  logger: Logger;
  prefix?: string;
  intervalMs?: number;
  batchSize?: number;
}

/**
 * Moves committed outbox rows onto their BullMQ queues, with each queue's options from the
 * catalogue. Rows are claimed with FOR UPDATE SKIP LOCKED, so several instances (of any
 * service) share the work; the job id is the row's own, so a crash between enqueue and
 * marking re-adds the same job, which BullMQ ignores.
 */
export class OutboxRelay {
  private readonly queues = new Map<string, Queue>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private again = false;
  private stopped = false;
  private failures = 0;
  private unwatch: (() => void) | null = null;

  constructor(private readonly opts: RelayOptions) {}

  queue(name: string): Queue {
    let q = this.queues.get(name);
    if (!q) {
      q = new Queue(name, { connection: this.opts.connection, prefix: this.opts.prefix });
      this.queues.set(name, q);
    }
    return q;
  }

  start(): void {
    this.stopped = false;
    // The backlog (outbox_pending, outbox_lag_seconds) is reported by processes that relay.
    this.unwatch ??= watchOutbox(this.opts.db);
    const loop = () => {
      if (this.stopped) return;
      this.timer = setTimeout(() => {
        void this.kick().finally(loop);
      }, backoffDelay(this.opts.intervalMs ?? 250, this.failures));
      this.timer.unref();
    };
    loop();
  }

  /** Publishes now; callers kick after committing, so jobs do not wait for the next poll. */
  kick(): Promise<number> {
    // Stopped: its queues are closed; the rows wait for the next relay (of any process).
    if (this.stopped) return this.running ?? Promise.resolve(0);
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      let total = 0;
      do {
        this.again = false;
        try {
          let n: number;
          while ((n = await this.publishBatch()) > 0) total += n;
          this.failures = 0;
        } catch (err) {
          this.failures++;
          this.opts.logger.error({ err, failures: this.failures }, 'outbox relay failed; backing off');
          break;
        }
      } while (this.again && !this.stopped);
      return total;
    })().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async publishBatch(): Promise<number> {
    return this.opts.db.$transaction(async (tx) => {
      const rows = await lockUnpublished(tx, this.opts.batchSize ?? 100);
      if (rows.length === 0) return 0;
      const byQueue = new Map<string, typeof rows>();
      for (const r of rows) byQueue.set(r.queue, [...(byQueue.get(r.queue) ?? []), r]);
      for (const [name, list] of byQueue) {
        await this.queue(name).addBulk(
          list.map((r) => ({
            name,
            data: r.payload,
            opts: { ...jobOptionsFor(name), jobId: r.job_id },
          })),
        );
      }
      await markPublished(tx, rows.map((r) => r.id));
      return rows.length;
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unwatch?.();
    this.unwatch = null;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    await Promise.all([...this.queues.values()].map((q) => q.close()));
  }
}
