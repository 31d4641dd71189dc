import request from 'supertest';
import { ManualClock } from '@pay/runtime';
import { eventsOf } from '@pay/webhooks';
import { decodeQrDataUri } from '@pay/testing';
import { clockSigner, invoicingAppForSuite, newMerchant, v1Request, type TestMerchant } from '../../../../test/test-support';
import { qrPngDataUri } from '../../../payments/qr';
import { countInvoices, invoiceColumns, invoiceMetadataText, setInvoiceStatus } from '../../../../test/invoices/store';

const clock = new ManualClock(new Date('2026-11-23T10:00:00.000Z'));
const ctx = invoicingAppForSuite({ clock });
const url = () => ctx.deps.config.PUBLIC_URL;
const v1 = (m: Pick<TestMerchant, 'apiKey'>, method: 'get' | 'post' | 'put', path: string, body?: unknown) => v1Request(ctx.app, m, method, path, body);
/** The merchant's live key: the currencies apply to both modes, so only a live key changes them. */
const live = (m: TestMerchant) => ({ apiKey: m.liveKey });
const CREATE_FIELDS = ['id', 'amount', 'currency', 'description', 'status', 'paymentUrl', 'metadata', 'livemode', 'paymentMethod', 'refundedAmount', 'createdAt', 'expiresAt'];

async function merchantWith(...currencies: string[]) {
  const m = await newMerchant(ctx.deps);
  if (currencies.length) expect((await v1(live(m), 'put', '/api/v1/settings/currencies', { enabledCurrencies: currencies })).status).toBe(200);
  return m;
}

