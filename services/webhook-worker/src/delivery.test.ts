import { createHmac } from 'node:crypto';
import { eventually, startReceiver, type Receiver } from '@pay/testing';
import { claimDue, dispatchEvents, queueDepth, heartbeat, reenableAndReplay, requestResend, rotateEndpointSecret, RETRY_DELAYS_MS, RETRY_JITTER, MAX_ATTEMPTS, AUTO_DISABLE_AFTER_MS } from '@pay/webhooks';
import { deliveriesToEndpoint, disableEndpoint, endpointState } from '@pay/webhooks/test';
import { merchantsWithWebhookUrl } from '@pay/accounts';
import { createAccountsDb } from '@pay/accounts/src/testing';
import { deliveryForSuite } from '../test/test-support';

/** A webhook subscribed to every kind these tests record (the worker knows no kind: the services' catalogues name them), crypto's included, which go to the merchant's webhookUrl whatever a console webhook subscribes to. */
const EVERY_KIND = ['invoice.paid', 'invoice.expired', 'kyc.passed', 'withdrawal.completed'];

const ctx = deliveryForSuite();
let receiver: Receiver;
beforeEach(async () => {
  receiver = await startReceiver();
});
afterEach(async () => {
  await receiver.close();
});

const paid = (n = 1) => ({
  invoice: { id: '7b0c3e5a-4a59-4c1b-9a53-0e0f1d8f9a01', invoiceNumber: `INV-100${n}-AB`, amount: 1500.5, status: 'PAID', paidAt: '2026-11-23T10:00:00.000Z', metadata: { order: n }, customerEmail: 'c@example.com', customerPhone: '+79990000000' },
});
const sign = (secret: string, ts: string, body: string) => createHmac('sha256', secret).update(ts + body).digest('hex');

