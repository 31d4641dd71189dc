import Papa from 'papaparse';
import { consoleSignIn, liveInvoicingForSuite, newMerchant, v2Request, type TestMerchant } from '../../../test/test-support';
import { CSV_COLUMNS } from './payments';

/**
 * The mode filter of the console's payments (issue 31 point 7): a live key's session switches
 * the list, its CSV, an invoice and its refund between live and test data, each answering what
 * the v2 API answers a key of that mode; a test key's session is refused live (403), for reads
 * and refunds alike. Live invoices need a live acquirer: the T-Bank protocol emulator.
 */
const { ctx, emulator } = liveInvoicingForSuite({ terminal: 'ModesTerminal', password: 'modes-secret' });

let m: TestMerchant;
/** The same merchant's live key, as the v2 API's caller. */
let live: TestMerchant;
let livePaid: { id: string; invoiceNumber: string };
let livePending: { id: string };
let testPaid: { id: string; invoiceNumber: string };

beforeAll(async () => {
  m = await newMerchant(ctx.deps);
  live = { ...m, apiKey: m.liveKey, isTest: false };
  const create = async (who: TestMerchant, body: Record<string, unknown>) => {
    const res = await v2Request(ctx.app, who, 'post', '/api/v2/invoices', body);
    expect(res.status).toBe(201);
    return res.body.invoice;
  };
  livePaid = await create(live, { amount: 700, description: 'Live coat' });
  livePending = await create(live, { amount: 80, description: 'Live hat', paymentMethod: 'card' });
  emulator.pay(emulator.paymentsOfOrder(livePaid.id)[0]!.paymentId, { method: 'sbp', payerBank: 'Sber' });
  testPaid = await create(m, { amount: 120.5, description: 'Test scarf' });
  expect((await v2Request(ctx.app, m, 'post', `/api/v2/sandbox/invoices/${testPaid.id}/pay`, {})).status).toBe(200);
  await create(m, { amount: 3, description: 'Test gloves' });
  const get = async (id: string) => (await v2Request(ctx.app, live, 'get', `/api/v2/invoices/${id}`)).body.invoice;
  for (let i = 0; i < 100 && (await get(livePaid.id)).status !== 'PAID'; i++) await new Promise((r) => setTimeout(r, 100));
  expect((await get(livePaid.id)).status).toBe('PAID');
});

const ids = (body: { data: { id: string }[] }) => body.data.map((i) => i.id).sort();

describe('a live key’s session switches between live and test data', () => {
  it('lists exactly what GET /api/v2/invoices answers a key of the chosen mode (live by default), filters included', async () => {
    const { agent } = await consoleSignIn(ctx.app, m.liveKey);
    for (const [qs, who] of [
      ['', live],
      ['mode=live', live],
      ['mode=test', m],
      ['mode=test&status=PAID', m],
      ['mode=live&paymentMethod=card', live],
    ] as const) {
      const apiQuery = qs.replace(/(^|&)mode=\w+&?/, '$1');
      const api = await v2Request(ctx.app, who, 'get', `/api/v2/invoices?${apiQuery}`);
      const console = await agent.get(`/console/api/invoices?${qs}`);
      expect([qs, console.status]).toEqual([qs, 200]);
      expect(console.body).toEqual(api.body);
    }
    expect(ids((await agent.get('/console/api/invoices')).body)).toEqual([livePaid.id, livePending.id].sort());
    expect(ids((await agent.get('/console/api/invoices?mode=test')).body)).not.toContain(livePaid.id);
    const bad = await agent.get('/console/api/invoices?mode=sandbox');
    expect([bad.status, bad.body.error.code, bad.body.error.details[0].field]).toEqual([400, 'VALIDATION_ERROR', 'mode']);
  });

  it('exports the chosen mode’s list as CSV, named for it', async () => {
    const { agent } = await consoleSignIn(ctx.app, m.liveKey);
    const liveCsv = await agent.get('/console/api/invoices.csv');
    expect(liveCsv.headers['content-disposition']).toBe('attachment; filename="invoices-live.csv"');
    const liveRows = Papa.parse<string[]>(liveCsv.text.trimEnd()).data.slice(1);
    expect(liveRows.map((r) => r[CSV_COLUMNS.indexOf('livemode')])).toEqual(['true', 'true']);
    const testCsv = await agent.get('/console/api/invoices.csv?mode=test&status=PAID');
    expect(testCsv.headers['content-disposition']).toBe('attachment; filename="invoices-test.csv"');
    expect(Papa.parse<string[]>(testCsv.text.trimEnd()).data.slice(1).map((r) => [r[0], r[CSV_COLUMNS.indexOf('livemode')]])).toEqual([[testPaid.id, 'false']]);
  });

  it('opens and refunds a test invoice with mode=test, through the API’s refund; without it the test invoice is not the session’s', async () => {
    const { agent, csrf } = await consoleSignIn(ctx.app, m.liveKey);
    expect((await agent.get(`/console/api/invoices/${testPaid.id}/timeline`)).status).toBe(404);
    const timeline = await agent.get(`/console/api/invoices/${testPaid.id}/timeline?mode=test`);
    expect(timeline.status).toBe(200);
    expect(timeline.body.invoice).toEqual((await v2Request(ctx.app, m, 'get', `/api/v2/invoices/${testPaid.id}`)).body.invoice);
    expect((await agent.post(`/console/api/invoices/${testPaid.id}/refunds`).set('X-CSRF-Token', csrf).send({ amount: 20 })).status).toBe(404);
    const refunded = await agent.post(`/console/api/invoices/${testPaid.id}/refunds?mode=test`).set('X-CSRF-Token', csrf).send({ amount: 20.5 });
    expect(refunded.status).toBe(201);
    expect(refunded.body.invoice).toMatchObject({ refundedAmount: 20.5, refundableAmount: 100 });
    expect((await v2Request(ctx.app, m, 'get', `/api/v2/invoices/${testPaid.id}/refunds`)).body.data).toEqual([expect.objectContaining({ amount: 20.5, status: 'SUCCEEDED' })]);
  });

  it('shows the mode in the page: a Mode select, and links, CSV and the refund form carrying mode=test', async () => {
    const { agent } = await consoleSignIn(ctx.app, m.liveKey);
    const livePage = (await agent.get('/console/payments')).text;
    expect(livePage).toContain('<option value="live" selected>Live</option><option value="test" >Test</option>');
    expect(livePage).toContain(`href="/console/payments/${livePaid.id}">`);
    expect(livePage).not.toContain(testPaid.id);
    const testPage = await agent.get('/console/payments?mode=test&search=scarf');
    expect(testPage.status).toBe(200);
    expect(testPage.text).toContain('<option value="test" selected>Test</option>');
    expect(testPage.text).toContain('data-testid="payments-total">1 payment<');
    expect(testPage.text).toContain(`href="/console/payments/${testPaid.id}?mode=test">${testPaid.invoiceNumber}</a>`);
    expect(testPage.text).toContain('href="/console/api/invoices.csv?search=scarf&amp;mode=test"');
    expect(testPage.text).not.toContain(livePaid.id);
    const detail = (await agent.get(`/console/payments/${testPaid.id}?mode=test`)).text;
    expect(detail).toContain('data-testid="viewing-mode">Test data<');
    expect(detail).toContain(`data-api="/console/api/invoices/${testPaid.id}/refunds?mode=test"`);
    expect(detail).toContain('href="/console/payments?mode=test"');
    expect((await agent.get(`/console/payments/${testPaid.id}`)).status).toBe(404);
    // The review queue follows the viewed mode too (its links carry it from the payments pages).
    const reviews = await agent.get('/console/api/payment-reviews?mode=test');
    expect([reviews.status, reviews.body.data]).toEqual([200, []]);
    expect((await agent.get('/console/payment-reviews?mode=test')).status).toBe(200);
    expect((await agent.get('/console/api/payment-reviews?mode=both')).status).toBe(400);
  });
});

