import { randomUUID } from 'node:crypto';
import { apiClient, expectStatus, type Credentials } from './api-client';
import { eventually } from './eventually';

export interface RegisteredMerchant extends Credentials {
  merchantId: string;
  /** The live key registration gave; `apiKey` is a test-mode key made with it (sandbox work). */
  liveKey: string;
}

/**
 * A merchant registered through a running crypto process (registration is its endpoint, as a
 * new merchant does it), with a test-mode key: for tests whose services run on a database of
 * their own, where no fixture has made one. Key-only calls send `apiKey` alone; signed calls
 * sign with the merchant's secret.
 */
export async function registerCryptoMerchant(base: string, companyName = 'Acme Ltd'): Promise<RegisteredMerchant> {
  const email = `m-${randomUUID()}@example.test`;
  const reg = expectStatus(await apiClient(base).keyed('POST', '/api/v1/merchants/register', { companyName, email, address: '1 Main St' }), 201, 'register').data;
  const live = apiClient(base, { apiKey: reg.apiKey.apiKey });
  const test = expectStatus(await live.keyed('POST', '/api/v1/api-keys', { name: 'tests', isTestKey: true }), 201, 'test key').data;
  return { merchantId: reg.merchantId, apiKey: test.apiKey, hmacSecret: reg.apiKey.hmacSecret, liveKey: reg.apiKey.apiKey };
}

/**
 * Gives a test-mode merchant `available` funds the way production does, through a crypto
 * process whose workers run (RUN_WORKERS): an invoice, a sandbox transfer to it, and waiting
 * for its confirmations. The merchant's fee is taken from the amount.
 */
export async function fundCryptoMerchant(base: string, m: Pick<Credentials, 'apiKey'>, currency: string, amount: number, timeoutMs = 30_000): Promise<void> {
  const client = apiClient(base, m);
  const inv = expectStatus(await client.keyed('POST', '/api/v1/invoices', { amount, currency }), 201, 'invoice').data;
  const t = expectStatus(await client.keyed('POST', '/api/v1/sandbox/transactions', { invoiceId: inv.id, amount }), 201, 'sandbox transfer').data;
  await eventually(async () => {
    const got = expectStatus(await client.keyed('GET', `/api/v1/transactions/${t.id}`), 200, 'transaction').data;
    if (got.status !== 'Confirmed') throw new Error(`transfer ${t.id} not yet confirmed: ${got.status}`);
  }, timeoutMs, 50);
}