describe('a delivery', () => {
  it('is a POST with exactly the spec headers, a signature over timestamp + raw body, and the recorded body', async () => {
    const m = await ctx.merchant();
    const hook = await ctx.endpoint(m.test, { url: `${receiver.url}/hooks`, events: ['invoice.paid'] });
    const eventId = await ctx.event(m.test, 'invoice.paid', paid());
    const w = ctx.worker();
    await ctx.round(w);

    expect(receiver.received).toHaveLength(1);
    const r = receiver.received[0]!;
    const [delivery] = await ctx.deliveriesOfEvent(eventId);
    expect(r.method).toBe('POST');
    expect(r.path).toBe('/hooks');
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['x-svc-event']).toBe('invoice.paid');
    expect(r.headers['x-svc-delivery']).toBe(delivery!.id);
    expect(r.headers['x-svc-timestamp']).toBe(String(ctx.clock.now().getTime()));
    expect(r.headers['x-svc-signature']).toBe(sign(hook.secret, r.headers['x-svc-timestamp'] as string, r.body));
    expect(r.headers['x-svc-signature']).toMatch(/^[0-9a-f]{64}$/);
    // Only the transport's own headers besides the spec's.
    expect(Object.keys(r.headers).filter((h) => h.startsWith('x-')).sort()).toEqual(['x-svc-delivery', 'x-svc-event', 'x-svc-signature', 'x-svc-timestamp']);
    // The spec's envelope and object, then what issue 32 added: the event's id (the same on every delivery of it), type, createdAt and source.
    const at = ctx.clock.now();
    expect(r.body).toBe(
      JSON.stringify({ event: 'invoice.paid', timestamp: at.getTime(), livemode: false, id: eventId, type: 'invoice.paid', createdAt: at.toISOString(), source: 'invoicing', ...paid() }),
    );

    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 1, nextAttemptAt: null, lastStatusCode: 200, lastResponseBody: 'ok', leaseOwner: null });
    const attempts = await ctx.attemptsOfDelivery(delivery!.id);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ statusCode: 200, succeeded: true, manual: false, responseBody: 'ok', url: `${receiver.url}/hooks`, error: null });
    expect(attempts[0]!.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('keeps decimal digits and key order exactly as recorded', async () => {
    const m = await ctx.merchant();
    await ctx.endpoint(m.test, { url: receiver.url, events: ['invoice.paid'] });
    const { JsonDecimal } = await import('@pay/money');
    await ctx.event(m.test, 'invoice.paid', { invoice: { zeta: 1, amount: new JsonDecimal('12345678901234567.89'), alpha: 2 } });
    await ctx.round(ctx.worker());
    expect(receiver.received[0]!.body).toMatch(/"invoice":\{"zeta":1,"amount":12345678901234567\.89,"alpha":2\}\}$/);
  });

  it('goes to every webhook of the merchant subscribed to the kind, in the event mode only', async () => {
    const m = await ctx.merchant();
    const other = await ctx.merchant();
    const second = await startReceiver();
    try {
      await ctx.endpoint(m.test, { url: `${receiver.url}/a`, events: ['invoice.paid', 'invoice.expired'] });
      await ctx.endpoint(m.test, { url: `${second.url}/b`, events: ['invoice.paid'] });
      await ctx.endpoint(m.live, { url: `${receiver.url}/live`, events: [...EVERY_KIND] });
      await ctx.endpoint(other.test, { url: `${receiver.url}/other`, events: [...EVERY_KIND] });
      await ctx.event(m.test, 'invoice.paid', paid());
      await ctx.event(m.test, 'invoice.expired', { invoice: { id: 'x' } });
      await ctx.event(m.test, 'kyc.passed', { session: { id: 'y' } });
      await ctx.round(ctx.worker());
      expect(receiver.received.map((r) => `${r.path} ${r.headers['x-svc-event']}`).sort()).toEqual(['/a invoice.expired', '/a invoice.paid']);
      expect(second.received.map((r) => `${r.path} ${r.headers['x-svc-event']}`)).toEqual(['/b invoice.paid']);
      // Two deliveries of one event have different ids.
      expect(new Set([...receiver.received, ...second.received].map((r) => r.headers['x-svc-delivery'])).size).toBe(3);
    } finally {
      await second.close();
    }
  });

  it('of a crypto event goes to the merchant webhookUrl signed with its HMAC secret; none without a URL', async () => {
    const m = await ctx.merchant({ webhookUrl: `${receiver.url}/crypto` });
    const bare = await ctx.merchant();
    await ctx.endpoint(m.test, { url: `${receiver.url}/console`, events: [...EVERY_KIND] });
    const e1 = await ctx.event(m.test, 'withdrawal.completed', { withdrawal: { id: 'w1' } }, { source: 'crypto' });
    const e2 = await ctx.event(bare.test, 'withdrawal.completed', { withdrawal: { id: 'w2' } }, { source: 'crypto' });
    await ctx.round(ctx.worker());
    expect(receiver.received.map((r) => r.path)).toEqual(['/crypto']);
    const r = receiver.received[0]!;
    expect(r.headers['x-svc-signature']).toBe(sign(m.hmacSecret, r.headers['x-svc-timestamp'] as string, r.body));
    expect(await ctx.deliveriesOfEvent(e1)).toHaveLength(1);
    expect(await ctx.deliveriesOfEvent(e2)).toHaveLength(0);
  });

  it('of an event with its own target URL (v1 KYC session) goes there only, signed with the HMAC secret', async () => {
    const m = await ctx.merchant({ webhookUrl: `${receiver.url}/crypto` });
    await ctx.endpoint(m.test, { url: `${receiver.url}/console`, events: [...EVERY_KIND] });
    await ctx.event(m.test, 'kyc.passed', { session: { id: 's1' } }, { targetUrl: `${receiver.url}/session-hook` });
    await ctx.round(ctx.worker());
    expect(receiver.received.map((r) => r.path)).toEqual(['/session-hook']);
    const r = receiver.received[0]!;
    expect(r.headers['x-svc-signature']).toBe(sign(m.hmacSecret, r.headers['x-svc-timestamp'] as string, r.body));
  });
});

