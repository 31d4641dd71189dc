import { Type } from '@sinclair/typebox';
import { baseConfigProperties, loadConfig, publicUrlOf } from '@pay/kit';

export const InvoicingConfigSchema = Type.Object({
  ...baseConfigProperties,
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3001 }),
  QUEUE_PREFIX: Type.String({ default: 'bull', description: 'BullMQ key prefix; the same as the webhook worker' }),
  PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://', description: 'base_url as merchants see it; default http://HOST:PORT' })),
  RUN_WORKERS: Type.Boolean({ default: true, description: 'run expiry, the outbox relay, the KYC check worker, the reconcilers and housekeeping in this process' }),
  EXPIRY_INTERVAL_MS: Type.Integer({ minimum: 10, maximum: 4000, default: 1000, description: 'how often due invoices are expired (an invoice expires within this plus one batch of its expiresAt)' }),
});

export function loadInvoicingConfig(env: NodeJS.ProcessEnv = process.env) {
  const config = loadConfig(InvoicingConfigSchema, env);
  return { ...config, PUBLIC_URL: publicUrlOf(config) };
}
export type InvoicingConfig = ReturnType<typeof loadInvoicingConfig>;
