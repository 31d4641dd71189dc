import { Type } from '@sinclair/typebox';
import { baseConfigProperties, ConfigError, loadConfig, publicUrlOf } from '@pay/runtime';
import { DEFAULT_LIVE_MINIMUMS, parseMinimums } from './modules/withdrawals/minimums';
import { liveChainSettings } from './chains/registry';

const Count = (def: number, description: string) => Type.Integer({ minimum: 1, maximum: 1000, default: def, description });
const Millis = (def: number, description: string) => Type.Integer({ minimum: 1, maximum: 3_600_000, default: def, description });

export const CryptoConfigSchema = Type.Object({
  ...baseConfigProperties,
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3002 }),
  PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://', description: 'crypto_base_url as merchants see it; default http://HOST:PORT' })),
  INVOICE_DEFAULT_TTL_MINUTES: Type.Integer({ minimum: 1, maximum: 10080, default: 60, description: 'crypto invoice validity when expiresInMinutes is omitted' }),
  WITHDRAWAL_MIN_AMOUNT: Type.String({ pattern: '^[0-9]+(\\.[0-9]{1,6})?$', default: '1', description: 'smallest test-mode withdrawal (live: WITHDRAWAL_MINIMUMS)' }),
  WITHDRAWAL_MINIMUMS: Type.String({
    default: DEFAULT_LIVE_MINIMUMS,
    description: 'smallest live withdrawal per currency, CURRENCY=amount comma-separated over the defaults; sized so 1% pays the gas at PAYOUT_MAX_FEE_GWEI_*',
  }),
  WITHDRAWALS_PER_HOUR: Type.Integer({ minimum: 1, maximum: 1_000_000_000, default: 100, description: 'withdrawals one merchant may create per hour, in each mode' }),
  WITHDRAWAL_DAILY_LIMIT: Type.String({ pattern: '^[0-9]+(\\.[0-9]{1,6})?$', default: '10000', description: 'rolling 24 h sum per merchant and currency' }),
  CONFIRMATIONS_TRON: Count(19, 'confirmations required on Tron'),
  CONFIRMATIONS_ETHEREUM: Count(12, 'confirmations required on Ethereum'),
  CONFIRMATIONS_BSC: Count(15, 'confirmations required on BSC'),
  SANDBOX_BLOCK_MS: Millis(1000, 'sandbox chain: time between blocks on every network'),
  TRACKER_INTERVAL_MS: Millis(1000, 'how often incoming transfers and invoice expiry are checked'),
  WITHDRAWAL_POLL_MS: Millis(1000, 'how often a sent withdrawal is checked for confirmations'),
  OUTBOX_INTERVAL_MS: Millis(250, 'outbox relay poll period (a commit also wakes it at once)'),
  RECONCILE_INTERVAL_MS: Millis(30_000, 'how often withdrawals still Pending or Processing get their job again (same job id: one still queued is not doubled)'),
  QUEUE_PREFIX: Type.String({ default: 'bull', pattern: '^[a-zA-Z0-9_:{}-]+$', description: 'BullMQ key prefix' }),
  // Each live chain's own settings (chains/evm/settings.ts: EVM_RPC_URL_*, token contracts, DEPOSIT_XPUB, PAYOUT_*…).
  ...liveChainSettings,
  SOLVENCY_INTERVAL_MS: Millis(300_000, 'live chain: how often the replica leading a network compares what is on chain with what the ledger owes (metrics crypto_solvency_*)'),
  PAYOUT_PRIVATE_KEY_FILE: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        "a file holding the hot wallet's key (32 bytes hex), readable by its owner alone: live withdrawals are sent from it. Only on the workers-only process (SERVE_API=false); read at start where a live network is configured",
    }),
  ),
  RUN_WORKERS: Type.Boolean({ default: true, description: 'run the withdrawal worker, chain tracker and outbox relay in this process' }),
  SERVE_API: Type.Boolean({
    default: true,
    description: 'serve the merchant API and pages here; false: only /healthz, /readyz and /metrics, for a workers-only process (the one holding PAYOUT_PRIVATE_KEY_FILE)',
  }),
});

export type CryptoConfig = ReturnType<typeof loadCryptoConfig>;

export function loadCryptoConfig(env: NodeJS.ProcessEnv = process.env) {
  const config = loadConfig(CryptoConfigSchema, env);
  const problems: string[] = [];
  if (!config.SERVE_API && !config.RUN_WORKERS) problems.push('SERVE_API=false with RUN_WORKERS=false leaves this process nothing to do: set one of them to true');
  // The hot wallet's key never sits in a process that serves the API (a bug or an exposed
  // route there would be one step from it), and never in the environment (/proc/<pid>/environ).
  if (env.PAYOUT_PRIVATE_KEY) {
    problems.push(
      "PAYOUT_PRIVATE_KEY is not read: a variable stays in /proc/<pid>/environ and in every child process. Unset it, put the key in a file readable by its owner alone (chmod 600), and set PAYOUT_PRIVATE_KEY_FILE to that file's path on the workers-only process (SERVE_API=false)",
    );
  }
  if (config.PAYOUT_PRIVATE_KEY_FILE && config.SERVE_API) {
    problems.push(
      "PAYOUT_PRIVATE_KEY_FILE is set on a process that serves the API (SERVE_API is true): the hot wallet's key belongs to the workers-only process alone. Unset it here and give it to a process with SERVE_API=false and RUN_WORKERS=true (Kubernetes: the crypto-workers Deployment; scripts/stack.sh: crypto-workers)",
    );
  }
  if (problems.length > 0) throw new ConfigError(problems);
  let minimums;
  try {
    minimums = parseMinimums(config.WITHDRAWAL_MINIMUMS);
  } catch (err) {
    throw new ConfigError([(err as Error).message]);
  }
  return { ...config, PUBLIC_URL: publicUrlOf(config), liveWithdrawalMinimums: minimums };
}