describe('leases', () => {
  it('a lease of the live worker itself that it does not hold (its claim answer lost) is claimed again, not stranded', async () => {
    const m = await ctx.merchant();
    await ctx.endpoint(m.test, { url: `${receiver.url}/lost`, events: ['invoice.paid'] });
    const eventId = await ctx.event(m.test, 'invoice.paid', paid());
    const w = ctx.worker();
    await heartbeat(ctx.db, w.id); // the worker is alive
    await dispatchEvents(ctx.db, { limit: 100, now: ctx.clock.now(), merchantsWithUrl: async () => ({ live: [], test: [] }) });
    // Claimed under the worker's id, but the worker never saw the answer.
    const lost = await claimDue(ctx.db, { workerId: w.id, now: ctx.clock.now(), limit: 100, perEndpoint: 100, skipEndpoints: [] });
    const [delivery] = await ctx.deliveriesOfEvent(eventId);
    expect(lost.map((d) => d.id)).toContain(delivery!.id);
    // Another live worker still leaves it alone.
    const other = ctx.worker();
    await heartbeat(ctx.db, other.id);
    expect(await claimDue(ctx.db, { workerId: other.id, now: ctx.clock.now(), limit: 100, perEndpoint: 100, skipEndpoints: [] })).toEqual([]);
    await ctx.round(w);
    expect(receiver.received.filter((r) => r.path === '/lost')).toHaveLength(1);
    expect((await ctx.deliveriesOfEvent(eventId))[0]).toMatchObject({ status: 'succeeded', leaseOwner: null });
  });

  it("a send whose own reads fail (the worker's database unreachable) is no attempt: the deliveries are given back, due as they were, and go out once", async () => {
    const m = await ctx.merchant({ webhookUrl: `${receiver.url}/crypto` });
    const eventIds = [];
    for (const id of ['w1', 'w2', 'w3']) eventIds.push(await ctx.event(m.test, 'withdrawal.completed', { withdrawal: { id } }, { source: 'crypto' }));
    await dispatchEvents(ctx.db, { limit: 100, now: ctx.clock.now(), merchantsWithUrl: (ids) => merchantsWithWebhookUrl(ctx.accounts, ids) });
    const before = (await Promise.all(eventIds.map((e) => ctx.deliveriesOfEvent(e)))).map(([d]) => d!);
    // A worker whose reads of merchants' URLs and secrets reach no database (nothing listens on port 1).
    const unreachable = createAccountsDb('postgresql://root@127.0.0.1:1/none', 1);
    try {
      const cut = ctx.worker({ accounts: unreachable });
      await heartbeat(ctx.db, cut.id);
      // One round (a round after it would claim them again, and give them back again).
      expect(await cut.runOnce()).toBe(3);
      await cut.drain();
      expect(cut.inProcess).toBe(0);
      expect(receiver.received).toHaveLength(0);
      // Not failed attempts of the merchant's (a minute's wait, a step toward the 3-day disabling): untouched, and free.
      for (const d of before) {
        expect(await ctx.attemptsOfDelivery(d.id)).toEqual([]);
        expect((await ctx.deliveriesOfEvent(d.eventId))[0]).toMatchObject({ status: 'pending', attempts: 0, nextAttemptAt: d.nextAttemptAt, leaseOwner: null, lastError: null });
      }
    } finally {
      await unreachable.$close();
    }
    await ctx.round(ctx.worker());
    expect(receiver.received.map((r) => r.path)).toEqual(['/crypto', '/crypto', '/crypto']);
    for (const d of before) expect((await ctx.attemptsOfDelivery(d.id)).map((a) => a.succeeded)).toEqual([true]);
  });

  it('a live worker never claims again what it holds (in flight, waiting in its pool, or sent and not yet recorded), whatever rounds run meanwhile', async () => {
    const slow = await startReceiver();
    const waiting: (() => void)[] = [];
    slow.answer((_r, res) => waiting.push(() => res.writeHead(200).end('ok')));
    try {
      const m = await ctx.merchant();
      await ctx.endpoint(m.test, { url: slow.url, events: ['invoice.paid'] });
      for (let i = 0; i < 8; i++) await ctx.event(m.test, 'invoice.paid', paid(i));
      const w = ctx.worker({ concurrency: 4, perEndpoint: 2, sender: { timeoutMs: 60_000 } });
      await heartbeat(ctx.db, w.id);
      // Rounds while everything is held (each claim sends the held ids and must skip them).
      for (let i = 0; i < 6; i++) await w.runOnce();
      await eventually(() => expect(waiting).toHaveLength(2), 5000);
      expect(w.inProcess).toBe(8);
      expect(slow.received).toHaveLength(2); // two in flight, six waiting in the pool: nothing twice
      // Let them through one by one while rounds keep claiming.
      await eventually(async () => {
        waiting.splice(0).forEach((f) => f());
        await w.runOnce();
        expect(w.inProcess).toBe(0);
      }, 20_000, 20);
      await w.drain();
      const ids = slow.received.map((r) => r.headers['x-svc-delivery']);
      expect(ids).toHaveLength(8);
      expect(new Set(ids).size).toBe(8);
    } finally {
      waiting.splice(0).forEach((f) => f());
      await slow.close();
    }
  });
});

