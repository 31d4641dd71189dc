/**
 * Issue 32's "done when": a merchant's program written against the SDK manages its webhook
 * endpoints, rotates a secret, and verifies both signatures during the overlap, against the
 * running stack: the built invoicing and crypto services and webhook worker as
 * scripts/stack.sh starts them, deliveries to a real receiver on loopback, verified by
 * @pay/webhook-receiver (what the merchant installs) and compared with the SDK's own
 * `webhooks.generateTestHeader`.
 */
import { randomUUID } from 'node:crypto';
import { eventually, spawnBuiltService, startReceiver, type ReceivedRequest, type Receiver, type RunningService, BUILT_START_MS } from '@pay/testing';
import { verifyWebhook, WebhookVerificationError } from '../../webhook-receiver/src/index';
import { PayClient } from './index';

let crypto: RunningService;
let invoicing: RunningService;
let worker: RunningService;
let receiver: Receiver;
let pay: PayClient;

beforeAll(async () => {
  [crypto, invoicing, worker, receiver] = await Promise.all([
    spawnBuiltService('crypto', { RUN_WORKERS: 'false' }),
    spawnBuiltService('invoicing'),
    spawnBuiltService('webhook-worker', { WEBHOOK_POLL_INTERVAL_MS: '50' }),
    startReceiver(),
  ]);
  const reg = await new PayClient({ cryptoUrl: crypto.url }).crypto.merchants.register({ body: { companyName: 'Hooks Ltd', email: `hooks-${randomUUID()}@example.test`, address: '1 Main St' } });
  const live = new PayClient({ apiKey: reg.data.apiKey.apiKey, cryptoUrl: crypto.url });
  const test = await live.crypto.apiKeys.create({ body: { name: 'webhooks', isTestKey: true } });
  pay = new PayClient({ apiKey: test.data.apiKey, hmacSecret: reg.data.apiKey.hmacSecret, invoicingUrl: invoicing.url, cryptoUrl: crypto.url });
}, BUILT_START_MS);
afterAll(async () => {
  await Promise.all([crypto?.stop(), invoicing?.stop(), worker?.stop(), receiver?.close()]);
});

/** Pays a new test invoice in the sandbox, and waits for its invoice.paid delivery at the receiver (to `path`, when given). */
async function paidDelivery(path?: string): Promise<ReceivedRequest> {
  const { invoice } = await pay.invoicing.v2.invoices.create({ body: { amount: 100, description: 'Hook test' } });
  await pay.invoicing.sandbox.invoices.pay({ path: { invoiceId: invoice.id }, body: { payerBank: 'T-Bank' } });
  let delivery: ReceivedRequest | undefined;
  await eventually(() => {
    delivery = receiver.received.find((r) => r.body.includes(invoice.id) && (path === undefined || r.path === path));
    expect(delivery).toBeDefined();
  }, 30_000);
  return delivery!;
}

const refusal = (f: () => unknown): string => {
  try {
    f();
    return 'accepted';
  } catch (err) {
    if (err instanceof WebhookVerificationError) return err.code;
    throw err;
  }
};

it('manages its webhook endpoints, rotates a secret, and verifies both signatures during the overlap', async () => {
  // Create, list, change.
  const { webhook } = await pay.invoicing.v2.webhooks.create({ body: { url: `${receiver.url}/pay-hooks`, events: ['invoice.paid'], description: 'orders' } });
  const other = (await pay.invoicing.v2.webhooks.create({ body: { url: `${receiver.url}/other`, events: ['invoice.expired'] } })).webhook;
  const listed = await pay.invoicing.v2.webhooks.list.each({ query: { limit: 1 } }).toArray({ limit: 10 });
  expect(listed.map((w) => w.id).sort()).toEqual([webhook.id, other.id].sort());
  const { webhook: changed } = await pay.invoicing.v2.webhooks.update({ path: { webhookId: webhook.id }, body: { description: 'paid orders' } });
  expect(changed).toMatchObject({ id: webhook.id, description: 'paid orders', enabled: true });
  await pay.invoicing.v2.webhooks.del({ path: { webhookId: other.id } });
  const gone = await pay.invoicing.v2.webhooks.retrieve({ path: { webhookId: other.id } }).catch((e: unknown) => e);
  expect(pay.invoicing.v2.webhooks.retrieve.isError(gone) && gone.code).toBe('NOT_FOUND');

  // Before the rotation: one secret signs.
  const before = await paidDelivery();
  expect(verifyWebhook(before.body, before.headers, webhook.secret, { acceptTestEvents: true }).event).toMatchObject({ event: 'invoice.paid' });
  expect(before.headers['x-svc-signatures']).toBeUndefined();

  // Rotate with an hour's overlap: both secrets sign each delivery.
  const rotated = await pay.invoicing.v2.webhooks.rotateSecret({ path: { webhookId: webhook.id }, body: { overlapSeconds: 3600 } });
  const next = rotated.secret;
  expect(next).not.toBe(webhook.secret);
  expect(Date.parse(rotated.previousSecretExpiresAt!) - Date.now()).toBeGreaterThan(3500_000);
  const during = await paidDelivery();
  // A receiver still on the old secret, one already on the new, and one holding both while it moves: all accept.
  for (const secrets of [webhook.secret, next, [webhook.secret, next]]) {
    expect(verifyWebhook(during.body, during.headers, secrets, { acceptTestEvents: true }).deliveryId).toBe(during.headers['x-svc-delivery']);
  }
  expect(refusal(() => verifyWebhook(during.body, during.headers, 'whsec_someone_else', { acceptTestEvents: true }))).toBe('INVALID_SIGNATURE');
  // Exactly what the SDK's test helper makes for the same body, time, delivery and secrets.
  const header = (name: string) => during.headers[name] as string;
  expect(pay.webhooks.generateTestHeader(during.body, next, { previousSecret: webhook.secret, timestamp: Number(header('x-svc-timestamp')), deliveryId: header('x-svc-delivery') })).toEqual({
    'X-SVC-Signature': header('x-svc-signature'),
    'X-SVC-Signatures': header('x-svc-signatures'),
    'X-SVC-Timestamp': header('x-svc-timestamp'),
    'X-SVC-Delivery': header('x-svc-delivery'),
  });

  // Rotating again with no overlap: only the newest secret signs; the first one is refused.
  const last = (await pay.invoicing.v2.webhooks.rotateSecret({ path: { webhookId: webhook.id }, body: { overlapSeconds: 0 } })).secret;
  const after = await paidDelivery();
  expect(verifyWebhook(after.body, after.headers, last, { acceptTestEvents: true }).event).toMatchObject({ event: 'invoice.paid' });
  expect(refusal(() => verifyWebhook(after.body, after.headers, webhook.secret, { acceptTestEvents: true }))).toBe('INVALID_SIGNATURE');
}, 180_000);

