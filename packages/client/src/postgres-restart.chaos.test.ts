/**
 * A create sent while Postgres restarts under a real invoicing process: the service answers
 * 503 with Retry-After (it did nothing), the SDK waits and sends again, signed anew, under the
 * one Idempotency-Key it chose, until Postgres is back: the call resolves with the invoice,
 * and the merchant has exactly one invoice for it.
 */
import { createApiKey, registerMerchant } from '@pay/accounts';
import { createAccountsDb } from '@pay/accounts/src/testing';
import { SecretBox } from '@pay/auth';
import { eventually, startChaosStack } from '@pay/testing';
import { randomUUID } from 'node:crypto';
import { PayClient } from './index';
import { recordingFetch } from './recording-fetch';

let svcLogs = () => '(not started)';

it('retries a create through a Postgres restart to success, with one invoice made', async () => {
  const stack = await startChaosStack('sdk-postgres-restart');
  try {
    const accounts = createAccountsDb(stack.postgres.url, 1);
    const secrets = SecretBox.fromEnv(process.env.SECRETS_KEY);
    const reg = await registerMerchant(accounts, secrets, { companyName: 'Restart Ltd', email: `r-${randomUUID()}@example.test`, address: '1 Main St' });
    const test = await createApiKey(accounts, reg.merchant.id, { name: 'sdk', isTestKey: true });
    await accounts.$disconnect();
    const svc = await stack.spawn('invoicing');
    svcLogs = svc.logs;
    const { fetch, log } = recordingFetch();
    const client = new PayClient({ apiKey: test.apiKeyValue, hmacSecret: reg.hmacSecret, invoicingUrl: svc.url, fetch, maxRetries: 30 });
    // Warm: the key is known and the pools are open before the outage.
    await client.invoicing.listInvoices();

    const restarted = stack.postgres.restart(3000);
    await eventually(async () => expect((await globalThis.fetch(`${svc.url}/readyz`)).status).toBe(503), 15_000);
    const created = await client.invoicing.createInvoice({ body: { amount: 250, description: 'sent during the restart' } });
    await restarted;

    const attempts = log.filter((e) => e.method === 'POST');
    expect(attempts.filter((e) => e.status === 503).length).toBeGreaterThan(0); // the outage was met
    expect(attempts.at(-1)!.status).toBe(201);
    expect(new Set(attempts.map((e) => e.headers['idempotency-key'])).size).toBe(1);
    expect(new Set(attempts.map((e) => e.headers['x-signature'])).size).toBe(attempts.length);
    // Exactly one invoice made, as the API lists the merchant's (its one key is a test key, so every invoice it made is listed).
    const listed = await client.invoicing.listInvoices({ query: { limit: 10 } });
    expect(listed.data.map((i) => i.id)).toEqual([created.invoice.id]);
  } catch (err) {
    // The service's own account of the outage, for a failure that is the service's.
    (err as Error).message += `\n--- invoicing's last log lines ---\n${svcLogs().split('\n').slice(-40).join('\n')}`;
    throw err;
  } finally {
    await stack.close();
  }
}, 180_000);
