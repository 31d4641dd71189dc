/**
 * Invoicing API v2 hot paths, signed like a merchant's client signs them: create an SBP
 * invoice (its QR is drawn and stored at create) and read one by id.
 */
import { randomUUID } from 'node:crypto';
import { createApiKey, registerMerchant } from '@pay/accounts';
import { createAccountsDb } from '@pay/accounts/src/testing';
import { SecretBox, signedHeaders } from '@pay/auth';
import { startService } from '../lib/service';
import type { BenchConfig } from '../lib/config';
import { defineSuite, type BenchRequest } from '../lib/types';

const SECRETS_KEY = 'be'.repeat(32);

interface Merchant {
  /** A test-mode key. */
  apiKey: string;
  hmacSecret: string;
  /** The live key, for merchant-wide settings (the enabled currencies). */
  liveKey: string;
}

interface InvoicingData {
  merchant: Merchant;
  invoiceId: string;
}

export const invoicingEnv = (config: BenchConfig) => ({
  DATABASE_URL: config.databaseUrl,
  REDIS_URL: config.redisUrl,
  SECRETS_KEY,
  LOG_LEVEL: 'info', // request logs on, as in production
  NODE_ENV: 'production',
  RUN_WORKERS: 'false', // the API alone, as an API-only deployment runs
  RATE_LIMIT_PER_SECOND: '100000', // measure the service, not the limiter
  QUEUE_PREFIX: `bench-${Date.now()}`,
});

/** A test-mode merchant, registered through the accounts package (registration is a crypto endpoint). */
export async function merchant(config: BenchConfig): Promise<Merchant> {
  const accounts = createAccountsDb(config.databaseUrl, 1);
  try {
    const box = SecretBox.fromEnv(SECRETS_KEY);
    const r = await registerMerchant(accounts, box, { companyName: 'Bench', email: `bench-${randomUUID()}@example.test`, address: 'x' });
    const test = await createApiKey(accounts, r.merchant.id, { name: 'bench', isTestKey: true });
    return { apiKey: test.apiKeyValue, hmacSecret: r.hmacSecret, liveKey: r.apiKeyValue };
  } finally {
    await accounts.$disconnect();
  }
}

// A signature is accepted once, and two GETs of one path signed in the same millisecond are
// the same signature: every request gets its own millisecond, running ahead of the clock by
// at most (requests per second - 1000) per second, far inside the 300 s window.
let lastTimestamp = 0;
const nextTimestamp = () => (lastTimestamp = Math.max(Date.now(), lastTimestamp + 1));

function signed(m: Merchant, method: 'GET' | 'POST', path: string, body = ''): BenchRequest {
  return {
    method,
    path,
    ...(body ? { body } : {}),
    headers: {
      'x-api-key': m.apiKey,
      ...(body ? { 'content-type': 'application/json' } : {}),
      ...signedHeaders('v2', m.hmacSecret, { method, path, body, now: nextTimestamp() }),
    },
  };
}

let created = 0;

/**
 * A distinct amount per request, written as decimal text first: float arithmetic
 * (100 + n / 100) gives amounts such as 100.07000000000001, which the API rightly refuses.
 */
function nextAmount(): { n: number; amount: number } {
  const n = created++ % 1e6;
  return { n, amount: Number(`${100 + Math.floor(n / 100)}.${String(n % 100).padStart(2, '0')}`) };
}

export const invoicingSuite = defineSuite<InvoicingData>({
  name: 'invoicing',
  async setup(config, env = {}) {
    const m = await merchant(config);
    const svc = await startService('invoicing', { ...invoicingEnv(config), ...env }, config.serviceNodeArgs);
    const first = signed(m, 'POST', '/api/v2/invoices', JSON.stringify({ amount: 1500.5, description: 'Bench' }));
    const res = await fetch(`${svc.url}${first.path}`, { method: 'POST', headers: first.headers, body: first.body });
    const body = (await res.json()) as { invoice?: { id: string } };
    if (res.status !== 201 || !body.invoice) throw new Error(`invoice create failed: ${res.status} ${JSON.stringify(body)}\n${svc.logs().slice(-2000)}`);
    return { url: svc.url, pid: svc.child.pid, data: { merchant: m, invoiceId: body.invoice.id }, logs: svc.logs, stop: svc.stop };
  },
  scenarios: [
    {
      name: 'invoicing.v1-create',
      connections: 100,
      baseline: 'invoicing.insert-invoice-v1',
      // v1: the API key only, a currency and metadata returned as given (its answer has no QR: the first view draws it).
      requests: ({ merchant: m }) => () => {
        const { n, amount } = nextAmount();
        return {
          method: 'POST',
          path: '/api/v1/invoices',
          headers: { 'x-api-key': m.apiKey, 'content-type': 'application/json' },
          body: JSON.stringify({ amount, currency: 'RUB', description: 'Bench order', metadata: { orderId: `o-${n}`, source: 'bench' } }),
        };
      },
    },
    {
      name: 'invoicing.v2-get',
      connections: 100,
      baseline: 'invoicing.select-invoice',
      requests: ({ merchant: m, invoiceId }) => () => signed(m, 'GET', `/api/v2/invoices/${invoiceId}`),
    },
    {
      name: 'invoicing.v2-create',
      connections: 100,
      baseline: 'invoicing.insert-invoice',
      requests: ({ merchant: m }) => () => {
        const { amount } = nextAmount();
        return signed(m, 'POST', '/api/v2/invoices', JSON.stringify({ amount, description: 'Bench order' }));
      },
    },
  ],
});