describe('a test key’s session never reveals or moves live money', () => {
  it('is refused live (403) on the list, the CSV, an invoice, a refund, a review decision and the pages; nothing is refunded', async () => {
    const { agent, csrf } = await consoleSignIn(ctx.app, m.apiKey);
    for (const path of ['/console/api/invoices?mode=live', '/console/api/invoices.csv?mode=live', `/console/api/invoices/${livePaid.id}/timeline?mode=live`, '/console/api/payment-reviews?mode=live']) {
      const res = await agent.get(path);
      expect([path, res.status, res.body.error.code]).toEqual([path, 403, 'FORBIDDEN']);
      expect(res.body.error.message).toMatch(/signed in with a test key: it shows test data only\. Sign in with a live key/);
    }
    const refund = await agent.post(`/console/api/invoices/${livePaid.id}/refunds?mode=live`).set('X-CSRF-Token', csrf).send({ amount: 1 });
    expect([refund.status, refund.body.error.code]).toEqual([403, 'FORBIDDEN']);
    const accept = await agent.post(`/console/api/payment-reviews/${livePaid.id}/accept?mode=live`).set('X-CSRF-Token', csrf).send({});
    expect([accept.status, accept.body.error.code]).toEqual([403, 'FORBIDDEN']);
    // Its own mode's calls, without a mode, never reach the live invoice either.
    expect((await agent.post(`/console/api/invoices/${livePaid.id}/refunds`).set('X-CSRF-Token', csrf).send({ amount: 1 })).status).toBe(404);
    expect((await v2Request(ctx.app, live, 'get', `/api/v2/invoices/${livePaid.id}`)).body.invoice).toMatchObject({ status: 'PAID', refundedAmount: 0 });
    expect(emulator.paymentsOfOrder(livePaid.id)[0]).toMatchObject({ status: 'CONFIRMED' });

    for (const path of ['/console/payments?mode=live', `/console/payments/${livePaid.id}?mode=live`, '/console/payment-reviews?mode=live']) {
      const page = await agent.get(path).set('Accept', 'text/html');
      expect([path, page.status]).toEqual([path, 403]);
      expect(page.text).not.toContain(livePaid.invoiceNumber);
    }
    const own = await agent.get('/console/payments?mode=test');
    expect(own.status).toBe(200);
    expect(own.text).toContain('data-testid="list-mode">Test<');
    expect(own.text).not.toContain('name="mode"');
    expect(own.text).not.toContain(livePaid.id);
  });
});
