import { Type } from '@sinclair/typebox';
import { baseConfigProperties, ConfigError, loadConfig, publicUrlOf } from '@pay/kit';
import { DEFAULT_LIVE_MINIMUMS, parseMinimums } from './withdrawals/minimums';

const Count = (def: number, description: string) => Type.Integer({ minimum: 1, maximum: 1000, default: def, description });
const Gwei = (def: string, description: string) => Type.String({ pattern: '^[0-9]+(\\.[0-9]{1,9})?$', default: def, description });
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
  QUEUE_PREFIX: Type.String({ default: 'bull', pattern: '^[a-zA-Z0-9_:-]+$', description: 'BullMQ key prefix' }),
  EVM_RPC_URL_ETHEREUM: Type.Optional(Type.String({ pattern: '^https?://', description: 'JSON-RPC endpoints of Ethereum, comma-separated (https://, or http:// on loopback): live Ethereum tokens are enabled only when set; with several, a deposit counts only when all agree' })),
  EVM_RPC_URL_BSC: Type.Optional(Type.String({ pattern: '^https?://', description: 'JSON-RPC endpoints of BSC, comma-separated (https://, or http:// on loopback): live BSC tokens are enabled only when set; with several, a deposit counts only when all agree' })),
  USDT_CONTRACT_ETHEREUM: Type.Optional(Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'USDT token contract on Ethereum: live USDT_ERC20 (its decimals are read from it)' })),
  USDC_CONTRACT_ETHEREUM: Type.Optional(Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'USDC token contract on Ethereum: live USDC_ERC20 (its decimals are read from it)' })),
  USDT_CONTRACT_BSC: Type.Optional(Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'USDT token contract on BSC: live USDT_BEP20 (its decimals are read from it)' })),
  USDC_CONTRACT_BSC: Type.Optional(Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'USDC token contract on BSC: live USDC_BEP20 (its decimals are read from it)' })),
  DEPOSIT_XPUB: Type.Optional(Type.String({ pattern: '^[xt]pub[1-9A-HJ-NP-Za-km-z]{100,112}$', description: 'BIP-32 extended public key: live deposit addresses are xpub/0/index' })),
  EVM_MAX_BLOCK_RANGE: Count(500, 'live watcher: most blocks asked of eth_getLogs at once'),
  EVM_RESCAN_BLOCKS: Count(64, 'live watcher: the newest blocks scanned again on every pass, so one empty or lagging eth_getLogs answer never skips a deposit'),
  EVM_WATCH_INTERVAL_MS: Millis(2000, 'live watcher: how often each network is followed to its head'),
  EVM_LEASE_MS: Millis(15_000, 'live watcher: a leader that has not renewed its lease for this long is replaced by another replica'),
  EVM_DROPPED_AFTER_MS: Millis(3_600_000, 'a detected deposit missing from the chain this long after it was seen (reorganised away, never mined again) fails'),
  SOLVENCY_INTERVAL_MS: Millis(300_000, 'live chain: how often the replica leading a network compares what is on chain with what the ledger owes (metrics crypto_solvency_*)'),
  PAYOUT_STUCK_AFTER_MS: Millis(600_000, 'a payout not mined this long after it was sent is replaced at the same nonce with a higher fee'),
  PAYOUT_MAX_FEE_GWEI_ETHEREUM: Gwei('3', 'fee ceiling of an Ethereum payout (maxFeePerGas, gwei): a replacement never goes above it; WITHDRAWAL_MINIMUMS are sized for it'),
  PAYOUT_MAX_FEE_GWEI_BSC: Gwei('1', 'fee ceiling of a BSC payout (maxFeePerGas, gwei): a replacement never goes above it; WITHDRAWAL_MINIMUMS are sized for it'),
  PAYOUT_GAS_LIMIT: Type.Integer({ minimum: 21_000, maximum: 10_000_000, default: 100_000, description: 'gas limit of a payout token transfer' }),
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
