import type { AccountKeys } from '@pay/accounts';
import type { SecretBox } from '@pay/auth';
import type { Clock, Logger, RedisClient } from '@pay/runtime';
import type { WebhookWakeJob } from '@pay/queue';
import type { InvoicingConfig } from './config';
import type { InvoicingDb, InvoicingQueries } from './db';
import type { PaymentProviders } from './payments/provider';
import type { InvoiceSettlement } from './payments/settlement';
import type { ReceiptStorage } from './modules/receipts/storage';
import type { Mailer } from './modules/batch/mailer';

/** Everything the invoicing service's domains need, built once in main.ts (or by a test). */
export interface InvoicingDeps {
  config: InvoicingConfig;
  logger: Logger;
  /** API key resolution (cached per process, invalidated across processes). */
  keys: AccountKeys;
  /**
   * The process's one client on its one pool: invoicing's tables through `db.$kysely` and
   * `db.$transaction`, and the accounts and webhooks packages' tables (they take it as `Queries`).
   */
  db: InvoicingDb;
  /** Payment provider per mode: test mode always has the sandbox; live only what is configured. */
  providers: PaymentProviders;
  /**
   * The invoices' side of an acquirer's reports (pay, await the receipt, review, a refund made at
   * the acquirer): the port payments/settlement.ts declares, modules/settlement/ implements.
   */
  settlement: InvoiceSettlement;
  /**
   * The invoice's review awaiting the merchant (null when all is well), as its GET shows it (the
   * `review` of InvoiceDetail, checked against that schema outside production). The
   * reviews module sits above invoices (it pays and refunds them), so the invoices module
   * declares what it needs here and compose.ts gives it reviews' `invoiceReviewJson`.
   */
  reviewOfInvoice: (on: InvoicingQueries, invoice: { id: string; currency: string }) => Promise<object | null>;
  /** Request path: rate limits, replay guard, readiness. Fails fast when Redis is away. */
  redis: RedisClient;
  /** BullMQ queues and workers: waits out Redis outages. */
  queueRedis: RedisClient;
  secrets: SecretBox;
  /** Uploaded receipt files: local disk or an S3-compatible bucket (RECEIPTS_STORAGE). */
  receiptStorage: ReceiptStorage;
  clock: Clock;
  /** Wakes the webhook worker after the console changed something it must act on (never throws). */
  wakeWebhooks: (reason: WebhookWakeJob['reason']) => void;
  /** Outgoing e-mail (batch payment links): pooled SMTP. */
  mailer: Mailer;
  /** Wakes the outbox relay after a commit that wrote to the outbox. */
  kickOutbox: () => void;
  isShuttingDown: () => boolean;
}

/**
 * The narrow deps of each domain: what its use-cases and routes use, so a signature says what
 * a function reaches and a test can build only that. The composition roots (main.ts, app.ts,
 * background.ts, the console's assembly) take the whole InvoicingDeps and hand each domain its part.
 */
export type InvoicesDeps = Pick<InvoicingDeps, 'db' | 'clock' | 'config' | 'logger' | 'providers'>;
/** The invoice routes also show an invoice's review (v2 and v1 GET). */
export type InvoiceRoutesDeps = InvoicesDeps & Pick<InvoicingDeps, 'reviewOfInvoice'>;
export type CustomersDeps = Pick<InvoicingDeps, 'db' | 'clock'>;
export type BrandDeps = Pick<InvoicingDeps, 'db' | 'clock'>;
export type AnalyticsDeps = Pick<InvoicingDeps, 'db' | 'clock'>;
export type V1Deps = InvoiceRoutesDeps;
export type BatchDeps = Pick<InvoicingDeps, 'db' | 'clock' | 'config' | 'logger' | 'providers' | 'mailer' | 'queueRedis' | 'kickOutbox'>;
export type KycDeps = Pick<InvoicingDeps, 'db' | 'clock' | 'config' | 'logger' | 'queueRedis' | 'kickOutbox'>;
export type ReceiptsDeps = Pick<InvoicingDeps, 'db' | 'clock' | 'config' | 'logger' | 'queueRedis' | 'kickOutbox' | 'receiptStorage'>;
export type PayPageDeps = Pick<InvoicingDeps, 'db' | 'clock' | 'config' | 'logger' | 'providers' | 'kickOutbox' | 'receiptStorage'>;
export type PaymentsDeps = Pick<InvoicingDeps, 'db' | 'clock' | 'config' | 'logger' | 'providers'>;
/** The merchant's webhooks (v2 API): the console's needs, for the same functions. */
export type WebhooksDeps = Pick<InvoicingDeps, 'db' | 'clock' | 'config' | 'secrets' | 'wakeWebhooks' | 'kickOutbox'>;
export type ConsoleDeps = Pick<InvoicingDeps, 'db' | 'clock' | 'config' | 'logger' | 'queueRedis' | 'redis' | 'secrets' | 'wakeWebhooks' | 'kickOutbox'>;
