import { randomUUID } from 'node:crypto';
import type { Credentials } from './api-client';
import { eventually } from './eventually';

async function json(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  const res = await fetch(url, { ...init, headers: { 'Content-Type': 'application/json', ...init.headers } });
  const body = (await res.json()) as any;
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/**
 * A merchant registered through a running crypto process (registration is its endpoint), with a
 * test-mode key: key-only calls send it alone, signed calls sign with the merchant's secret.
 */
export async function registerCryptoMerchant(base: string): Promise<Credentials & { merchantId: string }> {
  const reg = await json(`${base}/api/v1/merchants/register`, {
    method: 'POST',
    body: JSON.stringify({ companyName: 'Acme', email: `m-${randomUUID()}@example.test`, address: '1 Main St' }),
  });
  const test = await json(`${base}/api/v1/api-keys`, {
    method: 'POST',
    headers: { 'X-Api-Key': reg.data.apiKey.apiKey },
    body: JSON.stringify({ name: 'tests', isTestKey: true }),
  });
  return { merchantId: reg.data.merchantId, apiKey: test.data.apiKey, hmacSecret: reg.data.apiKey.hmacSecret };
}

/**
 * Gives a test-mode merchant `available` funds the way production does, through a crypto
 * process whose workers run (RUN_WORKERS): an invoice, a sandbox transfer to it, and waiting
 * for its confirmations. The merchant's fee is taken from the amount.
 */
export async function fundCryptoMerchant(base: string, m: Credentials, currency: string, amount: number, timeoutMs = 30_000): Promise<void> {
  const h = { 'X-Api-Key': m.apiKey };
  const inv = await json(`${base}/api/v1/invoices`, { method: 'POST', headers: h, body: JSON.stringify({ amount, currency }) });
  const t = await json(`${base}/api/v1/sandbox/transactions`, { method: 'POST', headers: h, body: JSON.stringify({ invoiceId: inv.data.id, amount }) });
  await eventually(async () => {
    const got = await json(`${base}/api/v1/transactions/${t.data.id}`, { headers: h });
    if (got.data.status !== 'Confirmed') throw new Error(`transfer ${t.data.id} not yet confirmed: ${got.data.status}`);
  }, timeoutMs, 50);
}
