import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { JobsOptions } from 'bullmq';
import { StringEnum, Uuid } from '@pay/schemas';

interface QueueSpec {
  /** The BullMQ queue name. */
  name: string;
  /** Every job is validated against this where it is made and where it is consumed. */
  schema: TSchema;
  /** Attempts, backoff and retention, declared once: the relay, reconcilers and producers all use these. */
  jobOptions: JobsOptions;
}

/**
 * The catalogue of queues: name, job schema and job options of each, in one place (after
 * trigger.dev's workerCatalog). Producers and consumers both validate against the schema, so
 * a malformed job is refused where it is made and never half-processed.
 */
export const Queues = {
  /** Advances one withdrawal through Pending → Processing → Completed | Failed. */
  withdrawals: {
    name: 'crypto-withdrawals',
    schema: Type.Object({ withdrawalId: Uuid }),
    // Transient failures (signer down) back off and retry; the reconciler re-adds the rest.
    jobOptions: { attempts: 10, backoff: { type: 'exponential', delay: 1000 }, removeOnComplete: true, removeOnFail: true },
  },
  /**
   * Runs the automatic check of one submitted KYC session (invoicing). The job id is the
   * session's id; a reconciler re-adds jobs for sessions still CHECKING after a Redis loss.
   */
  kycChecks: {
    name: 'invoicing-kyc-checks',
    schema: Type.Object({ sessionId: Uuid }, { additionalProperties: false }),
    jobOptions: { attempts: 5, backoff: { type: 'exponential', delay: 2000 }, removeOnComplete: true, removeOnFail: true },
  },
  /**
   * Wakes the webhook worker: deliveries are rows in Postgres (schema `webhooks`), and a job
   * only says "look now" (a retry fell due, the console asked for a resend, a test or a
   * replay). Losing one costs at most the worker's poll interval, never a delivery.
   */
  webhookWakes: {
    name: 'webhook-wakes',
    schema: Type.Object({ reason: StringEnum(['retry', 'resend', 'test', 'replay'] as const) }, { additionalProperties: false }),
    jobOptions: { attempts: 1, removeOnComplete: true, removeOnFail: true },
  },
  /**
   * Checks one uploaded receipt (invoicing): text from the PDF or OCR of the image, then
   * APPROVED or REJECTED, and an approved receipt of a receiptRequired invoice pays it. Retried
   * on failure (storage or database away); a reconciler re-adds jobs for receipts left PENDING.
   */
  receiptChecks: {
    name: 'invoicing-receipt-checks',
    schema: Type.Object({ receiptId: Uuid }, { additionalProperties: false }),
    jobOptions: { attempts: 5, backoff: { type: 'exponential', delay: 2000 }, removeOnComplete: true, removeOnFail: true },
  },
  /**
   * Writes the invoices of a large CSV batch (invoicing v1), in chunks, moving its progress.
   * Idempotent (rows already written are skipped), so a retry or a reconciler re-add is safe.
   */
  batchInvoices: {
    name: 'invoicing-batches',
    schema: Type.Object({ batchId: Uuid }, { additionalProperties: false }),
    jobOptions: { attempts: 10, backoff: { type: 'exponential', delay: 1000 }, removeOnComplete: true, removeOnFail: true },
  },
  /**
   * Sends a batch's payment links by e-mail. A run sends what is not sent yet and records each
   * failure on its row; while any is left it fails, so BullMQ tries again with backoff.
   */
  batchEmails: {
    name: 'invoicing-batch-emails',
    schema: Type.Object({ batchId: Uuid }, { additionalProperties: false }),
    jobOptions: { attempts: 6, backoff: { type: 'exponential', delay: 2000 }, removeOnComplete: true, removeOnFail: true },
  },
  /**
   * E-mails a merchant that one of its webhooks was disabled (invoicing sends it: it has the
   * mailer). Written to the outbox in the transaction that announced `endpoint.disabled`; the
   * job id names the disabling, so one disabling is one e-mail.
   */
  webhookDisabledEmails: {
    name: 'webhook-disabled-emails',
    schema: Type.Object({ endpointId: Uuid, disabledAt: Type.String({ format: 'date-time' }) }, { additionalProperties: false }),
    jobOptions: { attempts: 6, backoff: { type: 'exponential', delay: 2000 }, removeOnComplete: true, removeOnFail: true },
  },
} as const satisfies Record<string, QueueSpec>;

export type QueueKey = keyof typeof Queues;
export type JobOf<K extends QueueKey> = Static<(typeof Queues)[K]['schema']>;
export type WithdrawalJob = JobOf<'withdrawals'>;

/** Job options of a queue by its BullMQ name (the outbox stores names). */
export function jobOptionsFor(queueName: string): JobsOptions {
  return Object.values(Queues).find((q) => q.name === queueName)?.jobOptions ?? {};
}
export type WebhookWakeJob = JobOf<'webhookWakes'>;
export type ReceiptCheckJob = JobOf<'receiptChecks'>;
export type BatchJob = JobOf<'batchInvoices'>;
export type KycCheckJob = JobOf<'kycChecks'>;
