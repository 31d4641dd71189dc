import { Type } from '@sinclair/typebox';
import { baseConfigProperties, loadConfig, publicUrlOf } from '@pay/kit';

const Count = (def: number, description: string) => Type.Integer({ minimum: 1, maximum: 1000, default: def, description });
const Millis = (def: number, description: string) => Type.Integer({ minimum: 1, maximum: 3_600_000, default: def, description });

export const CryptoConfigSchema = Type.Object({
  ...baseConfigProperties,
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3002 }),
  PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://', description: 'crypto_base_url as merchants see it; default http://HOST:PORT' })),
  INVOICE_DEFAULT_TTL_MINUTES: Type.Integer({ minimum: 1, maximum: 10080, default: 60, description: 'crypto invoice validity when expiresInMinutes is omitted' }),
  WITHDRAWAL_MIN_AMOUNT: Type.String({ pattern: '^[0-9]+(\\.[0-9]{1,6})?$', default: '1', description: 'smallest withdrawal, per currency unit' }),
  WITHDRAWAL_DAILY_LIMIT: Type.String({ pattern: '^[0-9]+(\\.[0-9]{1,6})?$', default: '10000', description: 'rolling 24 h sum per merchant and currency' }),
  CONFIRMATIONS_TRON: Count(19, 'confirmations required on Tron'),
  CONFIRMATIONS_ETHEREUM: Count(12, 'confirmations required on Ethereum'),
  CONFIRMATIONS_BSC: Count(15, 'confirmations required on BSC'),
  SANDBOX_BLOCK_MS: Millis(1000, 'sandbox chain: time between blocks on every network'),
  TRACKER_INTERVAL_MS: Millis(1000, 'how often incoming transfers and invoice expiry are checked'),
  WITHDRAWAL_POLL_MS: Millis(1000, 'how often a sent withdrawal is checked for confirmations'),
  WITHDRAWAL_RECONCILE_MS: Millis(30_000, 'how often withdrawals left without a job (Redis lost it) are given one again'),
  OUTBOX_INTERVAL_MS: Millis(250, 'outbox relay poll period (a commit also wakes it at once)'),
  QUEUE_PREFIX: Type.String({ default: 'bull', pattern: '^[a-zA-Z0-9_:-]+$', description: 'BullMQ key prefix' }),
  RUN_WORKERS: Type.Boolean({ default: true, description: 'run the withdrawal worker, chain tracker and outbox relay in this process' }),
});

export type CryptoConfig = ReturnType<typeof loadCryptoConfig>;

export function loadCryptoConfig(env: NodeJS.ProcessEnv = process.env) {
  const config = loadConfig(CryptoConfigSchema, env);
  return { ...config, PUBLIC_URL: publicUrlOf(config) };
}
