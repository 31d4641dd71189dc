import { Queues } from '@pay/queue';
import { eventually, startMaildev } from '@pay/testing';
import { disablingsNotEmailed, eventsOf, updateWebhook } from '@pay/webhooks';
import { newMerchant, startInvoicingApp, v2Request, type InvoicingTestApp, type TestMerchant } from '../../../test/test-support';
import { webhookUrlPolicy } from './policy';
import { reconcileDisabledEmails, sendDisabledEmail } from './disabled-email';

/**
 * A webhook's deliveries through the v2 API: listed with their attempts, resent, replayed; and
 * a webhook disabled by its merchant, announced (`endpoint.disabled`) and e-mailed through the
 * real mailer into maildev. What a real receiver then gets from the worker is
 * services/webhook-worker/src/management.test.ts.
 */
let maildev: Awaited<ReturnType<typeof startMaildev>>;
let ctx: InvoicingTestApp;
beforeAll(async () => {
  maildev = await startMaildev();
  ctx = await startInvoicingApp({ background: true, env: { SMTP_PORT: String(maildev.smtpPort), OUTBOX_INTERVAL_MS: '50' }, poolSize: 6 });
}, 120_000);
afterAll(async () => {
  await ctx?.close();
  await maildev?.close();
}, 180_000);

const v2 = (m: TestMerchant, method: 'get' | 'post' | 'patch', path: string, body?: unknown) => v2Request(ctx.app, m, method, path, body);
const hookOf = async (m: TestMerchant, events = ['invoice.paid', 'invoice.cancelled']) =>
  (await v2(m, 'post', '/api/v2/webhooks', { url: 'https://hooks.example.com/pay', events })).body.webhook as { id: string };

/** An invoice cancelled: one `invoice.cancelled` event of the merchant, in its own transaction. */
async function cancelledInvoice(m: TestMerchant): Promise<string> {
  const made = await v2(m, 'post', '/api/v2/invoices', { amount: 100, paymentMethod: 'card' });
  expect(made.status).toBe(201);
  expect((await v2(m, 'post', `/api/v2/invoices/${made.body.invoice.id}/cancel`)).status).toBe(200);
  return made.body.invoice.id as string;
}

