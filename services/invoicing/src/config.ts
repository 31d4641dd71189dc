import { Type, type Static } from '@sinclair/typebox';
import { baseConfigProperties, ConfigError, loadConfig, publicUrlOf } from '@pay/runtime';
import { StringEnum } from '@pay/schemas';
import type { AcquirerSettings } from './payments/settings';

/**
 * The service's own settings. Each acquirer's (and which acquirer takes each mode's payments)
 * are added by `configSchemaWith` from the payments registry: load-config.ts puts them together.
 */
export const InvoicingOwnConfigSchema = Type.Object({
  ...baseConfigProperties,
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3001 }),
  QUEUE_PREFIX: Type.String({ default: 'bull', description: 'BullMQ key prefix; the same as the webhook worker' }),
  PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://', description: 'base_url as merchants see it; default http://HOST:PORT' })),
  RUN_WORKERS: Type.Boolean({ default: true, description: 'run expiry, the outbox relay, the receipt, KYC and batch workers, the reconcilers and housekeeping in this process' }),
  WORKER_REPLICAS: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 1,
    description: 'how many processes run the workers (RUN_WORKERS=true) at most, e.g. the workers autoscaler’s maxReplicas; set the same on the API processes: local receipt storage is refused above 1',
  }),
  RECEIPTS_STORAGE: StringEnum(['local', 's3'] as const, {
    default: 'local',
    description: 'where receipt files are kept: local disk (RECEIPTS_DIR, one process that serves and checks them all) or an S3-compatible bucket (S3_*)',
  }),
  RECEIPTS_DIR: Type.String({ default: 'data/receipts', description: 'receipt files on local disk (relative to the working directory)' }),
  RATE_LIMIT_PAGE_PER_INVOICE_PER_MINUTE: Type.Integer({
    minimum: 1,
    default: 300,
    description:
      'requests to one invoice’s hosted pages (page, status polls, card or SBP payment, retry, receipt upload) per minute, every client together: a payer’s tab polls 12 to 40 times a minute',
  }),
  RECEIPT_MAX_BYTES: Type.Integer({ minimum: 1024, maximum: 50 * 1024 * 1024, default: 10 * 1024 * 1024, description: 'largest receipt file accepted, in bytes' }),
  S3_ENDPOINT: Type.Optional(Type.String({ pattern: '^https?://', description: 'S3-compatible endpoint, e.g. https://storage.yandexcloud.net' })),
  S3_BUCKET: Type.Optional(Type.String({ minLength: 3 })),
  S3_REGION: Type.String({ default: 'us-east-1' }),
  S3_ACCESS_KEY_ID: Type.Optional(Type.String({ minLength: 1 })),
  S3_SECRET_ACCESS_KEY: Type.Optional(Type.String({ minLength: 1 })),
  OCR_LANG_DIR: Type.Optional(Type.String({ description: 'where eng+rus traineddata are laid out for the OCR (and, in legacy/, the English data of the KYC MRZ reader); default <tmp>/pay-tessdata' })),
  OCR_RUS_TRAINEDDATA: Type.String({
    default: '/usr/share/tesseract-ocr/5/tessdata/rus.traineddata',
    description: 'Russian OCR language data (Debian tesseract-ocr-rus); English comes from the @tesseract.js-data/eng package',
  }),
  RECEIPT_WORKER_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 8, default: 1, description: 'receipts checked at once per process (OCR is CPU-bound: one per core)' }),
  KYC_FACE_MODEL_IDLE_MS: Type.Integer({
    minimum: 1000,
    maximum: 86_400_000,
    default: 60_000,
    description: 'the KYC face model (loaded with the first check, ~350 MB) is unloaded after this long without a check',
  }),
  OUTBOX_INTERVAL_MS: Type.Integer({ minimum: 10, maximum: 60000, default: 250, description: 'how often the outbox relay looks for jobs besides the wakes after commits' }),
  BATCH_INLINE_ROWS: Type.Integer({ minimum: 0, maximum: 1000, default: 100, description: 'a CSV batch with more valid rows than this is written by the queue worker (status processing → completed)' }),
  SMTP_HOST: Type.String({ default: '127.0.0.1', description: 'SMTP server for batch e-mails' }),
  SMTP_PORT: Type.Integer({ minimum: 1, maximum: 65535, default: 25 }),
  SMTP_SECURE: Type.Boolean({ default: false, description: 'TLS from the start (port 465); otherwise STARTTLS when the server offers it' }),
  SMTP_USER: Type.Optional(Type.String({ minLength: 1 })),
  SMTP_PASSWORD: Type.Optional(Type.String({ minLength: 1 })),
  SMTP_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 50, default: 10, description: 'pooled SMTP connections (each sends one message at a time)' }),
  MAIL_FROM: Type.String({ default: 'Payments <no-reply@payments.local>', description: 'sender of batch e-mails' }),
  CONSOLE_OPERATORS: Type.String({
    default: '',
    pattern: '^$|^[0-9a-fA-F-]{36}(,[0-9a-fA-F-]{36})*$',
    description: 'comma-separated merchant ids whose console sessions may open the queue dashboard (/console/queues); empty: nobody',
  }),
  CRYPTO_BASE_URL: Type.String({
    pattern: '^https?://',
    default: 'http://127.0.0.1:3002',
    description: 'crypto’s merchant API ({crypto_base_url}), where the console reads a merchant’s crypto balances, transactions and withdrawals',
  }),
  RECONCILE_INTERVAL_MS: Type.Integer({
    minimum: 10,
    maximum: 3_600_000,
    default: 30_000,
    description: 'how often work whose job was lost is looked for: stale refunds, KYC checks, batches and batch e-mails (receipts every twice that)',
  }),
  EXPIRY_INTERVAL_MS: Type.Integer({ minimum: 10, maximum: 4000, default: 1000, description: 'how often due invoices are expired (an invoice expires within this plus one batch of its expiresAt)' }),
});

