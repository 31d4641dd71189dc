import { startReceiver, type Receiver } from '@pay/testing';
import { AUTO_DISABLE_AFTER_MS, replaySince, requestResend, updateWebhook } from '@pay/webhooks';
import { webhookDisabledEmail, writeOutbox } from '@pay/queue';
import { outboxRowsOfJob } from '@pay/queue/test';
import { deliveriesToEndpoint, endpointState } from '@pay/webhooks/test';
import { deliveryForSuite } from '../test/test-support';

/**
 * What a merchant does to its webhooks (the v2 API and the console call these same functions),
 * as the worker then sends it to a real receiver on loopback: resends, replays since a time,
 * and the `endpoint.disabled` announcement when a webhook is disabled.
 */
const ctx = deliveryForSuite();
let receiver: Receiver;
beforeEach(async () => {
  receiver = await startReceiver();
});
afterEach(async () => {
  await receiver.close();
});

const paid = (n: number) => ({ invoice: { id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`, amount: n, status: 'PAID' } });
const bodyIdOf = (body: string) => (JSON.parse(body) as { id: string }).id;

describe('a replay since a time', () => {
  it('delivers what the webhook never got, sends the rest again with the same delivery and event ids, and a double click replays once', async () => {
    const m = await ctx.merchant();
    const w = ctx.worker();
    const t0 = ctx.clock.now();
    const first = await ctx.event(m.test, 'invoice.paid', paid(1));
    await ctx.round(w); // dispatched before the webhook existed: it is not one of its deliveries
    const hook = await ctx.endpoint(m.test, { url: receiver.url, events: ['invoice.paid', 'invoice.expired'] });
    ctx.clock.advance(1000);
    const second = await ctx.event(m.test, 'invoice.paid', paid(2));
    await ctx.round(w);
    receiver.answer({ status: 500 });
    ctx.clock.advance(1000);
    const third = await ctx.event(m.test, 'invoice.expired', paid(3));
    await ctx.event(m.test, 'kyc.passed', { session: { id: 's' } });
    await ctx.round(w);
    ctx.clock.advance(70_000);
    await ctx.round(w);
    // The first event came before the webhook: never sent to it. The second succeeded; the third failed twice, its next retry in 5 minutes.
    expect(receiver.received.map((r) => bodyIdOf(r.body))).toEqual([second, third, third]);
    receiver.answer({ status: 200 });
    ctx.clock.advance(61_000);

    const replay = await replaySince(ctx.db, m.test, hook.id, t0, ctx.clock.now());
    expect(replay).toEqual({ created: 1, resent: 2 });
    // A double click (or a retried request): nothing more is asked for.
    expect(await replaySince(ctx.db, m.test, hook.id, t0, ctx.clock.now())).toEqual({ created: 0, resent: 0 });
    receiver.received.length = 0;
    await ctx.round(w);
    const sent = receiver.received.map((r) => bodyIdOf(r.body)).sort();
    expect(sent).toEqual([first, second, third].sort());
    // Every delivery ends succeeded, each request with its delivery's id and the event's id in the body.
    const deliveries = await deliveriesToEndpoint(ctx.db, hook.id);
    for (const r of receiver.received) expect(deliveries.find((d) => d.id === r.headers['x-svc-delivery'])).toMatchObject({ status: 'succeeded' });
    // Right after they were sent, another click still sends nothing; a minute later it sends again.
    expect(await replaySince(ctx.db, m.test, hook.id, t0, ctx.clock.now())).toEqual({ created: 0, resent: 0 });
    ctx.clock.advance(61_000);
    expect(await replaySince(ctx.db, m.test, hook.id, t0, ctx.clock.now())).toEqual({ created: 0, resent: 3 });
  });

  it('refuses another merchant, another mode, a disabled webhook and a time out of range', async () => {
    const m = await ctx.merchant();
    const other = await ctx.merchant();
    const hook = await ctx.endpoint(m.test, { url: receiver.url, events: ['invoice.paid'] });
    const now = ctx.clock.now();
    const since = new Date(now.getTime() - 3600_000);
    await expect(replaySince(ctx.db, other.test, hook.id, since, now)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(replaySince(ctx.db, m.live, hook.id, since, now)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(replaySince(ctx.db, m.test, hook.id, new Date(now.getTime() - 31 * 24 * 3600_000), now)).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await updateWebhook(ctx.db, ctx.secrets, m.test, hook.id, { enabled: false }, { policy: { allowPrivate: true, requireHttps: false }, now, alsoOnDisabled: async () => undefined });
    await expect(replaySince(ctx.db, m.test, hook.id, since, now)).rejects.toMatchObject({ code: 'INVALID_STATE' });
  });
});

describe('a resend', () => {
  it('is one more request with the same delivery id and body; asked twice before it is made, it is made once; never for another merchant or webhook', async () => {
    const m = await ctx.merchant();
    const hook = await ctx.endpoint(m.test, { url: receiver.url, events: ['invoice.paid'] });
    const other = await ctx.endpoint(m.test, { url: `${receiver.url}/other`, events: ['invoice.paid'] });
    const w = ctx.worker();
    const eventId = await ctx.event(m.test, 'invoice.paid', paid(1));
    await ctx.round(w);
    const [d] = await deliveriesToEndpoint(ctx.db, hook.id);
    await requestResend(ctx.db, m.test, d!.id, ctx.clock.now(), hook.id);
    await requestResend(ctx.db, m.test, d!.id, ctx.clock.now(), hook.id);
    await expect(requestResend(ctx.db, m.test, d!.id, ctx.clock.now(), other.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const stranger = await ctx.merchant();
    await expect(requestResend(ctx.db, stranger.test, d!.id, ctx.clock.now(), hook.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    receiver.received.length = 0;
    await ctx.round(w);
    expect(receiver.received.map((r) => [r.path, r.headers['x-svc-delivery'], bodyIdOf(r.body)])).toEqual([['/', d!.id, eventId]]);
  });
});

describe('a disabled webhook', () => {
  const allow = { allowPrivate: true, requireHttps: false };

  it('is announced once: endpoint.disabled to the merchant’s other webhooks subscribed to it (not to itself, nor to others of another mode), and its e-mail queued', async () => {
    const m = await ctx.merchant();
    const failing = await ctx.endpoint(m.test, { url: `${receiver.url}/failing`, events: ['invoice.paid', 'endpoint.disabled'] });
    const listening = await ctx.endpoint(m.test, { url: `${receiver.url}/ops`, events: ['endpoint.disabled'] });
    await ctx.endpoint(m.test, { url: `${receiver.url}/deaf`, events: ['invoice.paid'] });
    await ctx.endpoint(m.live, { url: `${receiver.url}/live`, events: ['endpoint.disabled'] });
    receiver.answer((r, res) => res.writeHead(r.path === '/failing' ? 500 : 200).end());
    const w = ctx.worker();
    await ctx.event(m.test, 'invoice.paid', paid(1));
    await ctx.round(w);
    ctx.clock.advance(AUTO_DISABLE_AFTER_MS);
    await ctx.event(m.test, 'invoice.paid', paid(2));
    await ctx.round(w);
    const state = await endpointState(ctx.db, failing.id);
    expect(state.disabledReason).toBe('every delivery failed for 3 days');
    // The disabling was announced in the flush that recorded it; the next round delivered it.
    await ctx.round(w);
    const told = receiver.received.filter((r) => r.headers['x-svc-event'] === 'endpoint.disabled');
    expect(told.map((r) => r.path)).toEqual(['/ops']);
    const body = JSON.parse(told[0]!.body);
    expect(body).toMatchObject({
      event: 'endpoint.disabled',
      type: 'endpoint.disabled',
      source: 'invoicing',
      livemode: false,
      endpoint: { id: failing.id, url: `${receiver.url}/failing`, disabledReason: 'every delivery failed for 3 days', disabledAt: state.disabledAt!.toISOString() },
    });
    const emails = await outboxRowsOfJob(ctx.db, `webhook-disabled-${failing.id}-${state.disabledAt!.getTime()}`);
    expect(emails.map((r) => [r.queue, typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload])).toEqual([
      ['webhook-disabled-emails', { endpointId: failing.id, disabledAt: state.disabledAt!.toISOString() }],
    ]);
    // The sweep finds nothing more to announce.
    expect(await w.announceDisabled()).not.toContain(failing.id);
    expect((await deliveriesToEndpoint(ctx.db, listening.id)).map((d) => d.eventType)).toEqual(['endpoint.disabled']);
  });

  it('by its merchant: announced in the same transaction; enabled and disabled again, announced again', async () => {
    const m = await ctx.merchant();
    const hook = await ctx.endpoint(m.test, { url: `${receiver.url}/a`, events: ['invoice.paid'] });
    const ops = await ctx.endpoint(m.test, { url: `${receiver.url}/ops`, events: ['endpoint.disabled'] });
    const queued: string[] = [];
    const also = async (tx: Parameters<typeof writeOutbox>[0], e: { id: string; disabledAt: Date }) => {
      queued.push(e.id);
      await writeOutbox(tx, webhookDisabledEmail(e));
    };
    await updateWebhook(ctx.db, ctx.secrets, m.test, hook.id, { enabled: false }, { policy: allow, now: ctx.clock.now(), alsoOnDisabled: also });
    // Disabling what is disabled already announces nothing more.
    await updateWebhook(ctx.db, ctx.secrets, m.test, hook.id, { enabled: false, description: 'x' }, { policy: allow, now: ctx.clock.now(), alsoOnDisabled: also });
    ctx.clock.advance(1000);
    await updateWebhook(ctx.db, ctx.secrets, m.test, hook.id, { enabled: true }, { policy: allow, now: ctx.clock.now(), alsoOnDisabled: also });
    await updateWebhook(ctx.db, ctx.secrets, m.test, hook.id, { enabled: false }, { policy: allow, now: ctx.clock.now(), alsoOnDisabled: also });
    expect(queued).toEqual([hook.id, hook.id]);
    await ctx.round(ctx.worker());
    const told = receiver.received.filter((r) => r.path === '/ops').map((r) => JSON.parse(r.body).endpoint);
    expect(told).toHaveLength(2);
    expect(told.every((e: { id: string; disabledReason: string }) => e.id === hook.id && e.disabledReason === 'disabled by the merchant')).toBe(true);
    expect(receiver.received.filter((r) => r.path === '/a')).toEqual([]);
    expect((await deliveriesToEndpoint(ctx.db, ops.id)).every((d) => d.status === 'succeeded')).toBe(true);
  });
});