describe('retries', () => {
  it("honour a receiver's Retry-After on 429 and 503, up to the schedule's next delay", async () => {
    const m = await ctx.merchant();
    await ctx.endpoint(m.test, { url: receiver.url, events: ['invoice.paid'] });
    const w = ctx.worker();
    const cases: [Record<string, string>, number, number][] = [
      // [answer, expected delay after the first attempt (ms), and how much it may differ]
      [{ status: '503', 'retry-after': '180' }, 180_000, 0], // asks for 3 min: more than 1 min ±10%, less than 5 min
      [{ status: '429', 'retry-after': '86400' }, 300_000, 0], // asks for a day: held to the schedule's next delay
      [{ status: '503', 'retry-after': '10' }, 60_000, 6_000], // asks for less than the schedule: the schedule
      [{ status: '500', 'retry-after': '180' }, 60_000, 6_000], // not a 429 or 503: ignored
    ];
    for (const [{ status, 'retry-after': retryAfter }, expected, slack] of cases) {
      receiver.answer({ status: Number(status), body: 'busy', headers: { 'Retry-After': retryAfter! } });
      const eventId = await ctx.event(m.test, 'invoice.paid', paid());
      await ctx.round(w);
      const [d] = await ctx.deliveriesOfEvent(eventId);
      expect(d).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: Number(status) });
      expect(Math.abs(d!.nextAttemptAt!.getTime() - ctx.clock.now().getTime() - expected)).toBeLessThanOrEqual(slack);
    }
  });

  it('follow the schedule (now, 1 min, 5 min, 15 min, 1 h, 4 h; each ±10%) with one delivery id, then the delivery is failed', async () => {
    receiver.answer({ status: 500, body: 'x'.repeat(3000) });
    const m = await ctx.merchant();
    await ctx.endpoint(m.test, { url: receiver.url, events: ['invoice.paid'] });
    const eventId = await ctx.event(m.test, 'invoice.paid', paid());
    const w = ctx.worker();
    expect(RETRY_DELAYS_MS).toEqual([0, 60_000, 300_000, 900_000, 3_600_000, 14_400_000]);

    await ctx.round(w);
    expect(receiver.received).toHaveLength(1);
    for (let attempt = 2; attempt <= MAX_ATTEMPTS; attempt++) {
      const scheduled = RETRY_DELAYS_MS[attempt - 1]!;
      const [before] = await ctx.deliveriesOfEvent(eventId);
      expect(before).toMatchObject({ status: 'pending', attempts: attempt - 1 });
      const delay = before!.nextAttemptAt!.getTime() - ctx.clock.now().getTime();
      expect(Math.abs(delay - scheduled)).toBeLessThanOrEqual(scheduled * RETRY_JITTER);
      ctx.clock.advance(delay - 1000);
      await ctx.round(w);
      expect(receiver.received).toHaveLength(attempt - 1); // not yet
      ctx.clock.advance(1000);
      await ctx.round(w);
      expect(receiver.received).toHaveLength(attempt);
    }
    const [delivery] = await ctx.deliveriesOfEvent(eventId);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 6, nextAttemptAt: null, lastStatusCode: 500 });
    expect(delivery!.lastResponseBody).toHaveLength(1024);
    expect(new Set(receiver.received.map((r) => r.headers['x-svc-delivery']))).toEqual(new Set([delivery!.id]));
    const attempts = await ctx.attemptsOfDelivery(delivery!.id);
    expect(attempts.map((a) => a.statusCode)).toEqual([500, 500, 500, 500, 500, 500]);
    expect(attempts.every((a) => a.responseBody!.length === 1024)).toBe(true);
    // Nothing more is attempted.
    ctx.clock.advance(24 * 3600_000);
    await ctx.round(w);
    expect(receiver.received).toHaveLength(6);
  });

  it('count network errors and redirects as failures, and never follow a redirect', async () => {
    const elsewhere = await startReceiver();
    try {
      receiver.answer({ status: 302, headers: { Location: `${elsewhere.url}/stolen` } });
      const m = await ctx.merchant();
      await ctx.endpoint(m.test, { url: receiver.url, events: ['invoice.paid'] });
      const dead = await ctx.endpoint(m.test, { url: 'http://127.0.0.1:1/', events: ['invoice.paid'] });
      const eventId = await ctx.event(m.test, 'invoice.paid', paid());
      await ctx.round(ctx.worker());
      expect(elsewhere.received).toHaveLength(0);
      const deliveries = await ctx.deliveriesOfEvent(eventId);
      const toDead = deliveries.find((d) => d.endpointId === dead.id)!;
      const toRedirect = deliveries.find((d) => d.endpointId !== dead.id)!;
      expect(toRedirect).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: 302 });
      expect(toDead).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: null });
      expect(toDead.lastError).toMatch(/ECONNREFUSED/);
    } finally {
      await elsewhere.close();
    }
  });

  it('give up on a request after the timeout', async () => {
    receiver.answer(() => undefined); // never answers
    const m = await ctx.merchant();
    await ctx.endpoint(m.test, { url: receiver.url, events: ['invoice.paid'] });
    const eventId = await ctx.event(m.test, 'invoice.paid', paid());
    await ctx.round(ctx.worker({ sender: { timeoutMs: 200 } }));
    const [d] = await ctx.deliveriesOfEvent(eventId);
    expect(d).toMatchObject({ status: 'pending', attempts: 1, lastError: 'timed out after 200 ms' });
  });
});