describe('POST /api/v1/invoices', () => {
  it('201 with exactly the create fields; lower-case status; metadata back exactly, key order included; expiresAt 24 h by default', async () => {
    const m = await merchantWith('RUB', 'USD');
    const metadata = { orderId: 'A-17', nested: { z: 1, a: [1, 'two', null, true] }, amount: 10.5, b: 'second', a: 'third' };
    const res = await v1(m, 'post', '/api/v1/invoices', { amount: 99.99, currency: 'USD', description: 'Hoodie', metadata });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(CREATE_FIELDS);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      amount: 99.99,
      currency: 'USD',
      description: 'Hoodie',
      status: 'pending',
      paymentUrl: `${url()}/pay/${res.body.id}`,
      metadata,
      livemode: false,
      paymentMethod: 'sbp',
      refundedAmount: 0,
      createdAt: '2026-11-23T10:00:00.000Z',
      expiresAt: '2026-11-24T10:00:00.000Z',
    });
    expect(JSON.stringify(res.body.metadata)).toBe(JSON.stringify(metadata));
    const got = await v1(m, 'get', `/api/v1/invoices/${res.body.id}`);
    expect(JSON.stringify(got.body.metadata)).toBe(JSON.stringify(metadata));
    const row = await invoiceColumns(ctx.deps.db, res.body.id, ['api', 'currency']);
    expect(row).toEqual({ api: 'v1', currency: 'USD' });
  });

  it('every currency once enabled; an explicit expiresAt; description and metadata optional', async () => {
    const m = await merchantWith('USD', 'EUR', 'RUB', 'KZT');
    for (const currency of ['USD', 'EUR', 'RUB', 'KZT']) {
      const res = await v1(m, 'post', '/api/v1/invoices', { amount: 1500, currency, expiresAt: '2026-11-23T14:30:00+03:00' });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ currency, amount: 1500, description: null, metadata: {}, expiresAt: '2026-11-23T11:30:00.000Z' });
    }
  });

  it('422 CURRENCY_NOT_ENABLED for a currency the merchant has not enabled (RUB only by default); bare error', async () => {
    const m = await newMerchant(ctx.deps);
    expect((await v1(m, 'get', '/api/v1/settings/currencies')).body).toEqual({ enabledCurrencies: ['RUB'] });
    const res = await v1(m, 'post', '/api/v1/invoices', { amount: 10, currency: 'EUR' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: { code: 'CURRENCY_NOT_ENABLED', message: expect.stringContaining('EUR is not enabled'), details: [{ field: 'currency', message: expect.any(String) }] } });
    expect((await v1(m, 'post', '/api/v1/invoices', { amount: 10, currency: 'RUB' })).status).toBe(201);
    // Changed through the settings endpoint with a live key (a test key is refused: the set is the
    // live one too); RUB can be left out.
    const byTestKey = await v1(m, 'put', '/api/v1/settings/currencies', { enabledCurrencies: ['EUR', 'KZT'] });
    expect(byTestKey.status).toBe(403);
    expect(byTestKey.body).toEqual({ error: { code: 'FORBIDDEN', message: expect.stringContaining('use a live key') } });
    expect((await v1(live(m), 'get', '/api/v1/settings/currencies')).body).toEqual({ enabledCurrencies: ['RUB'] });
    expect((await v1(live(m), 'put', '/api/v1/settings/currencies', { enabledCurrencies: ['EUR', 'KZT'] })).body).toEqual({ enabledCurrencies: ['EUR', 'KZT'] });
    expect((await v1(m, 'get', '/api/v1/settings/currencies')).body).toEqual({ enabledCurrencies: ['EUR', 'KZT'] });
    expect((await v1(m, 'post', '/api/v1/invoices', { amount: 10, currency: 'EUR' })).status).toBe(201);
    expect((await v1(m, 'post', '/api/v1/invoices', { amount: 10, currency: 'RUB' })).status).toBe(422);
    expect((await v1(live(m), 'put', '/api/v1/settings/currencies', { enabledCurrencies: [] })).status).toBe(400);
    expect((await v1(live(m), 'put', '/api/v1/settings/currencies', { enabledCurrencies: ['GBP'] })).status).toBe(400);
  });

  it('400 for bad input: each failing field named, bare error', async () => {
    const m = await newMerchant(ctx.deps);
    const bad = await v1(m, 'post', '/api/v1/invoices', { amount: -1, currency: 'GBP', redirectUrl: 'javascript:alert(1)', extra: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');
    expect(bad.body).not.toHaveProperty('success');
    expect(bad.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['amount', 'currency', 'extra', 'redirectUrl']);
    const missing = await v1(m, 'post', '/api/v1/invoices', { description: 'x' });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['amount', 'currency']);
    const cents = await v1(m, 'post', '/api/v1/invoices', { amount: 1.005, currency: 'RUB' });
    expect(cents.status).toBe(400);
    expect(cents.body.error.details).toEqual([{ field: 'amount', message: 'must have at most 2 decimal places' }]);
  });

  it('an explicit expiresAt in the past (or now, or not a date) is refused with 400', async () => {
    const m = await newMerchant(ctx.deps);
    for (const expiresAt of ['2026-11-23T09:59:59Z', '2026-11-23T10:00:00.000Z', 'tomorrow', '2027-06-01T00:00:00Z']) {
      const res = await v1(m, 'post', '/api/v1/invoices', { amount: 10, currency: 'RUB', expiresAt });
      expect(res.status).toBe(400);
      expect(res.body.error.details[0].field).toBe('expiresAt');
    }
  });

  it('401 with a wrong or missing key; v1 needs no signature', async () => {
    const noKey = await request(ctx.app).post('/api/v1/invoices').send({ amount: 10, currency: 'RUB' });
    expect(noKey.status).toBe(401);
    expect(noKey.body).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
    const wrong = await request(ctx.app).get('/api/v1/invoices/00000000-0000-4000-8000-000000000000').set('x-api-key', 'sk_test_' + 'x'.repeat(43));
    expect(wrong.status).toBe(401);
  });

  it('Idempotency-Key: the same request twice creates one invoice; another body with the key is a 409', async () => {
    const m = await newMerchant(ctx.deps);
    const send = (body: object) => v1Request(ctx.app, m, 'post', '/api/v1/invoices', body).set('Idempotency-Key', 'order-77');
    const first = await send({ amount: 10, currency: 'RUB' });
    const again = await send({ amount: 10, currency: 'RUB' });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect((await send({ amount: 11, currency: 'RUB' })).status).toBe(409);
    expect(await countInvoices(ctx.deps.db, m.merchantId)).toBe(1);
  });
});

