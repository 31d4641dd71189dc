import { pruneConsoleSessions } from '@pay/accounts';
import { pruneIdempotencyKeys } from '@pay/http';
import type { Worker } from 'bullmq';
import { every, type Lifecycle } from '@pay/runtime';
import { OutboxRelay, pruneOutbox, Queues, workerActivity } from '@pay/queue';
import { reconcileBatches, startBatchWorkers } from './modules/batch/worker';
import type { InvoicingDeps } from './deps';
import { expireDueInvoices } from './modules/settlement/expiry';
import { reconcileRefunds } from './modules/refunds/refunds';
import { acquirerBackground } from './payments/registry';
import { expireDueKycSessions } from './modules/kyc/expiry';
import { declineUnretriedKycSessions } from './modules/kyc/decision';
import { FaceModel } from './engines/vision/face-model';
import { MrzReader } from './engines/vision/mrz-reader';
import { RuleBasedKycProvider } from './modules/kyc/rules';
import { reconcileKycChecks, startKycWorker } from './modules/kyc/worker';
import { ReceiptReaders } from './modules/receipts/readers';
import { reconcileReceipts, startReceiptWorker } from './modules/receipts/worker';
import { reconcileDisabledEmails, startDisabledEmailWorker } from './modules/webhooks/disabled-email';

/** How often expired idempotency answers, console sessions and published outbox rows are deleted. */
const HOUSEKEEPING_INTERVAL_MS = 60 * 60 * 1000;

/**
 * The invoicing service's work outside requests: invoice and KYC-session expiry (every
 * EXPIRY_INTERVAL_MS, so either expires within about a second of `expiresAt`), the refund
 * reconciler, the outbox relay, the receipt check, KYC check and batch workers (large CSV
 * batches, their e-mails) with their reconcilers, and housekeeping. Every part is safe in
 * several processes at once (SKIP LOCKED, conditional updates, job ids), and keeps no state
 * of its own: a restart resumes where the database stands.
 */
export function startBackground(deps: InvoicingDeps, lifecycle?: Lifecycle) {
  const relay = new OutboxRelay({ db: deps.db, connection: deps.queueRedis, logger: deps.logger, prefix: deps.config.QUEUE_PREFIX, intervalMs: deps.config.OUTBOX_INTERVAL_MS });
  relay.start();
  const ocr = { langDir: deps.config.OCR_LANG_DIR, rusTrainedData: deps.config.OCR_RUS_TRAINEDDATA };
  const readers = new ReceiptReaders(ocr);
  const receipts = startReceiptWorker(deps, readers);
  // Loaded with the first KYC check, in a worker thread; unloaded when idle (vision/face-model.ts).
  const faces = new FaceModel({ idleMs: deps.config.KYC_FACE_MODEL_IDLE_MS, logger: deps.logger });
  // OCR of the document photo's machine-readable zone: its tesseract worker starts with the first check, then stays warm.
  const zones = new MrzReader(ocr);
  const kycWorker = startKycWorker(deps, new RuleBasedKycProvider(faces, zones));
  const batchWorkers = startBatchWorkers(deps);
  // E-mails telling a merchant one of its webhooks was disabled (queued where it was announced).
  const disabledEmails = startDisabledEmailWorker(deps);
  const expiry = every('invoice-expiry', deps.config.EXPIRY_INTERVAL_MS, () => expireDueInvoices(deps), deps.logger);
  // Reconcilers (RECONCILE_INTERVAL_MS, 30 s): refunds left PENDING by a dead request are
  // finished; KYC checks, batches, batch e-mails and webhook-disabled e-mails whose job Redis
  // lost (or whose attempts ran out) get it again;
  // receipts left PENDING without a job are looked for half as often.
  const reconcileMs = deps.config.RECONCILE_INTERVAL_MS;
  const loops = [
    expiry,
    every('kyc-expiry', deps.config.EXPIRY_INTERVAL_MS, async () => (await expireDueKycSessions(deps)) + (await declineUnretriedKycSessions(deps)), deps.logger),
    every('refund-reconciler', reconcileMs, () => reconcileRefunds(deps), deps.logger),
    every('receipt-reconciler', 2 * reconcileMs, () => reconcileReceipts(deps, relay.queue(Queues.receiptChecks.name)), deps.logger),
    every('kyc-reconciler', reconcileMs, () => reconcileKycChecks(deps, relay.queue(Queues.kycChecks.name)), deps.logger),
    every('batch-reconciler', reconcileMs, () => reconcileBatches(deps, (name) => relay.queue(name)), deps.logger),
    every('disabled-email-reconciler', reconcileMs, () => reconcileDisabledEmails(deps, relay.queue(Queues.webhookDisabledEmails.name)), deps.logger),
    every('housekeeping', HOUSEKEEPING_INTERVAL_MS, () => housekeeping(deps), deps.logger),
  ];
  // The acquirers' loops (their reconcilers); where they run, /metrics reports their backlog (payments/registry.ts).
  const acquirers = acquirerBackground(deps);
  loops.push(...acquirers.loops);
  const unwatchBacklog = acquirers.unwatch;
  // What stop() still waits for, while it runs: a shutdown that overruns says which.
  const pending = new Set<string>();
  const awaiting = (steps: Record<string, Promise<unknown>>) =>
    Promise.all(Object.entries(steps).map(([name, p]) => (pending.add(name), p.finally(() => pending.delete(name)))));
  const workers: Record<string, Worker> = { 'receipt worker': receipts, 'KYC worker': kycWorker, 'disabled-webhook e-mail worker': disabledEmails, ...Object.fromEntries(batchWorkers.map((w, i) => [`batch worker ${i}`, w])) };
  const stop = async () => {
    unwatchBacklog();
    await awaiting(Object.fromEntries(loops.map((l, i) => [`loop ${i}`, l.stop()])));
    // The relay next: rows that jobs still running commit stay in the outbox for the next
    // process to publish (nothing is lost), and no publish outlives this stop.
    await awaiting({ relay: relay.stop() });
    // The engines then: they abort what is in flight (a KYC check or a receipt's OCR takes a
    // minute and more on a loaded machine), so closing the workers, which waits for their
    // running jobs, is quick. An aborted job fails with nothing decided and runs again.
    await awaiting({ 'receipt OCR': readers.close(), 'face model': faces.close(), 'MRZ OCR': zones.close() });
    await awaiting(Object.fromEntries(Object.entries(workers).map(([name, w]) => [name, w.close()])));
  };
  // A pending worker says what it runs (workerActivity): its jobs and how long, or BullMQ's close.
  const stopping = () => [...pending].map((name) => (name in workers ? `${name} (${workerActivity(workers[name]!)})` : name));
  lifecycle?.onShutdown('background', stop);
  return { relay, receipts, readers, faces, zones, kycWorker, batchWorkers, disabledEmails, expiry, loops, stop, stopping };
}

/**
 * Deletes what has expired: stored idempotent answers, console sessions (a session is refused
 * once expired anyway; this keeps the table to the live ones), and published outbox rows.
 */
export async function housekeeping(
  deps: Pick<InvoicingDeps, 'db' | 'clock'>,
): Promise<{ idempotencyKeys: number; consoleSessions: number; outboxRows: number }> {
  const now = deps.clock.now();
  const [idempotencyKeys, consoleSessions, outboxRows] = await Promise.all([pruneIdempotencyKeys(deps.db, now), pruneConsoleSessions(deps.db, now), pruneOutbox(deps.db, now)]);
  return { idempotencyKeys, consoleSessions, outboxRows };
}