describe('console actions as the worker sees them', () => {
  it('a resend sends the same delivery id again, recorded as a manual attempt', async () => {
    receiver.answer({ status: 503, body: 'down' });
    const m = await ctx.merchant();
    await ctx.endpoint(m.test, { url: receiver.url, events: ['invoice.paid'] });
    const eventId = await ctx.event(m.test, 'invoice.paid', paid());
    const w = ctx.worker();
    await ctx.round(w);
    const [d] = await ctx.deliveriesOfEvent(eventId);
    receiver.answer({ status: 204 });
    await requestResend(ctx.db, m.test, d!.id, ctx.clock.now());
    await ctx.round(w);
    expect(receiver.received.map((r) => r.headers['x-svc-delivery'])).toEqual([d!.id, d!.id]);
    const [after] = await ctx.deliveriesOfEvent(eventId);
    expect(after).toMatchObject({ status: 'succeeded', attempts: 1, lastStatusCode: 204, resendRequestedAt: null });
    expect((await ctx.attemptsOfDelivery(d!.id)).map((a) => [a.statusCode, a.manual])).toEqual([
      [503, false],
      [204, true],
    ]);
    // Another merchant cannot resend it.
    const stranger = await ctx.merchant();
    await expect(requestResend(ctx.db, stranger.test, d!.id, ctx.clock.now())).rejects.toThrow(/not found/);
  });

  it('a rotated secret signs the very next request; the old one verifies nothing', async () => {
    const m = await ctx.merchant();
    const hook = await ctx.endpoint(m.test, { url: receiver.url, events: ['invoice.paid'] });
    const w = ctx.worker();
    await ctx.event(m.test, 'invoice.paid', paid(1));
    await ctx.round(w);
    const { secret: fresh } = await rotateEndpointSecret(ctx.db, ctx.secrets, m.test, hook.id, ctx.clock.now());
    expect(fresh).not.toBe(hook.secret);
    await ctx.event(m.test, 'invoice.paid', paid(2));
    await ctx.round(w);
    const [first, second] = receiver.received;
    const ts = (r: typeof first) => r!.headers['x-svc-timestamp'] as string;
    expect(first!.headers['x-svc-signature']).toBe(sign(hook.secret, ts(first), first!.body));
    expect(second!.headers['x-svc-signature']).toBe(sign(fresh, ts(second), second!.body));
    expect(second!.headers['x-svc-signature']).not.toBe(sign(hook.secret, ts(second), second!.body));
  });

  it('a secret rotated with an overlap: both sign until it ends (X-SVC-Signature the old one’s), then the new one alone', async () => {
    const { verifyWebhook } = await import('../../../packages/webhook-receiver/src/index');
    const m = await ctx.merchant();
    const hook = await ctx.endpoint(m.test, { url: receiver.url, events: ['invoice.paid'] });
    const w = ctx.worker();
    const { secret: fresh, previousSecretExpiresAt } = await rotateEndpointSecret(ctx.db, ctx.secrets, m.test, hook.id, ctx.clock.now(), 3600_000);
    expect(previousSecretExpiresAt).toEqual(new Date(ctx.clock.now().getTime() + 3600_000));
    const verify = (r: (typeof receiver.received)[number], secret: string) => {
      try {
        return verifyWebhook(r.body, r.headers, secret, { now: Number(r.headers['x-svc-timestamp']), acceptTestEvents: true }).deliveryId;
      } catch (err) {
        return (err as { code: string }).code;
      }
    };
    await ctx.event(m.test, 'invoice.paid', paid(1));
    await ctx.round(w);
    ctx.clock.advance(3599_000);
    await ctx.event(m.test, 'invoice.paid', paid(2));
    await ctx.round(w);
    for (const r of receiver.received) {
      const ts = r.headers['x-svc-timestamp'] as string;
      // A receiver checking one signature with the secret it holds today is unaffected during the overlap.
      expect(r.headers['x-svc-signature']).toBe(sign(hook.secret, ts, r.body));
      expect(r.headers['x-svc-signatures']).toBe(`v1,${sign(fresh, ts, r.body)} v1,${sign(hook.secret, ts, r.body)}`);
      expect(verify(r, hook.secret)).toBe(r.headers['x-svc-delivery']);
      expect(verify(r, fresh)).toBe(r.headers['x-svc-delivery']);
    }
    ctx.clock.advance(1000);
    await ctx.event(m.test, 'invoice.paid', paid(3));
    await ctx.round(w);
    const after = receiver.received[2]!;
    expect(after.headers['x-svc-signature']).toBe(sign(fresh, after.headers['x-svc-timestamp'] as string, after.body));
    expect(after.headers['x-svc-signatures']).toBeUndefined();
    expect(verify(after, hook.secret)).toBe('INVALID_SIGNATURE');
    expect(verify(after, fresh)).toBe(after.headers['x-svc-delivery']);
  });

  it('a secret rotated after the claim, before the send, signs that send: each send reads the secret as stored right before it goes', async () => {
    const m = await ctx.merchant();
    const hook = await ctx.endpoint(m.test, { url: receiver.url, events: ['invoice.paid'] });
    // One request at a time to the endpoint: both deliveries are claimed in one round, the
    // second waits in the pool while the receiver, holding the first, rotates the secret.
    const w = ctx.worker({ perEndpoint: 1 });
    await ctx.event(m.test, 'invoice.paid', paid(1));
    await ctx.event(m.test, 'invoice.paid', paid(2));
    let fresh: string | null = null;
    receiver.answer((_req, res) => {
      void (async () => {
        fresh ??= (await rotateEndpointSecret(ctx.db, ctx.secrets, m.test, hook.id, ctx.clock.now())).secret;
        res.writeHead(200).end('ok');
      })();
    });
    expect(await ctx.round(w)).toBe(2);
    expect(receiver.received).toHaveLength(2);
    const [first, second] = receiver.received;
    const ts = (r: typeof first) => r!.headers['x-svc-timestamp'] as string;
    expect(first!.headers['x-svc-signature']).toBe(sign(hook.secret, ts(first), first!.body));
    expect(fresh).not.toBeNull();
    expect(second!.headers['x-svc-signature']).toBe(sign(fresh!, ts(second), second!.body));
  });

  it('an endpoint failing every delivery for 3 days is disabled; its missed deliveries replay once it is fixed', async () => {
    receiver.answer({ status: 500 });
    const m = await ctx.merchant();
    const hook = await ctx.endpoint(m.test, { url: receiver.url, events: ['invoice.paid'] });
    const w = ctx.worker();
    const first = await ctx.event(m.test, 'invoice.paid', paid(1));
    await ctx.round(w);
    // Days of failures: a new event every 12 hours, each failing.
    for (let i = 2; i <= 6; i++) {
      ctx.clock.advance(12 * 3600_000);
      await ctx.event(m.test, 'invoice.paid', paid(i));
      await ctx.round(w);
      const ep = await endpointState(ctx.db, hook.id);
      expect(ep.disabledAt).toBeNull();
    }
    ctx.clock.advance(AUTO_DISABLE_AFTER_MS - 5 * 12 * 3600_000);
    await ctx.event(m.test, 'invoice.paid', paid(7));
    await ctx.round(w);
    const disabled = await endpointState(ctx.db, hook.id);
    expect(disabled.disabledAt).not.toBeNull();
    const pending = (await deliveriesToEndpoint(ctx.db, hook.id)).filter((d) => d.status === 'pending').length;
    expect(pending).toBe(0);
    // While disabled nothing is sent; new events are kept as failed deliveries.
    const sentBefore = receiver.received.length;
    const whileDown = await ctx.event(m.test, 'invoice.paid', paid(8));
    ctx.clock.advance(3600_000);
    await ctx.round(w);
    expect(receiver.received).toHaveLength(sentBefore);
    expect((await ctx.deliveriesOfEvent(whileDown))[0]).toMatchObject({ status: 'failed', attempts: 0, lastError: 'not sent: the endpoint is disabled' });

    receiver.answer({ status: 200 });
    const replayed = await reenableAndReplay(ctx.db, m.test, hook.id, ctx.clock.now());
    expect(replayed).toHaveLength(8);
    await ctx.round(w);
    const all = await deliveriesToEndpoint(ctx.db, hook.id);
    expect(all.every((d) => d.status === 'succeeded')).toBe(true);
    const delivered = new Set(receiver.received.slice(sentBefore).map((r) => r.headers['x-svc-delivery']));
    expect(delivered).toEqual(new Set(all.map((d) => d.id)));
    expect((await ctx.deliveriesOfEvent(first))[0]!.id).toBe(all.find((d) => d.eventId === first)!.id);
    const ep = await endpointState(ctx.db, hook.id);
    expect(ep).toMatchObject({ disabledAt: null, failingSince: null });
  });

  it('a success resets the failing streak', async () => {
    receiver.answer({ status: 500 });
    const m = await ctx.merchant();
    const hook = await ctx.endpoint(m.test, { url: receiver.url, events: ['invoice.paid'] });
    const w = ctx.worker();
    await ctx.event(m.test, 'invoice.paid', paid(1));
    await ctx.round(w);
    expect((await endpointState(ctx.db, hook.id)).failingSince).not.toBeNull();
    receiver.answer({ status: 200 });
    ctx.clock.advance(RETRY_DELAYS_MS[1]! * (1 + RETRY_JITTER)); // the first retry, however its jitter fell
    await ctx.round(w);
    expect((await endpointState(ctx.db, hook.id)).failingSince).toBeNull();
  });
});

