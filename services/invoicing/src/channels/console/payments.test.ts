import { randomUUID } from 'node:crypto';
import Papa from 'papaparse';
import request from 'supertest';
import { ManualClock } from '@pay/runtime';
import { claimDue, dispatchEvents, heartbeat, recordOutcomes } from '@pay/webhooks';
import { clockSigner, consoleSignIn, invoicingAppForSuite, newMerchant, type TestMerchant } from '../../../test/test-support';
import { CSV_COLUMNS } from './payments';

const clock = new ManualClock(Date.now());
const ctx = invoicingAppForSuite({ clock });
const call = clockSigner(() => ctx.app, clock);

const signIn = (m: Pick<TestMerchant, 'apiKey'>) => consoleSignIn(ctx.app, m.apiKey);

async function invoice(m: TestMerchant, body: Record<string, unknown>, pay = false): Promise<{ id: string; invoiceNumber: string }> {
  clock.advance(1000);
  const res = await call(m, 'post', '/api/v2/invoices', body);
  expect(res.status).toBe(201);
  if (pay) expect((await call(m, 'post', `/api/v2/sandbox/invoices/${res.body.invoice.id}/pay`, { payerBank: 'T-Bank' })).status).toBe(200);
  return res.body.invoice;
}

/**
 * What the webhook worker does with due deliveries, through its own functions (dispatch, claim,
 * record), with the receiver's answers given here: the first attempt of each delivery answered
 * 500, then 200 (a retry), so the timeline has a status code history to show.
 */
async function deliverWebhooks(statuses: number[]) {
  const workerId = randomUUID();
  await heartbeat(ctx.deps.db, workerId);
  // The worker reads its clock before it finds the events (delivery-worker.ts runOnce), so a
  // delivery's createdAt may fall a moment before the change it reports: the timeline must
  // still show the change first.
  await dispatchEvents(ctx.deps.db, { limit: 10_000, now: new Date(clock.now().getTime() - 5), merchantsWithUrl: async () => ({ live: [], test: [] }) });
  for (const statusCode of statuses) {
    const claimed = await claimDue(ctx.deps.db, { workerId, now: clock.now(), limit: 10_000, perEndpoint: 10_000, skipEndpoints: [] });
    const at = clock.now();
    await recordOutcomes(
      ctx.deps.db,
      workerId,
      claimed.map((d) => ({ delivery: d, attempt: { at, durationMs: 12, url: 'https://hooks.example.com/pay', statusCode, error: null, responseBody: statusCode === 200 ? 'ok' : 'down', succeeded: statusCode === 200 } })),
      at,
    );
    clock.advance(120_000); // past the first retry's delay
  }
}