describe('metadata comes back exactly as given (issue 11)', () => {
  // What JSON.parse + JSON.stringify would change: digits past a double's, 2.50, escapes, spacing; key order and unicode kept too.
  const META = '{ "orderId": "A-17", "big": 12345678901234567890, "price": 2.50, "z": 1, "a": [1.0, -0.000, 1e2],\n "name": "Jürgen 😀 \\"q\\" }{", "esc": "\\u00fc", "nested": {"b": true, "a": null} }';
  const rawCreate = (m: TestMerchant, raw: string, key?: string) => {
    const req = request(ctx.app).post('/api/v1/invoices').set('x-api-key', m.apiKey).set('Content-Type', 'application/json');
    return (key ? req.set('Idempotency-Key', key) : req).send(raw);
  };

  it('in the create answer, the stored column, GET, an idempotent replay and the invoice.paid webhook body', async () => {
    const m = await newMerchant(ctx.deps);
    expect(JSON.parse(META)).toMatchObject({ big: 12345678901234567000, price: 2.5 }); // why this exists
    const res = await rawCreate(m, `{"amount": 10, "currency": "RUB", "metadata": ${META}}`, 'meta-1');
    expect(res.status).toBe(201);
    expect(res.text).toContain(`"metadata":${META},`);
    expect(await invoiceMetadataText(ctx.deps.db, res.body.id)).toBe(META);
    expect((await v1(m, 'get', `/api/v1/invoices/${res.body.id}`)).text).toContain(`"metadata":${META},`);
    const replay = await rawCreate(m, `{"amount": 10, "currency": "RUB", "metadata": ${META}}`, 'meta-1');
    expect(replay.text).toBe(res.text);
    expect((await v1(m, 'post', `/api/v1/sandbox/invoices/${res.body.id}/pay`, {})).text).toContain(`"metadata":${META},`);
    const [paid] = await eventsOf(ctx.deps.db, { merchantId: m.merchantId, isTest: true }, 'invoice.paid');
    expect(paid!.rawBody).toContain(`"metadata":${META},`);
  });

  it('the last of duplicate metadata members, as JSON reads it; {} when none; still an object or 400', async () => {
    const m = await newMerchant(ctx.deps);
    const dup = await rawCreate(m, '{"metadata": {"first": 1.10}, "amount": 1, "currency": "RUB", "metadata": {"last": 2.20}}');
    expect(dup.status).toBe(201);
    expect(dup.text).toContain('"metadata":{"last": 2.20},');
    expect((await rawCreate(m, '{"amount": 1, "currency": "RUB"}')).body.metadata).toEqual({});
    for (const bad of ['[1]', '"x"', '12345678901234567890', 'null']) {
      const res = await rawCreate(m, `{"amount": 1, "currency": "RUB", "metadata": ${bad}}`);
      expect([bad, res.status, res.body.error?.details?.[0]?.field]).toEqual([bad, 400, 'metadata']);
    }
    // The bytes are the text that comes back: JSON in UTF-8 (RFC 8259); other encodings do not parse.
    const utf16 = await request(ctx.app).post('/api/v1/invoices').set('x-api-key', m.apiKey).set('Content-Type', 'application/json; charset=utf-16le')
      .send(Buffer.from('{"amount": 1, "currency": "RUB", "metadata": {"a": 1}}', 'utf16le'));
    expect([utf16.status, utf16.body.error?.code]).toEqual([400, 'VALIDATION_ERROR']);
    const utf8 = await request(ctx.app).post('/api/v1/invoices').set('x-api-key', m.apiKey).set('Content-Type', 'application/json; charset=UTF-8').send('{"amount": 1, "currency": "RUB", "metadata": {"a": 1.0}}');
    expect([utf8.status, utf8.body.metadata]).toEqual([201, { a: 1 }]);
  });

  it('v2 create keeps it too: the invoice.* webhook bodies carry the text sent', async () => {
    const m = await newMerchant(ctx.deps);
    const sign = clockSigner(() => ctx.app, clock);
    const raw = `{"amount": 10, "metadata": ${META}}`;
    // A v2 body is signed as sent, so it goes out as raw text.
    const { signedHeaders } = await import('@pay/auth');
    const headers = signedHeaders('v2', m.hmacSecret, { method: 'POST', path: '/api/v2/invoices', body: raw, now: clock.now().getTime() });
    const created = await request(ctx.app).post('/api/v2/invoices').set('x-api-key', m.apiKey).set(headers).set('Content-Type', 'application/json').send(raw);
    expect(created.status).toBe(201);
    expect((await sign(m, 'post', `/api/v2/invoices/${created.body.invoice.id}/cancel`)).status).toBe(200);
    const [cancelled] = await eventsOf(ctx.deps.db, { merchantId: m.merchantId, isTest: true }, 'invoice.cancelled');
    expect(cancelled!.rawBody).toContain(`"metadata":${META},`);
  });
});