describe('fairness', () => {
  it('a slow endpoint holds at most its own concurrency; the others are delivered meanwhile', async () => {
    const slow = await startReceiver();
    const held: (() => void)[] = [];
    slow.answer((_r, res) => held.push(() => res.writeHead(200).end()));
    try {
      const m = await ctx.merchant();
      await ctx.endpoint(m.test, { url: slow.url, events: ['invoice.expired'] });
      await ctx.endpoint(m.test, { url: receiver.url, events: ['invoice.paid'] });
      for (let i = 0; i < 12; i++) await ctx.event(m.test, 'invoice.expired', { invoice: { n: i } });
      for (let i = 0; i < 20; i++) await ctx.event(m.test, 'invoice.paid', paid(i));
      // Held requests must stay held however slow the machine is: no timeout while the others go.
      const w = ctx.worker({ concurrency: 6, perEndpoint: 2, pollIntervalMs: 10, sender: { timeoutMs: 60_000 } });
      await w.start();
      await eventually(() => expect(receiver.received).toHaveLength(20), 20_000);
      expect(slow.received).toHaveLength(2);
      expect(slow.maxInFlight).toBe(2);
      await eventually(() => {
        held.splice(0).forEach((f) => f());
        expect(slow.received).toHaveLength(12);
      }, 5000);
      held.splice(0).forEach((f) => f());
      await w.stop();
      expect(slow.maxInFlight).toBe(2);
      expect(slow.received).toHaveLength(12);
    } finally {
      await slow.close();
    }
  });
});

