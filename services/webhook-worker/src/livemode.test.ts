/**
 * Issue 28, finding 9: a test-mode event never passes for a live one. Crypto events of both
 * modes went to the one `webhookUrl`, signed with the one HMAC secret, and the merchant's
 * @pay/webhook-receiver accepted them. Real deliveries by the worker to real receivers on
 * loopback, each verifying with the receiver library exactly as a merchant's server does.
 */
import { setWebhookUrl } from '@pay/accounts';
import { startReceiver, type Receiver } from '@pay/testing';
// The merchant's library, as its own package's tests use it (no runtime dependencies).
import { verifyWebhook, WebhookVerificationError, type VerifyWebhookOptions } from '../../../packages/webhook-receiver/src/index';
import { attemptsToUrls } from '@pay/webhooks/test';
import { deliveryForSuite } from '../test/test-support';

const ctx = deliveryForSuite();
const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

/** A merchant's endpoint: verifies every request with the library, 200 when it takes the event, 400 with the refusal's code otherwise. */
async function merchantServer(secret: () => string, opts: VerifyWebhookOptions = {}) {
  const r = await startReceiver((req, res) => {
    try {
      const { event } = verifyWebhook(req.body, req.headers, secret(), opts);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ took: event.event, livemode: event.livemode }));
    } catch (err) {
      if (!(err instanceof WebhookVerificationError)) throw err;
      res.writeHead(400, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: err.code }));
    }
  });
  receivers.push(r);
  return r;
}

const transaction = { transaction: { id: 'tx-1', amount: 10 } };

describe('crypto events of test mode', () => {
  it('reach the live webhookUrl saying livemode: false, and the receiver refuses them unless told to accept test events', async () => {
    let hmac = '';
    const live = await merchantServer(() => hmac);
    const m = await ctx.merchant({ webhookUrl: `${live.url}/hooks` });
    hmac = m.hmacSecret;
    await ctx.event(m.test, 'transaction.confirmed', transaction, { source: 'crypto' });
    await ctx.event(m.live, 'transaction.confirmed', transaction, { source: 'crypto' });
    await ctx.round(ctx.worker());

    const answers = live.received.map((r) => JSON.parse(r.body).livemode);
    expect(answers.sort()).toEqual([false, true]);
    const attempts = await attemptsToUrls(ctx.db, [`${live.url}/hooks`]);
    expect(attempts.map((a) => [a.statusCode, a.responseBody]).sort()).toEqual([
      [200, JSON.stringify({ took: 'transaction.confirmed', livemode: true })],
      [400, JSON.stringify({ error: 'TEST_MODE_EVENT' })],
    ]);
  });

  it('go to testWebhookUrl instead when it is set, and only there; live events only to webhookUrl; clearing it sends them back', async () => {
    let hmac = '';
    const live = await merchantServer(() => hmac);
    const staging = await merchantServer(() => hmac, { acceptTestEvents: true });
    const m = await ctx.merchant({ webhookUrl: `${live.url}/live` });
    hmac = m.hmacSecret;
    await setWebhookUrl(ctx.accounts, m.merchantId, `${live.url}/live`, `${staging.url}/test`);
    await ctx.event(m.test, 'transaction.confirmed', transaction, { source: 'crypto' });
    await ctx.event(m.live, 'withdrawal.completed', { withdrawal: { id: 'w-1' } }, { source: 'crypto' });
    await ctx.round(ctx.worker());

    expect(live.received.map((r) => [r.path, r.headers['x-svc-event'], JSON.parse(r.body).livemode])).toEqual([['/live', 'withdrawal.completed', true]]);
    expect(staging.received.map((r) => [r.path, r.headers['x-svc-event'], JSON.parse(r.body).livemode])).toEqual([['/test', 'transaction.confirmed', false]]);
    const attempts = await attemptsToUrls(ctx.db, [`${live.url}/live`, `${staging.url}/test`]);
    expect(attempts.map((a) => a.statusCode)).toEqual([200, 200]);

    // Cleared: test events go to webhookUrl again (and are refused there by a live-only receiver).
    await setWebhookUrl(ctx.accounts, m.merchantId, `${live.url}/live`, null);
    await ctx.event(m.test, 'transaction.confirmed', transaction, { source: 'crypto' });
    await ctx.round(ctx.worker());
    expect(live.received.map((r) => r.headers['x-svc-event'])).toEqual(['withdrawal.completed', 'transaction.confirmed']);
    expect(staging.received).toHaveLength(1);
  });

  it('with only a testWebhookUrl, live events go nowhere (no delivery), test events to it', async () => {
    const staging = await merchantServer(() => hmac, { acceptTestEvents: true });
    const m = await ctx.merchant();
    const hmac = m.hmacSecret;
    await setWebhookUrl(ctx.accounts, m.merchantId, null, `${staging.url}/test`);
    const liveEvent = await ctx.event(m.live, 'transaction.confirmed', transaction, { source: 'crypto' });
    await ctx.event(m.test, 'transaction.confirmed', transaction, { source: 'crypto' });
    await ctx.round(ctx.worker());
    expect(await ctx.deliveriesOfEvent(liveEvent)).toEqual([]);
    expect(staging.received.map((r) => JSON.parse(r.body).livemode)).toEqual([false]);
  });
});

/**
 * Issue 28, deliverable 8: console webhooks are limited to one mode, as Stripe's endpoints are.
 * A webhook belongs to the mode of the console session that made it (the key's), and the
 * dispatcher sends it that mode's events only: a merchant testing with a test key gets its
 * test events at its test webhooks, and its live server never sees one.
 */
describe('console webhooks of each mode', () => {
  it('a live webhook receives only live events and a test webhook only test events, each verified by the receiver library', async () => {
    let liveSecret = '';
    let testSecret = '';
    const live = await merchantServer(() => liveSecret);
    const staging = await merchantServer(() => testSecret, { acceptTestEvents: true });
    const m = await ctx.merchant();
    const liveHook = await ctx.endpoint(m.live, { url: `${live.url}/live`, events: ['invoice.paid'] });
    const testHook = await ctx.endpoint(m.test, { url: `${staging.url}/test`, events: ['invoice.paid'] });
    [liveSecret, testSecret] = [liveHook.secret, testHook.secret];
    expect([liveHook.mode, testHook.mode]).toEqual(['live', 'test']);

    const paid = (id: string, livemode: boolean) => ({ invoice: { id, amount: 100, currency: 'RUB', livemode } });
    const testEvent = await ctx.event(m.test, 'invoice.paid', paid('inv-test', false));
    const liveEvent = await ctx.event(m.live, 'invoice.paid', paid('inv-live', true));
    await ctx.round(ctx.worker());

    const seen = (r: Receiver) => r.received.map((x) => [x.path, JSON.parse(x.body).livemode, JSON.parse(x.body).invoice.id]);
    expect(seen(live)).toEqual([['/live', true, 'inv-live']]);
    expect(seen(staging)).toEqual([['/test', false, 'inv-test']]);
    // Each event has one delivery, to its own mode's webhook; both were taken (200).
    expect((await ctx.deliveriesOfEvent(testEvent)).map((d) => [d.endpointId, d.lastStatusCode])).toEqual([[testHook.id, 200]]);
    expect((await ctx.deliveriesOfEvent(liveEvent)).map((d) => [d.endpointId, d.lastStatusCode])).toEqual([[liveHook.id, 200]]);
  });
});
