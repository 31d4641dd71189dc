import type { Express } from 'express';
import { SecretBox } from '@pay/auth';
import { accountKeys, accountsKeyResolver } from '@pay/accounts';
import { closeRedis, createLogger, queueRedis, requestRedis, systemClock, type Clock, type Lifecycle, type Logger } from '@pay/runtime';
import type { InvoicingConfig } from './config';
import { webhookWaker } from './channels/console/wakes';
import { buildInvoicingApp, type InvoicingApis } from './app';
import { startBackground } from './background';
import { createInvoicingDb } from './db';
import { paymentProvidersFrom } from './payments/registry';
import type { PaymentProviders } from './payments/provider';
import { smtpMailer } from './modules/batch/mailer';
import { receiptStorageFrom } from './modules/receipts/storage-from-config';
import { invoiceSettlement } from './modules/settlement/settlement';
import { invoiceReviewJson } from './modules/reviews/views';
import type { InvoicingDeps } from './deps';

/** What a caller may set differently from production; everything else is built from the config. */
export interface ComposeOptions {
  logger?: Logger;
  clock?: Clock;
  /** Connections of the process's one pool (its client's). By default DATABASE_POOL_MAX. */
  poolSize?: number;
  /** Adjusts the providers the config gives (a test gives live mode the sandbox). */
  providers?: (configured: PaymentProviders) => PaymentProviders;
  /** Whether the process is draining (main.ts: its Lifecycle's); never, by default. */
  isShuttingDown?: () => boolean;
}

export type InvoicingBackground = ReturnType<typeof startBackground>;

export interface ComposedInvoicing {
  deps: InvoicingDeps;
  app: Express;
  apis: InvoicingApis;
  /** Starts the background work (what RUN_WORKERS runs) and points `deps.kickOutbox` at its relay. */
  startBackground(lifecycle?: Lifecycle): InvoicingBackground;
  /** What to close at shutdown, in order (after the background and the listener): for a Lifecycle, one step each. */
  closers: ReadonlyArray<readonly [name: string, close: () => Promise<unknown>]>;
  /** Runs `closers` in order (a test's close). */
  close(): Promise<void>;
}

/**
 * The invoicing service's one composition root: databases, Redis, keys, providers, storage,
 * mailer and the app, wired once. main.ts and the tests build the same object graph here; a
 * test passes only its overrides (ComposeOptions) and its own config.
 */
export function composeInvoicing(config: InvoicingConfig, opts: ComposeOptions = {}): ComposedInvoicing {
  const logger = opts.logger ?? createLogger('invoicing', config.LOG_LEVEL);
  const clock = opts.clock ?? systemClock;
  const db = createInvoicingDb(config.DATABASE_URL, opts.poolSize ?? config.DATABASE_POOL_MAX, config.DATABASE_POOLING);
  const redis = requestRedis(config, logger);
  const queues = queueRedis(config, logger);
  const secrets = SecretBox.fromEnv(config.SECRETS_KEY);
  const keys = accountKeys({ resolver: accountsKeyResolver(db, secrets), redis, logger });
  const waker = webhookWaker(queues, config.QUEUE_PREFIX, logger);
  const mailer = smtpMailer(config);
  // What the acquirers' reports do to invoices (payments may not import the modules: it declares the port, this wires it).
  const settlement = invoiceSettlement({ db, clock });
  // Test mode pays through the sandbox (or T-Bank's demo terminal); live mode through T-Bank when configured, else live invoices are refused.
  const configured = paymentProvidersFrom(config, { db, clock, logger, settlement });
  let kick: () => void = () => undefined;
  const deps: InvoicingDeps = {
    config,
    logger,
    db,
    providers: opts.providers ? opts.providers(configured) : configured,
    settlement,
    // The invoices module shows an invoice's review without importing the reviews module above it.
    reviewOfInvoice: invoiceReviewJson,
    redis,
    queueRedis: queues,
    keys,
    secrets,
    receiptStorage: receiptStorageFrom(config),
    wakeWebhooks: waker.wake,
    clock,
    mailer,
    kickOutbox: () => kick(),
    isShuttingDown: opts.isShuttingDown ?? (() => false),
  };
  const { app, apis } = buildInvoicingApp(deps);
  const closers = [
    ['mailer', async () => mailer.close()],
    ['webhook wakes', waker.close],
    ['postgres', () => db.$close()],
    ['redis', () => Promise.all([keys.close(), closeRedis(redis), closeRedis(queues)])],
  ] as const;
  return {
    deps,
    app,
    apis,
    startBackground(lifecycle) {
      const background = startBackground(deps, lifecycle);
      kick = () => void background.relay.kick();
      return background;
    },
    closers,
    async close() {
      for (const [, close] of closers) await close();
    },
  };
}