describe('fairness between new events and due retries', () => {
  it('a retry that falls due while new events keep filling the worker is sent within a poll interval, not after the events run out', async () => {
    let failing = true;
    receiver.answer((r, res) => res.writeHead(r.path === '/retry' && failing ? 500 : 200).end());
    const m = await ctx.merchant();
    await ctx.endpoint(m.test, { url: `${receiver.url}/retry`, events: ['invoice.expired'] });
    await ctx.endpoint(m.test, { url: `${receiver.url}/stream`, events: ['invoice.paid'] });
    await ctx.event(m.test, 'invoice.expired', { invoice: { n: 0 } });
    const w = ctx.worker({ concurrency: 2, perEndpoint: 2, pollIntervalMs: 50 });
    await ctx.round(w); // the first attempt fails: the next is due in about a minute
    failing = false;
    const STREAM = 400;
    for (let i = 0; i < STREAM; i++) await ctx.event(m.test, 'invoice.paid', paid(i));
    const stream = () => receiver.received.filter((r) => r.path === '/stream').length;
    await w.start();
    await eventually(() => expect(stream()).toBeGreaterThanOrEqual(10), 20_000, 5);
    ctx.clock.advance(70_000); // the retry is due now, while hundreds of new deliveries wait
    await eventually(() => expect(receiver.received.filter((r) => r.path === '/retry')).toHaveLength(2), 20_000, 5);
    const sentBefore = receiver.received.findIndex((r, i) => r.path === '/retry' && i > 0 && receiver.received.slice(0, i).some((e) => e.path === '/retry'));
    const streamedBefore = receiver.received.slice(0, sentBefore).filter((r) => r.path === '/stream').length;
    await eventually(() => expect(stream()).toBe(STREAM), 60_000);
    await w.stop();
    // Written leased to the worker, the new deliveries would fill every round until none were
    // left; a claim is owed every poll interval, so the retry goes out among them.
    expect(streamedBefore).toBeLessThan(STREAM - 100);
  });
});