/** The service's settings with the acquirers' (payments/registry.ts): each one's variables, and which takes each mode's payments. */
export function configSchemaWith(acquirers: readonly AcquirerSettings[]) {
  const names = acquirers.map((a) => a.name);
  return Type.Object({
    ...InvoicingOwnConfigSchema.properties,
    LIVE_PAYMENT_PROVIDER: Type.Optional(
      StringEnum(names, { description: `the acquirer that takes live payments (${names.join(', ')}); unset: live invoices are refused (PAYMENT_METHOD_NOT_ENABLED)` }),
    ),
    TEST_PAYMENT_PROVIDER: StringEnum(['sandbox', ...names], {
      default: 'sandbox',
      description: 'test mode’s provider: the sandbox, or an acquirer’s demo terminal (for T-Bank: TBANK_TEST_TERMINAL_KEY / TBANK_TEST_PASSWORD)',
    }),
    ...Object.assign({}, ...acquirers.map((a) => a.properties)),
  });
}

/** Loads and checks the configuration, the acquirers' settings included: every problem at once (ConfigError). */
export function loadConfigWith(acquirers: readonly AcquirerSettings[], env: NodeJS.ProcessEnv = process.env): InvoicingConfig {
  const config = loadConfig(configSchemaWith(acquirers), env) as InvoicingEnv & { LIVE_PAYMENT_PROVIDER?: string; TEST_PAYMENT_PROVIDER: string };
  const problems = acquirers.flatMap((a) => a.problems(config, { live: config.LIVE_PAYMENT_PROVIDER === a.name, test: config.TEST_PAYMENT_PROVIDER === a.name }));
  problems.push(...storageProblems(config));
  if (problems.length) throw new ConfigError(problems);
  return { ...config, PUBLIC_URL: publicUrlOf(config), CONSOLE_OPERATORS: config.CONSOLE_OPERATORS.split(',').filter(Boolean).map((id) => id.toLowerCase()) };
}

/**
 * The configuration as the service's code sees it. An acquirer reads its own variables from it
 * through its settings (e.g. payments/tbank/settings.ts: tbankSettingsOf), checked when it was loaded.
 */
export type InvoicingConfig = Omit<InvoicingEnv, 'PUBLIC_URL' | 'CONSOLE_OPERATORS'> & {
  PUBLIC_URL: string;
  CONSOLE_OPERATORS: string[];
  /** The acquirer taking live payments (a registered name), or none. */
  LIVE_PAYMENT_PROVIDER?: string;
  /** `sandbox`, or an acquirer's demo terminal. */
  TEST_PAYMENT_PROVIDER: string;
};

/**
 * Where receipt files go must work for every process that reads them: an S3 bucket needs all of
 * its settings; a local disk is read back only by the process that wrote it, so it is for one
 * process only and refused when more than one worker replica is configured (WORKER_REPLICAS, the
 * same number on the API and worker deployments).
 */
function storageProblems(config: InvoicingEnv): string[] {
  if (config.RECEIPTS_STORAGE === 's3') {
    const missing = (['S3_ENDPOINT', 'S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] as const).filter((name) => !config[name]);
    return missing.map((name) => `${name} must be set: RECEIPTS_STORAGE=s3 keeps receipt files in that bucket`);
  }
  if (config.WORKER_REPLICAS <= 1) return [];
  return [
    `RECEIPTS_STORAGE=local cannot serve WORKER_REPLICAS=${config.WORKER_REPLICAS}: each process would see only its own disk; ` +
      'set RECEIPTS_STORAGE=s3 with S3_ENDPOINT, S3_BUCKET, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY',
  ];
}

type InvoicingEnv = Static<typeof InvoicingOwnConfigSchema>;