describe('console payments', () => {
  let m: TestMerchant;
  let other: TestMerchant;
  let paid: { id: string; invoiceNumber: string };
  let pending: { id: string; invoiceNumber: string };
  let theirs: { id: string; invoiceNumber: string };

  beforeAll(async () => {
    [m, other] = await Promise.all([newMerchant(ctx.deps), newMerchant(ctx.deps)]);
    const { agent, csrf } = await signIn(m);
    expect((await agent.post('/console/api/webhooks').set('X-CSRF-Token', csrf).send({ url: 'https://hooks.example.com/pay', events: ['invoice.paid', 'invoice.refunded'] })).status).toBe(201);
    paid = await invoice(m, { amount: 1500.5, description: 'Warm blanket', customerEmail: 'ann@example.ru', customerName: 'Ann Lee' }, true);
    pending = await invoice(m, { amount: 10, description: 'Socks', paymentMethod: 'card' });
    await invoice(m, { amount: 20, description: '=HYPERLINK("http://evil.example","x")', customerName: 'Smith, "Jr"\nII' });
    await invoice(m, { amount: 30, description: '+1 tea' });
    await invoice(m, { amount: 40, description: '-2 cups' });
    await invoice(m, { amount: 50, description: '@SUM(A1:A2)' });
    theirs = await invoice(other, { amount: 99, description: 'Warm blanket', customerEmail: 'ann@example.ru' }, true);
    await deliverWebhooks([500, 200]);
  });

  it('lists exactly what GET /api/v2/invoices answers for the same query, filters included, for the session’s merchant only', async () => {
    const { agent } = await signIn(m);
    for (const qs of ['', 'limit=2&offset=1', 'status=PAID', 'paymentMethod=card', 'search=blanket', `search=${paid.invoiceNumber}`, 'createdFrom=2000-01-01&createdTo=2999-12-31']) {
      const api = await call(m, 'get', `/api/v2/invoices?${qs}`);
      const console = await agent.get(`/console/api/invoices?${qs}`);
      expect([qs, console.status]).toEqual([qs, 200]);
      expect(console.body).toEqual(api.body);
      expect(console.body.data.map((i: { id: string }) => i.id)).not.toContain(theirs.id);
    }
    expect((await agent.get('/console/api/invoices?createdFrom=2026-02-30')).body.error.details).toEqual([{ field: 'createdFrom', message: 'must be a real date, YYYY-MM-DD' }]);
  });

  it('shows the list page with the filters applied, a CSV link carrying them, and a bad day as a message in the page', async () => {
    const { agent } = await signIn(m);
    const all = await agent.get('/console/payments');
    expect(all.status).toBe(200);
    expect(all.text).toContain('data-testid="payments-total">6 payments<');
    expect(all.text).toContain(`href="/console/payments/${paid.id}">${paid.invoiceNumber}</a>`);
    expect(all.text).not.toContain(theirs.id);
    expect(all.text).toContain('aria-current="page">Payments</a>');
    const card = await agent.get('/console/payments?status=&paymentMethod=card&search=+socks+');
    expect(card.text).toContain('data-testid="payments-total">1 payment<');
    expect(card.text).toContain(`data-invoice="${pending.id}"`);
    expect(card.text).toContain('href="/console/api/invoices.csv?paymentMethod=card&amp;search=socks"');
    const bad = await agent.get('/console/payments?createdFrom=2026-13-01');
    expect(bad.status).toBe(200);
    expect(bad.text).toMatch(/data-testid="filter-error">createdFrom is not a calendar date: 2026-13-01</);
  });

  it('exports the filtered list as CSV: quoted where needed, formulas defused, only the session’s merchant', async () => {
    const { agent } = await signIn(m);
    const res = await agent.get('/console/api/invoices.csv');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="invoices-test.csv"');
    expect(res.headers['x-total-count']).toBe('6');
    expect(res.text.endsWith('\r\n')).toBe(true);
    const rows = Papa.parse<string[]>(res.text.trimEnd(), { newline: '\r\n' }).data;
    expect(rows[0]).toEqual([...CSV_COLUMNS]);
    const byDescription = new Map(rows.slice(1).map((r) => [r[CSV_COLUMNS.indexOf('description')], r]));
    expect([...byDescription.keys()].sort()).toEqual(["'+1 tea", "'-2 cups", "'=HYPERLINK(\"http://evil.example\",\"x\")", "'@SUM(A1:A2)", 'Socks', 'Warm blanket'].sort());
    expect(byDescription.get("'=HYPERLINK(\"http://evil.example\",\"x\")")![CSV_COLUMNS.indexOf('customerName')]).toBe('Smith, "Jr"\nII');
    expect(res.text).toContain('"Smith, ""Jr""\nII"');
    const blanket = byDescription.get('Warm blanket')!;
    expect(Object.fromEntries(CSV_COLUMNS.map((c, n) => [c, blanket[n]]))).toMatchObject({ id: paid.id, amount: '1500.50', refundedAmount: '0.00', status: 'PAID', paymentMethod: 'sbp', payerBank: 'T-Bank', customerEmail: 'ann@example.ru', livemode: 'false' });
    expect(res.text).not.toContain(theirs.id);

    const filtered = await agent.get('/console/api/invoices.csv?status=PAID');
    expect(filtered.headers['x-total-count']).toBe('1');
    expect(Papa.parse<string[]>(filtered.text.trimEnd()).data.slice(1).map((r) => r[0])).toEqual([paid.id]);
    expect((await agent.get('/console/api/invoices.csv?limit=5')).status).toBe(400);
  });

  it('refunds through the API’s refund: CSRF required, idempotent by key, clear refusals, never another merchant’s', async () => {
    const { agent, csrf } = await signIn(m);
    const url = `/console/api/invoices/${paid.id}/refunds`;
    const noToken = await agent.post(url).send({ amount: 100 });
    expect([noToken.status, noToken.body.error.code]).toEqual([403, 'FORBIDDEN']);

    const key = randomUUID();
    const first = await agent.post(url).set('X-CSRF-Token', csrf).set('Idempotency-Key', key).send({ amount: 100.25, reason: 'Damaged' });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ refund: { invoiceId: paid.id, amount: 100.25, currency: 'RUB', status: 'SUCCEEDED', reason: 'Damaged' }, invoice: { refundedAmount: 100.25, refundableAmount: 1400.25 } });
    const again = await agent.post(url).set('X-CSRF-Token', csrf).set('Idempotency-Key', key).send({ amount: 100.25, reason: 'Damaged' });
    expect([again.status, again.headers['idempotent-replayed'], again.body.refund.id]).toEqual([201, 'true', first.body.refund.id]);
    const changed = await agent.post(url).set('X-CSRF-Token', csrf).set('Idempotency-Key', key).send({ amount: 5 });
    expect([changed.status, changed.body.error.code]).toEqual([409, 'IDEMPOTENCY_CONFLICT']);

    const tooMuch = await agent.post(url).set('X-CSRF-Token', csrf).send({ amount: 1400.26 });
    expect([tooMuch.status, tooMuch.body.error.code, tooMuch.body.error.details]).toEqual([422, 'REFUND_EXCEEDS_PAID', [{ field: 'amount', message: 'must be at most 1400.25' }]]);
    const unpaid = await agent.post(`/console/api/invoices/${pending.id}/refunds`).set('X-CSRF-Token', csrf).send({});
    expect([unpaid.status, unpaid.body.error.code]).toEqual([422, 'INVOICE_NOT_PAID']);
    const kopeck = await agent.post(url).set('X-CSRF-Token', csrf).send({ amount: 1.005 });
    expect([kopeck.status, kopeck.body.error.details[0].field]).toEqual([400, 'amount']);
    const notMine = await agent.post(`/console/api/invoices/${theirs.id}/refunds`).set('X-CSRF-Token', csrf).send({ amount: 1 });
    expect([notMine.status, notMine.body.error.code]).toEqual([404, 'NOT_FOUND']);
    // One refund was made, as the API lists it.
    const listed = await call(m, 'get', `/api/v2/invoices/${paid.id}/refunds`);
    expect(listed.body.data.map((r: { id: string }) => r.id)).toEqual([first.body.refund.id]);
    expect((await call(other, 'get', `/api/v2/invoices/${theirs.id}/refunds`)).body.data).toEqual([]);
  });

  it('shows an invoice’s timeline: created, paid, refunds, and the webhooks sent with their answers; another merchant’s is a 404', async () => {
    await deliverWebhooks([200]);
    const { agent } = await signIn(m);
    const res = await agent.get(`/console/api/invoices/${paid.id}/timeline`);
    expect(res.status).toBe(200);
    expect(res.body.invoice).toEqual((await call(m, 'get', `/api/v2/invoices/${paid.id}`)).body.invoice);
    expect(res.body.refunds).toEqual((await call(m, 'get', `/api/v2/invoices/${paid.id}/refunds`)).body.data);
    const hooks = res.body.webhooks as { event: string; status: string; endpoint: { url: string }; attempts: { statusCode: number }[] }[];
    expect(hooks.map((w) => [w.event, w.status, w.endpoint.url, w.attempts.map((a) => a.statusCode)])).toEqual([
      ['invoice.paid', 'succeeded', 'https://hooks.example.com/pay', [500, 200]],
      ['invoice.refunded', 'succeeded', 'https://hooks.example.com/pay', [200]],
    ]);

    const page = await agent.get(`/console/payments/${paid.id}`);
    expect(page.status).toBe(200);
    const kinds = [...page.text.matchAll(/data-kind="([a-z-]+)"/g)].map((x) => x[1]);
    expect(kinds).toEqual(['created', 'paid', 'webhook', 'refund', 'refund', 'webhook']);
    expect(page.text).toContain('Paid from T-Bank');
    expect(page.text).toContain('Refunded 100.25 RUB');
    expect(page.text).toMatch(/2 attempts · last HTTP 200/);
    expect(page.text).toContain('data-testid="refund-form"');
    expect(page.text).toContain('max="1400.25" value="1400.25"');

    const { agent: theirAgent } = await signIn(other);
    expect((await theirAgent.get(`/console/api/invoices/${paid.id}/timeline`)).status).toBe(404);
    const theirPage = await theirAgent.get(`/console/payments/${paid.id}`);
    expect(theirPage.status).toBe(404);
    expect(theirPage.text).not.toContain(paid.invoiceNumber);
    expect((await agent.get(`/console/payments/${pending.id}`)).text).toContain('data-testid="no-refund">Only a paid invoice can be refunded; this one is PENDING.');
  });

  it('needs a session for every payments route and page', async () => {
    for (const path of ['/console/api/invoices', '/console/api/invoices.csv', `/console/api/invoices/${paid.id}/timeline`]) {
      expect([path, (await request(ctx.app).get(path)).status]).toEqual([path, 401]);
    }
    expect((await request(ctx.app).post(`/console/api/invoices/${paid.id}/refunds`).send({})).status).toBe(401);
    const page = await request(ctx.app).get('/console/payments');
    expect([page.status, page.headers.location]).toEqual([303, '/console/sign-in']);
  });
});
