import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signedHeaders } from '@pay/auth';
import { eventsOf } from '@pay/webhooks';
import { startInvoicingApp, newMerchant, v2Request, type InvoicingTestApp, type TestMerchant } from '../../../test/test-support';
import { customerColumnsOf } from '../../../test/customers/store';
import { invoiceColumns } from '../../../test/invoices/store';
import { refundTotalsOf } from '../../../test/refunds/store';

let ctx: InvoicingTestApp;
let server: Server;
let base: string;
beforeAll(async () => {
  // A real listener and a pool of 10: the requests truly overlap in Postgres.
  ctx = await startInvoicingApp({ poolSize: 10 });
  server = createServer(ctx.app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await ctx.close();
});

/**
 * A signed request over the socket; `body` differs per request, so no two signatures are alike.
 * Sent as a careful client sends: a 503 SERVICE_UNAVAILABLE (on a loaded machine a database
 * connection or the replay check's Redis did not answer in time; nothing was done), or a 409
 * IDEMPOTENCY_IN_PROGRESS behind it, is sent again after its Retry-After, signed afresh, under
 * the same Idempotency-Key. Any other answer is final.
 */
async function post(m: TestMerchant, path: string, body: Record<string, unknown>) {
  const raw = JSON.stringify(body);
  const key = randomUUID();
  const deadline = Date.now() + 60_000;
  for (;;) {
    const headers = signedHeaders('v2', m.hmacSecret, { method: 'POST', path, body: raw });
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { ...headers, 'x-api-key': m.apiKey, 'Content-Type': 'application/json', 'Idempotency-Key': key },
      body: raw,
    });
    const answer = { status: res.status, body: (await res.json()) as { error?: { code: string }; refund?: { amount: number } } };
    const retry = res.status === 503 || (res.status === 409 && answer.body.error?.code === 'IDEMPOTENCY_IN_PROGRESS');
    if (!retry || Date.now() > deadline) return answer;
    if (res.status === 503) expect(answer.body.error?.code).toBe('SERVICE_UNAVAILABLE');
    await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? 1) * 1000));
  }
}

async function paidInvoice(m: TestMerchant, body: Record<string, unknown>) {
  const c = await v2Request(ctx.app, m, 'post', '/api/v2/invoices', body);
  expect((await v2Request(ctx.app, m, 'post', `/api/v2/sandbox/invoices/${c.body.invoice.id}/pay`, {})).status).toBe(200);
  return c.body.invoice.id as string;
}

// 40 requests on one invoice's lock through a pool of 10: on this machine loaded twentyfold
// some wait out the pool (503) and are sent again, which takes the test past the default 30 s.
jest.setTimeout(120_000);

describe('under concurrency', () => {
  it('40 refunds of 7.30 at once on an invoice of 100: exactly 13 pass, the sum never exceeds the amount', async () => {
    const m = await newMerchant(ctx.deps);
    const id = await paidInvoice(m, { amount: 100, customerEmail: 'many@example.ru' });
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => post(m, `/api/v2/invoices/${id}/refunds`, { amount: 7.3, reason: `r${i}` })));
    const ok = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status === 422);
    expect(ok).toHaveLength(13); // 13 × 7.30 = 94.90 ≤ 100 < 14 × 7.30
    expect(refused).toHaveLength(27);
    for (const r of refused) expect(r.body.error?.code).toBe('REFUND_EXCEEDS_PAID');
    const [invoice, refunds] = await Promise.all([invoiceColumns(ctx.deps.db, id, ['refunded_amount']), refundTotalsOf(ctx.deps.db, id)]);
    expect({ refunded: invoice!.refunded_amount, sum: refunds.succeeded, n: refunds.n }).toEqual({ refunded: '94.90', sum: '94.90', n: 13 });
    expect(await eventsOf(ctx.deps.db, { merchantId: m.merchantId, isTest: true }, 'invoice.refunded')).toHaveLength(13);
    const [customer] = await customerColumnsOf(ctx.deps.db, m.merchantId, ['total_amount']);
    expect(customer!.total_amount).toBe('5.10');
  });

  it('20 full refunds at once: one passes', async () => {
    const m = await newMerchant(ctx.deps);
    const id = await paidInvoice(m, { amount: 10 });
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => post(m, `/api/v2/invoices/${id}/refunds`, { reason: `full ${i}` })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 422)).toHaveLength(19);
  });

  it('20 payments of one invoice at once: one pays, one event; the rest are INVOICE_ALREADY_PAID', async () => {
    const m = await newMerchant(ctx.deps);
    const c = await v2Request(ctx.app, m, 'post', '/api/v2/invoices', { amount: 10, customerEmail: 'race@example.ru' });
    const id = c.body.invoice.id;
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => post(m, `/api/v2/sandbox/invoices/${id}/pay`, { payerBank: `Bank ${i}` })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200)) expect(r.body.error?.code).toBe('INVOICE_ALREADY_PAID');
    expect(await eventsOf(ctx.deps.db, { merchantId: m.merchantId, isTest: true }, 'invoice.paid')).toHaveLength(1);
  });

  it('first payments of one new customer on 10 invoices at once: one customer, every payment counted', async () => {
    const m = await newMerchant(ctx.deps);
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const c = await v2Request(ctx.app, m, 'post', '/api/v2/invoices', { amount: 10 + i, customerEmail: 'new@example.ru', customerPhone: '+79995550000' });
      ids.push(c.body.invoice.id);
    }
    const results = await Promise.all(ids.map((id) => post(m, `/api/v2/sandbox/invoices/${id}/pay`, {})));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    const customers = await customerColumnsOf(ctx.deps.db, m.merchantId, ['total_payments', 'total_amount', 'trust_level']);
    expect(customers).toEqual([{ total_payments: 10, total_amount: '145.00', trust_level: 'LEVEL_2' }]);
  });
});