describe('GET /api/v1/invoices/{id}, cancel and sandbox pay', () => {
  it('pending: the create fields and qrCodeUrl (the stored QR); paid: paidAt, sbpTransactionId and payerBank', async () => {
    const m = await newMerchant(ctx.deps);
    const { body: inv } = await v1(m, 'post', '/api/v1/invoices', { amount: 250.5, currency: 'RUB' });
    const pending = await v1(m, 'get', `/api/v1/invoices/${inv.id}`);
    expect(pending.status).toBe(200);
    expect(Object.keys(pending.body)).toEqual([...CREATE_FIELDS, 'qrCodeUrl', 'review']);
    expect(decodeQrDataUri(pending.body.qrCodeUrl)).toBe(`${url()}/pay/${inv.id}/sbp`);
    clock.advance(60_000);
    const paid = await v1(m, 'post', `/api/v1/sandbox/invoices/${inv.id}/pay`, { payerBank: 'Sber' });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ id: inv.id, status: 'paid', payerBank: 'Sber', paidAt: '2026-11-23T10:01:00.000Z', sbpTransactionId: expect.stringMatching(/\S/) });
    const got = await v1(m, 'get', `/api/v1/invoices/${inv.id}`);
    expect(Object.keys(got.body)).toEqual([...CREATE_FIELDS, 'qrCodeUrl', 'sbpTransactionId', 'payerBank', 'paidAt', 'review']);
    expect(got.body).toEqual(paid.body);
    const twice = await v1(m, 'post', `/api/v1/sandbox/invoices/${inv.id}/pay`, {});
    expect(twice.status).toBe(422);
    expect(twice.body.error.code).toBe('INVOICE_ALREADY_PAID');
  });

  it('a create stores no QR image (its answer has none); the first view draws the one a create would have, stores it, and every view answers it', async () => {
    const m = await newMerchant(ctx.deps);
    const v2 = clockSigner(() => ctx.app, clock);
    const { body: inv } = await v1(m, 'post', '/api/v1/invoices', { amount: 99.99, currency: 'RUB' });
    expect(inv).not.toHaveProperty('qrCodeUrl');
    const payload = `${url()}/pay/${inv.id}/sbp`;
    expect(await invoiceColumns(ctx.deps.db, inv.id, ['qr_code', 'qr_payload'])).toEqual({ qr_code: null, qr_payload: payload });
    // The first view is the v2 list here (the console's payments too): it draws and stores the image.
    const list = await v2(m, 'get', '/api/v2/invoices');
    expect(list.status).toBe(200);
    expect(list.body.data.find((i: { id: string }) => i.id === inv.id).qrCode).toBe(qrPngDataUri(payload));
    expect((await invoiceColumns(ctx.deps.db, inv.id, ['qr_code']))!.qr_code).toBe(qrPngDataUri(payload));
    const got = await v1(m, 'get', `/api/v1/invoices/${inv.id}`);
    expect(got.body.qrCodeUrl).toBe(qrPngDataUri(payload));
    // A first view by GET (v1 here, v2 and the hosted page read the same way) draws the same image.
    const { body: other } = await v1(m, 'post', '/api/v1/invoices', { amount: 99.98, currency: 'RUB' });
    const first = await v1(m, 'get', `/api/v1/invoices/${other.id}`);
    expect(first.body.qrCodeUrl).toBe(qrPngDataUri(`${url()}/pay/${other.id}/sbp`));
    expect((await invoiceColumns(ctx.deps.db, other.id, ['qr_code']))!.qr_code).toBe(first.body.qrCodeUrl);
    expect((await v2(m, 'get', `/api/v2/invoices/${other.id}`)).body.invoice.qrCode).toBe(first.body.qrCodeUrl);
    const { body: third } = await v1(m, 'post', '/api/v1/invoices', { amount: 99.97, currency: 'RUB' });
    const page = await request(ctx.app).get(`/pay/${third.id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`src="${qrPngDataUri(`${url()}/pay/${third.id}/sbp`)}"`);
  });

  it('cancel: cancelled in lower case, and then not payable', async () => {
    const m = await newMerchant(ctx.deps);
    const { body: inv } = await v1(m, 'post', '/api/v1/invoices', { amount: 5, currency: 'RUB' });
    const cancelled = await v1(m, 'post', `/api/v1/invoices/${inv.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    expect((await v1(m, 'post', `/api/v1/sandbox/invoices/${inv.id}/pay`, {})).body.error.code).toBe('INVOICE_CANCELLED');
  });

  it('expired shows as expired', async () => {
    const m = await newMerchant(ctx.deps);
    const { body: inv } = await v1(m, 'post', '/api/v1/invoices', { amount: 5, currency: 'RUB' });
    await setInvoiceStatus(ctx.deps.db, inv.id, 'EXPIRED');
    expect((await v1(m, 'get', `/api/v1/invoices/${inv.id}`)).body.status).toBe('expired');
  });

  it('404 for an unknown id, a malformed one and another merchant’s invoice; the sandbox refuses live keys', async () => {
    const m = await newMerchant(ctx.deps);
    const other = await newMerchant(ctx.deps);
    const { body: inv } = await v1(m, 'post', '/api/v1/invoices', { amount: 5, currency: 'RUB' });
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-an-id', inv.id]) {
      const res = await v1(other, 'get', `/api/v1/invoices/${id}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
    }
    expect((await v1(other, 'post', '/api/v1/invoices/nope/cancel')).status).toBe(404);
    const live = await v1({ apiKey: m.liveKey }, 'post', `/api/v1/sandbox/invoices/${inv.id}/pay`, {});
    expect(live.status).toBe(403);
  });
});

describe('the hosted page honours redirectUrl and successUrl', () => {
  it('successUrl: the payment sends the payer there at once, and the page of a paid invoice redirects too', async () => {
    const m = await newMerchant(ctx.deps);
    const { body: inv } = await v1(m, 'post', '/api/v1/invoices', { amount: 5, currency: 'RUB', successUrl: 'https://shop.example/thanks?o=1', redirectUrl: 'https://shop.example/back' });
    const paid = await request(ctx.app).post(`/pay/${inv.id}/sbp`).type('form').send({ payerBank: 'Sandbox Bank' });
    expect(paid.status).toBe(303);
    expect(paid.headers.location).toBe('https://shop.example/thanks?o=1');
    const page = await request(ctx.app).get(`/pay/${inv.id}`);
    expect(page.status).toBe(303);
    expect(page.headers.location).toBe('https://shop.example/thanks?o=1');
  });

  it('without successUrl the page shows the paid status; redirectUrl is a link back (followed by the script after 5 s)', async () => {
    const m = await newMerchant(ctx.deps);
    const { body: inv } = await v1(m, 'post', '/api/v1/invoices', { amount: 5, currency: 'RUB', redirectUrl: 'https://shop.example/back?a=1&b=%3Cx%3E' });
    const paid = await request(ctx.app).post(`/pay/${inv.id}/sbp`).type('form').send({ payerBank: 'Sandbox Bank' });
    expect(paid.headers.location).toBe(`/pay/${inv.id}`);
    const page = await request(ctx.app).get(`/pay/${inv.id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('data-testid="status">PAID</p>');
    expect(page.text).toContain('data-return-after-ms="5000" href="https://shop.example/back?a=1&amp;b=%3Cx%3E"');
    // Neither URL: the paid page alone.
    const { body: plain } = await v1(m, 'post', '/api/v1/invoices', { amount: 5, currency: 'RUB' });
    await request(ctx.app).post(`/pay/${plain.id}/sbp`).type('form').send({ payerBank: 'Sandbox Bank' });
    const plainPage = await request(ctx.app).get(`/pay/${plain.id}`);
    expect(plainPage.text).toContain('You can close this page.');
    expect(plainPage.text).not.toContain('data-testid="return"');
  });
});

describe('v1 invoices through v2', () => {
  it('the v2 read and refunds show a v1 invoice in its own currency', async () => {
    const m = await newMerchant(ctx.deps);
    expect((await v1(live(m), 'put', '/api/v1/settings/currencies', { enabledCurrencies: ['RUB', 'EUR'] })).status).toBe(200);
    const { body: inv } = await v1(m, 'post', '/api/v1/invoices', { amount: 7, currency: 'EUR' });
    const res = await clockSigner(() => ctx.app, clock)(m, 'get', `/api/v2/invoices/${inv.id}`);
    expect(res.status).toBe(200);
    expect(res.body.invoice).toMatchObject({ id: inv.id, currency: 'EUR', amount: 7, status: 'PENDING' });
    // Refunded through v2 (v1 has no refund endpoint), in the invoice's own currency.
    const call = clockSigner(() => ctx.app, clock);
    expect((await v1(m, 'post', `/api/v1/sandbox/invoices/${inv.id}/pay`, {})).status).toBe(200);
    const refund = await call(m, 'post', `/api/v2/invoices/${inv.id}/refunds`, { amount: 2.5 });
    expect(refund.status).toBe(201);
    expect(refund.body.refund).toMatchObject({ amount: 2.5, currency: 'EUR', status: 'SUCCEEDED' });
    expect((await call(m, 'get', `/api/v2/invoices/${inv.id}/refunds`)).body.data).toMatchObject([{ amount: 2.5, currency: 'EUR' }]);
  });
});
