/**
 * The crypto service's hot paths: key-only invoice GET and create, and the signed withdrawal
 * on one balance (every request takes the same lock: worst case) and across 20 merchants
 * (the locks spread, as across a merchant base).
 */
import { signedHeaders } from '@pay/auth';
import { apiClient, fundCryptoMerchant, registerCryptoMerchant } from '@pay/testing';
import { startService } from '../lib/service';
import type { BenchConfig } from '../lib/config';
import { defineSuite, type BenchRequest } from '../lib/types';

const TRON_RECIPIENT = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';
// 20 for the spread withdrawals, one more for the single-balance ones: each withdrawal sums
// its merchant's last 24 hours of withdrawals, so one scenario's rows must not slow the other.
const MERCHANTS = 21;
const FUNDS = 900_000_000;

interface Merchant {
  /** A test-mode key: key-only calls send it alone; signed calls sign with the live key's secret. */
  apiKey: string;
  hmacSecret: string;
}

interface CryptoData {
  /** The first 20 share the spread withdrawals; the last has the single-balance ones. */
  merchants: Merchant[];
  /** An invoice of merchants[0], for the GET. */
  invoiceId: string;
}

const cryptoEnv = (config: BenchConfig, extra: Record<string, string>) => ({
  DATABASE_URL: config.databaseUrl,
  REDIS_URL: config.redisUrl,
  SECRETS_KEY: 'be'.repeat(32),
  LOG_LEVEL: 'info', // request logs on, as in production
  NODE_ENV: 'production',
  SANDBOX_BLOCK_MS: '5',
  TRACKER_INTERVAL_MS: '20',
  WITHDRAWAL_DAILY_LIMIT: '999999999',
  WITHDRAWALS_PER_HOUR: '1000000000', // thousands a minute from one merchant
  RATE_LIMIT_PER_SECOND: '100000', // measure the service, not the limiter
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000', // 20 registrations per run; back-to-back runs must not hit it
  QUEUE_PREFIX: `bench-${Date.now()}`,
  ...extra,
});

/** A test-mode merchant with a large available USDT_TRC20 balance, funded through the sandbox. */
async function fundedMerchant(base: string): Promise<Merchant> {
  const m = await registerCryptoMerchant(base);
  await fundCryptoMerchant(base, m, 'USDT_TRC20', FUNDS);
  return m;
}

const keyOnly = (m: Merchant) => ({ 'X-Api-Key': m.apiKey, 'Content-Type': 'application/json' });

// One count for every withdrawal of the run: each amount, so each signature, is distinct
// (replays are refused) across scenarios, warm-ups and the baseline's runs alike.
let withdrawals = 0;

function withdrawal(merchants: Merchant[]): () => BenchRequest {
  let turn = 0;
  return () => {
    const i = withdrawals++;
    const m = merchants[turn++ % merchants.length]!;
    // Written as decimal text first: float arithmetic (1 + i / 1e6) yields amounts such as
    // 1.0035860000000001, which the API rightly refuses (more than 6 decimals).
    const amount = Number(`${1 + Math.floor(i / 1e6)}.${String(i % 1e6).padStart(6, '0')}`);
    const body = JSON.stringify({ toAddress: TRON_RECIPIENT, amount, currency: 'USDT_TRC20' });
    const path = '/api/v1/withdrawals';
    return { method: 'POST', path, body, headers: { ...signedHeaders('crypto', m.hmacSecret, { method: 'POST', path, body }), ...keyOnly(m) } };
  };
}

export const cryptoSuite = defineSuite<CryptoData>({
  name: 'crypto',
  async setup(config, env = {}) {
    // Funding needs the chain tracker; the measured process runs the API alone, as an
    // API-only deployment would (RUN_WORKERS=false keeps the workers' load out of the figure).
    const funding = await startService('crypto', cryptoEnv(config, { RUN_WORKERS: 'true' }));
    let merchants: Merchant[];
    try {
      merchants = await Promise.all(Array.from({ length: MERCHANTS }, () => fundedMerchant(funding.url)));
    } finally {
      await funding.stop();
    }
    const svc = await startService('crypto', cryptoEnv(config, { RUN_WORKERS: 'false', ...env }), config.serviceNodeArgs);
    const invoice = await apiClient(() => svc.url, merchants[0]!, 'crypto').keyed('POST', '/api/v1/invoices', { amount: 125.5, currency: 'USDT_TRC20' });
    if (invoice.status !== 201) throw new Error(`invoice create failed: ${invoice.status} ${JSON.stringify(invoice.body)}`);
    return { url: svc.url, pid: svc.child.pid, data: { merchants, invoiceId: invoice.body.data.id }, logs: svc.logs, stop: svc.stop };
  },
  scenarios: [
    {
      name: 'crypto.get-invoice',
      connections: 100,
      baseline: 'crypto.select-invoice',
      requests: ({ merchants, invoiceId }) => {
        const request: BenchRequest = { method: 'GET', path: `/api/v1/invoices/${invoiceId}`, headers: keyOnly(merchants[0]!) };
        return () => request;
      },
    },
    {
      name: 'crypto.create-invoice',
      connections: 100,
      baseline: 'crypto.insert-invoice',
      requests: ({ merchants }) => {
        const request: BenchRequest = {
          method: 'POST',
          path: '/api/v1/invoices',
          headers: keyOnly(merchants[0]!),
          body: JSON.stringify({ amount: 49.99, currency: 'USDT_TRC20' }),
        };
        return () => request;
      },
    },
    {
      name: 'crypto.withdraw-1',
      connections: 50,
      baseline: 'crypto.locked-debit',
      requests: ({ merchants }) => withdrawal(merchants.slice(20, 21)),
    },
    {
      name: 'crypto.withdraw-20',
      connections: 50,
      baseline: 'crypto.locked-debit',
      requests: ({ merchants }) => withdrawal(merchants.slice(0, 20)),
    },
  ],
});