it("lists a webhook's deliveries with the worker's attempts, resends one, and replays the events since a time", async () => {
  const { webhook } = await pay.invoicing.v2.webhooks.create({ body: { url: `${receiver.url}/deliveries`, events: ['invoice.paid'] } });
  // Now, not earlier: the first test's events (to its own webhook) are before it.
  const since = new Date().toISOString();
  const sent = await paidDelivery('/deliveries');
  const deliveryId = sent.headers['x-svc-delivery'] as string;
  // Each path of a delivery is its own: only those to this webhook's URL count here.
  const toHook = () => receiver.received.filter((r) => r.path === '/deliveries' && r.headers['x-svc-delivery'] === deliveryId);

  // The worker's attempt, as the merchant reads it: succeeded, its answer recorded.
  let listed: Awaited<ReturnType<typeof pay.invoicing.v2.webhookDeliveries.list>>['data'] = [];
  await eventually(async () => {
    listed = (await pay.invoicing.v2.webhookDeliveries.list({ path: { webhookId: webhook.id }, query: { status: 'succeeded' } })).data;
    expect(listed.map((d) => d.id)).toContain(deliveryId);
  }, 30_000);
  const delivery = listed.find((d) => d.id === deliveryId)!;
  expect(delivery).toMatchObject({ event: 'invoice.paid', status: 'succeeded', attempts: 1, lastStatusCode: 200, eventId: JSON.parse(sent.body).id });
  expect(delivery.attemptHistory).toEqual([expect.objectContaining({ statusCode: 200, succeeded: true, manual: false, error: null, url: `${receiver.url}/deliveries` })]);

  // A resend: the same delivery (same X-SVC-Delivery, same body) again, recorded as a manual attempt.
  const resent = await pay.invoicing.v2.webhookDeliveries.resend({ path: { webhookId: webhook.id, deliveryId } });
  expect(resent.delivery.id).toBe(deliveryId);
  await eventually(() => expect(toHook()).toHaveLength(2), 30_000);
  expect(toHook()[1]!.body).toBe(sent.body);
  await eventually(async () => {
    const [again] = (await pay.invoicing.v2.webhookDeliveries.list({ path: { webhookId: webhook.id } })).data.filter((d) => d.id === deliveryId);
    expect(again!.attemptHistory.map((a) => [a.manual, a.succeeded])).toEqual([[false, true], [true, true]]);
  }, 30_000);

  // A webhook made after the event gets it only when the merchant replays since a time; a second replay makes nothing new.
  const late = (await pay.invoicing.v2.webhooks.create({ body: { url: `${receiver.url}/late`, events: ['invoice.paid'] } })).webhook;
  const replay = await pay.invoicing.v2.webhookEvents.replay({ path: { webhookId: late.id }, body: { since } });
  expect(replay.replay).toMatchObject({ since, created: 1, resent: 0 });
  await eventually(() => expect(receiver.received.filter((r) => r.path === '/late').map((r) => JSON.parse(r.body).id)).toEqual([JSON.parse(sent.body).id]), 30_000);
  expect((await pay.invoicing.v2.webhookEvents.replay({ path: { webhookId: late.id }, body: { since } })).replay).toMatchObject({ created: 0 });
}, 180_000);