describe('what /metrics reports of the backlog (queueDepth, read at each scrape)', () => {
  it('the age of the oldest delivery due and the endpoints disabled, from the database', async () => {
    receiver.answer({ status: 500 });
    const m = await ctx.merchant();
    const hook = await ctx.endpoint(m.test, { url: receiver.url, events: ['invoice.paid'] });
    const before = await queueDepth(ctx.db, ctx.clock.now());
    const eventId = await ctx.event(m.test, 'invoice.paid', paid(1));
    await ctx.round(ctx.worker());
    // Failed once, then scheduled: an hour on, it has been due for an hour less its retry delay.
    const [delivery] = await ctx.deliveriesOfEvent(eventId);
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1 });
    ctx.clock.advance(3600_000);
    const now = ctx.clock.now();
    const depth = await queueDepth(ctx.db, now);
    expect(depth.due).toBeGreaterThanOrEqual(1);
    // Ours or an older one left by an earlier test: at least ours.
    expect(depth.oldestDueSeconds).toBeGreaterThanOrEqual((now.getTime() - delivery!.nextAttemptAt!.getTime()) / 1000);
    expect(depth.oldestDueSeconds).toBeGreaterThan(3000);

    await disableEndpoint(ctx.db, hook.id, now, 'failing for 3 days');
    expect((await queueDepth(ctx.db, now)).endpointsDisabled).toBe(before.endpointsDisabled + 1);
    await reenableAndReplay(ctx.db, m.test, hook.id, now);
    expect((await queueDepth(ctx.db, now)).endpointsDisabled).toBe(before.endpointsDisabled);
  });
});