describe('deliveries through the v2 API', () => {
  it('lists a webhook’s deliveries (paged) with their event id and attempts; resends one; replays since a time, once for a double click', async () => {
    const m = await newMerchant(ctx.deps);
    const since = new Date(Date.now() - 1000).toISOString();
    await cancelledInvoice(m);
    const hook = await hookOf(m); // made after the event: it has no delivery of it yet
    const before = await v2(m, 'get', `/api/v2/webhooks/${hook.id}/deliveries`);
    expect([before.status, before.body.data, before.body.pagination.total]).toEqual([200, [], 0]);

    const replay = await v2(m, 'post', `/api/v2/webhooks/${hook.id}/replay`, { since });
    expect([replay.status, replay.body.replay]).toEqual([202, { since, created: 1, resent: 0 }]);
    const again = await v2(m, 'post', `/api/v2/webhooks/${hook.id}/replay`, { since });
    expect(again.body.replay).toMatchObject({ created: 0, resent: 0 });

    const list = await v2(m, 'get', `/api/v2/webhooks/${hook.id}/deliveries?limit=10`);
    expect(list.body.pagination).toEqual({ total: 1, limit: 10, offset: 0, pages: 1 });
    const [event] = await eventsOf(ctx.deps.db, { merchantId: m.merchantId, isTest: true }, 'invoice.cancelled');
    const d = list.body.data[0];
    expect(d).toMatchObject({ event: 'invoice.cancelled', eventId: event!.id, status: 'pending', attempts: 0, attemptHistory: [] });
    expect(event!.body).toMatchObject({ id: event!.id, type: 'invoice.cancelled', source: 'invoicing', createdAt: event!.createdAt.toISOString() });
    expect((await v2(m, 'get', `/api/v2/webhooks/${hook.id}/deliveries?status=succeeded`)).body.data).toEqual([]);
    expect((await v2(m, 'get', `/api/v2/webhooks/${hook.id}/deliveries?status=lost`)).status).toBe(400);

    const resend = await v2(m, 'post', `/api/v2/webhooks/${hook.id}/deliveries/${d.id}/resend`);
    expect([resend.status, resend.body.delivery.id]).toEqual([202, d.id]);

    for (const bad of [{}, { since: 'yesterday' }, { since: new Date(Date.now() - 31 * 24 * 3600_000).toISOString() }]) {
      const r = await v2(m, 'post', `/api/v2/webhooks/${hook.id}/replay`, bad);
      expect([r.status, r.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    }
  });

  it("never lists, resends or replays another merchant's (or another mode's) deliveries: 404", async () => {
    const a = await newMerchant(ctx.deps);
    const b = await newMerchant(ctx.deps);
    const since = new Date(Date.now() - 1000).toISOString();
    const hook = await hookOf(a);
    await cancelledInvoice(a);
    await v2(a, 'post', `/api/v2/webhooks/${hook.id}/replay`, { since });
    const delivery = (await v2(a, 'get', `/api/v2/webhooks/${hook.id}/deliveries`)).body.data[0];
    expect(delivery).toBeDefined();
    const bHook = await hookOf(b);
    for (const who of [b, { ...a, apiKey: a.liveKey }]) {
      expect((await v2(who, 'get', `/api/v2/webhooks/${hook.id}/deliveries`)).status).toBe(404);
      expect((await v2(who, 'post', `/api/v2/webhooks/${hook.id}/deliveries/${delivery.id}/resend`)).status).toBe(404);
      expect((await v2(who, 'post', `/api/v2/webhooks/${hook.id}/replay`, { since })).status).toBe(404);
    }
    // B's own webhook id does not open A's delivery either.
    expect((await v2(b, 'post', `/api/v2/webhooks/${bHook.id}/deliveries/${delivery.id}/resend`)).status).toBe(404);
    // A's other webhook neither: the delivery must be the named webhook's.
    const aOther = await hookOf(a);
    expect((await v2(a, 'post', `/api/v2/webhooks/${aOther.id}/deliveries/${delivery.id}/resend`)).status).toBe(404);
  });

  it('a webhook its merchant disables: endpoint.disabled recorded for its other webhooks, and an e-mail to the merchant', async () => {
    const m = await newMerchant(ctx.deps);
    const hook = await hookOf(m);
    await hookOf(m, ['endpoint.disabled']);
    const off = await v2(m, 'patch', `/api/v2/webhooks/${hook.id}`, { enabled: false });
    expect(off.body.webhook).toMatchObject({ enabled: false, disabledReason: 'disabled by the merchant' });
    const [announced] = await eventsOf(ctx.deps.db, { merchantId: m.merchantId, isTest: true }, 'endpoint.disabled');
    expect(announced!.body.endpoint).toEqual({
      id: hook.id,
      url: 'https://hooks.example.com/pay',
      description: null,
      disabledAt: off.body.webhook.disabledAt,
      disabledReason: 'disabled by the merchant',
      failingSince: null,
    });
    const replay = await v2(m, 'post', `/api/v2/webhooks/${hook.id}/replay`, { since: new Date(Date.now() - 1000).toISOString() });
    expect([replay.status, replay.body.error.code]).toEqual([422, 'INVALID_STATE']);
    const mail = await eventually(async () => {
      const found = (await maildev.emails()).find((e) => e.subject === 'Webhook disabled: https://hooks.example.com/pay' && e.text?.includes(hook.id));
      expect(found).toBeDefined();
      return found!;
    }, 30_000);
    expect(mail.text).toMatch(/test webhook https:\/\/hooks\.example\.com\/pay was disabled at .*: disabled by the merchant\./);
    expect(mail.to.map((t) => t.address)).toEqual([expect.stringMatching(/^m-.*@example\.test$/)]);
  });

  // Its job lost with Redis, or its 6 attempts spent while the SMTP server was away: the e-mail
  // was dropped for good before the reconciler (announced, never e-mailed → queued again).
  it('a disabling whose e-mail job was lost is e-mailed by the reconciler, once; a job run again sends nothing more', async () => {
    const m = await newMerchant(ctx.deps);
    const hook = await hookOf(m);
    const owner = { merchantId: m.merchantId, isTest: true };
    // Disabled and announced as the API does it, but with the e-mail's job lost (nothing queued).
    const off = await updateWebhook(ctx.deps.db, ctx.deps.secrets, owner, hook.id, { enabled: false }, { policy: webhookUrlPolicy(ctx.deps.config), now: new Date(), alsoOnDisabled: async () => undefined });
    const mails = async () => (await maildev.emails()).filter((e) => e.text?.includes(hook.id));
    const queue = ctx.background!.relay.queue(Queues.webhookDisabledEmails.name);
    expect(await reconcileDisabledEmails(ctx.deps, queue)).toBeGreaterThanOrEqual(1);
    const [mail] = await eventually(async () => {
      const found = await mails();
      expect(found).toHaveLength(1);
      return found;
    }, 30_000);
    expect(mail!.subject).toBe('Webhook disabled: https://hooks.example.com/pay');
    // Sent: no reconcile queues it again, and a job for it run once more (a retry after a crash
    // between the send and its record, or a stale copy) sends nothing. What a reconcile queues
    // is every disabling of the database not e-mailed, other test files' too (one whose merchant
    // has no account is queued on every pass), so this one is looked for by its id.
    const since = new Date(off.disabledAt!.getTime() - 1000);
    await eventually(async () => expect((await disablingsNotEmailed(ctx.deps.db, { since })).map((d) => d.id)).not.toContain(hook.id), 10_000);
    await reconcileDisabledEmails(ctx.deps, queue);
    expect(await sendDisabledEmail(ctx.deps, { endpointId: hook.id, disabledAt: off.disabledAt!.toISOString() })).toBe(false);
    await new Promise((r) => setTimeout(r, 500));
    expect(await mails()).toHaveLength(1);
    // Enabled and disabled again: a new disabling, a new e-mail.
    expect((await v2(m, 'patch', `/api/v2/webhooks/${hook.id}`, { enabled: true })).status).toBe(200);
    expect((await v2(m, 'patch', `/api/v2/webhooks/${hook.id}`, { enabled: false })).status).toBe(200);
    await eventually(async () => expect(await mails()).toHaveLength(2), 30_000);
  });
});
