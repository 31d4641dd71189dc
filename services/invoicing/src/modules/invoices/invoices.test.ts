import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { ManualClock } from '@pay/runtime';
import { decodeQrDataUri } from '@pay/testing';
import { abandonIdempotencyClaim, clockSigner, invoicingAppForSuite, newMerchant, type TestMerchant } from '../../../test/test-support';
import { countInvoices, invoiceColumns } from '../../../test/invoices/store';

const clock = new ManualClock(new Date('2026-11-23T10:00:00.000Z'));
const ctx = invoicingAppForSuite({ clock, liveSandbox: true });
const url = () => ctx.deps.config.PUBLIC_URL;
const call = clockSigner(() => ctx.app, clock);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function create(m: TestMerchant, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return call(m, 'post', '/api/v2/invoices', body, { headers });
}

describe('POST /api/v2/invoices', () => {
  it('SBP (the default): exactly the create fields, a stored PNG QR of qrPayload, customer null', async () => {
    const m = await newMerchant(ctx.deps);
    const res = await create(m, { amount: 1234.5, description: 'Order #42', customerEmail: 'Ann@Example.ru', customerName: 'Ann', customerPhone: '+79991234567' });
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    const inv = res.body.invoice;
    expect(Object.keys(inv).sort()).toEqual(
      [
        'id', 'invoiceNumber', 'amount', 'currency', 'description', 'status', 'livemode', 'paymentMethod', 'payerBank', 'refundedAmount', 'expiresAt', 'createdAt', 'qrCode', 'qrPayload',
        'externalOrderId', 'kycRequired', 'kycVerified', 'receiptRequired', 'paymentLink', 'customer',
      ].sort(),
    );
    expect(inv).toMatchObject({
      amount: 1234.5,
      currency: 'RUB',
      description: 'Order #42',
      status: 'PENDING',
      livemode: false,
      paymentMethod: 'sbp',
      payerBank: null,
      refundedAmount: 0,
      createdAt: '2026-11-23T10:00:00.000Z',
      expiresAt: '2026-11-23T11:00:00.000Z',
      kycRequired: false,
      kycVerified: false,
      receiptRequired: false,
      customer: null,
      paymentLink: `${url()}/pay/${inv.id}`,
      qrPayload: `${url()}/pay/${inv.id}/sbp`,
    });
    expect(inv.id).toMatch(UUID);
    expect(inv.externalOrderId).toMatch(UUID);
    expect(inv.invoiceNumber).toMatch(/^INV-20261123-[0-9A-HJ-NP-Z]{8}$/);
    expect(decodeQrDataUri(inv.qrCode)).toBe(inv.qrPayload);
    // Stored once: the row holds the very image the answer carried.
    const row = await invoiceColumns(ctx.deps.db, inv.id, ['qr_code']);
    expect(row!.qr_code).toBe(inv.qrCode);
  });

  it('card: originalPaymentUrl and paymentLink, no QR', async () => {
    const m = await newMerchant(ctx.deps);
    const res = await create(m, { amount: 10, paymentMethod: 'card', kycRequired: true, receiptRequired: true });
    expect(res.status).toBe(201);
    const inv = res.body.invoice;
    expect(inv).not.toHaveProperty('qrCode');
    expect(inv).not.toHaveProperty('qrPayload');
    expect(inv).toMatchObject({ paymentMethod: 'card', originalPaymentUrl: `${url()}/pay/${inv.id}/card`, paymentLink: `${url()}/pay/${inv.id}`, kycRequired: true, receiptRequired: true, description: null });
    const sbp = await create(m, { amount: 10, paymentMethod: 'sbp' });
    expect(sbp.body.invoice).not.toHaveProperty('originalPaymentUrl');
  });

  it('keeps kopecks exactly, whatever a double would print', async () => {
    const m = await newMerchant(ctx.deps);
    for (const [sent, text] of [
      [0.01, '0.01'],
      [100.1, '100.1'],
      [999999999.99, '999999999.99'],
      [19.9, '19.9'],
      [70.07, '70.07'],
    ] as const) {
      const res = await create(m, { amount: sent });
      expect(res.status).toBe(201);
      expect(res.text).toContain(`"amount":${text},`);
      const row = await invoiceColumns(ctx.deps.db, res.body.invoice.id, ['amount']);
      expect(row!.amount).toBe(Number(text).toFixed(2));
    }
  });

  it('honours expiresInHours within 1/60 (one minute)..720, ISO with milliseconds', async () => {
    const m = await newMerchant(ctx.deps);
    const at = (h: number) => create(m, { amount: 1, expiresInHours: h }).then((r) => r.body.invoice.expiresAt);
    expect(await at(1 / 60)).toBe('2026-11-23T10:01:00.000Z');
    expect(await at(0.25)).toBe('2026-11-23T10:15:00.000Z');
    expect(await at(24)).toBe('2026-11-24T10:00:00.000Z');
    expect(await at(720)).toBe('2026-12-23T10:00:00.000Z');
    expect(await at(1.5)).toBe('2026-11-23T11:30:00.000Z');
  });

  it.each([
    [{ amount: 0 }, 'amount', 'must be > 0'],
    [{ amount: -5 }, 'amount', 'must be > 0'],
    [{ amount: 1.005 }, 'amount', 'must have at most 2 decimal places'],
    [{ amount: 1e9 }, 'amount', 'must be less than 1000000000'],
    [{ amount: '10' }, 'amount', 'must be number'],
    [{}, 'amount', 'is required'],
    [{ amount: 1, customerPhone: '89991234567' }, 'customerPhone', 'must match pattern "^\\+7\\d{10}$"'],
    [{ amount: 1, customerPhone: '+7999123456' }, 'customerPhone', 'must match pattern "^\\+7\\d{10}$"'],
    [{ amount: 1, customerEmail: 'not-an-email' }, 'customerEmail', 'must match format "email"'],
    [{ amount: 1, paymentMethod: 'cash' }, 'paymentMethod', 'must be one of: sbp, card'],
    [{ amount: 1, expiresInHours: 0.0166 }, 'expiresInHours', 'must be >= 1/60 (one minute)'],
    [{ amount: 1, expiresInHours: 721 }, 'expiresInHours', 'must be <= 720'],
    [{ amount: 1, kycRequired: 'yes' }, 'kycRequired', 'must be boolean'],
    [{ amount: 1, currency: 'USD' }, 'currency', 'is not a known field'],
    [{ amount: 1, description: 'x'.repeat(501) }, 'description', 'must NOT have more than 500 characters'],
  ])('refuses %j: 400 naming %s, nothing written', async (body, field, message) => {
    const m = await newMerchant(ctx.deps);
    const res = await create(m, body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    expect(res.body.error.details).toContainEqual({ field, message });
    expect(await countInvoices(ctx.deps.db, m.merchantId)).toBe(0);
  });

  it('answers a retried create with its Idempotency-Key once, and refuses the key with another body', async () => {
    const m = await newMerchant(ctx.deps);
    const first = await create(m, { amount: 50 }, { 'Idempotency-Key': 'order-1' });
    const again = await create(m, { amount: 50 }, { 'Idempotency-Key': 'order-1' });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    const other = await create(m, { amount: 51 }, { 'Idempotency-Key': 'order-1' });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('IDEMPOTENCY_CONFLICT');
    const list = await call(m, 'get', '/api/v2/invoices');
    expect(list.body.pagination.total).toBe(1);
  });

  it('creates once when the process died between writing the invoice and storing its answer', async () => {
    const m = await newMerchant(ctx.deps);
    const key = `order-${m.merchantId}`;
    const first = await create(m, { amount: 75, description: 'resumed' }, { 'Idempotency-Key': key });
    expect(first.status).toBe(201);
    await abandonIdempotencyClaim(ctx.deps.db, key);
    const retry = await create(m, { amount: 75, description: 'resumed' }, { 'Idempotency-Key': key });
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    const list = await call(m, 'get', '/api/v2/invoices');
    expect(list.body.pagination.total).toBe(1);
  });

  it('needs a signed request', async () => {
    const m = await newMerchant(ctx.deps);
    const unsigned = await request(ctx.app).post('/api/v2/invoices').set('x-api-key', m.apiKey).send({ amount: 1 });
    expect(unsigned.status).toBe(401);
    const noKey = await request(ctx.app).get('/api/v2/invoices');
    expect(noKey.status).toBe(401);
  });
});

describe('GET /api/v2/invoices/{id}', () => {
  it('has every get field: customer fields, paidAt, receiptRequired, customer (null until someone is known)', async () => {
    const m = await newMerchant(ctx.deps);
    const c = await create(m, { amount: 99.99, customerEmail: 'bob@example.ru', customerName: 'Bob', customerPhone: '+79990000001', paymentMethod: 'card' });
    const res = await call(m, 'get', `/api/v2/invoices/${c.body.invoice.id}`);
    expect(res.status).toBe(200);
    const inv = res.body.invoice;
    expect(Object.keys(inv).sort()).toEqual(
      [
        'id', 'invoiceNumber', 'amount', 'currency', 'description', 'status', 'livemode', 'paymentMethod', 'payerBank', 'refundedAmount', 'customerEmail', 'customerName', 'customerPhone', 'expiresAt', 'createdAt',
        'paidAt', 'sbpTransactionId', 'externalOrderId', 'kycRequired', 'kycVerified', 'receiptRequired', 'paymentLink', 'originalPaymentUrl', 'customer', 'review', 'attempts',
      ].sort(),
    );
    const { customer: _none, ...createdShared } = c.body.invoice;
    expect(inv).toMatchObject({ ...createdShared, customerEmail: 'bob@example.ru', customerName: 'Bob', customerPhone: '+79990000001', paidAt: null, sbpTransactionId: null, customer: null });
  });

  it('is 404 for an unknown id, another merchant’s invoice, or the other mode’s', async () => {
    const m = await newMerchant(ctx.deps);
    const other = await newMerchant(ctx.deps);
    const c = await create(m, { amount: 5 });
    const id = c.body.invoice.id;
    for (const [who, path] of [
      [other, `/api/v2/invoices/${id}`],
      [{ ...m, apiKey: m.liveKey }, `/api/v2/invoices/${id}`],
      [m, '/api/v2/invoices/00000000-0000-4000-8000-000000000000'],
    ] as const) {
      const res = await call(who, 'get', path);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    const bad = await call(m, 'get', '/api/v2/invoices/not-a-uuid');
    expect(bad.status).toBe(400);
  });
});

describe('GET /api/v2/invoices', () => {
  let m: TestMerchant;
  const ids: string[] = [];
  beforeAll(async () => {
    m = await newMerchant(ctx.deps);
    for (let i = 0; i < 60; i++) {
      clock.advance(1000);
      const res = await create(m, { amount: i + 1, customerEmail: `c${i}@example.ru`, customerName: `C ${i}`, customerPhone: '+79990000002', ...(i % 10 === 0 ? { paymentMethod: 'card' } : {}) });
      ids.unshift(res.body.invoice.id);
    }
    // Three paid, two cancelled: the status filter has something to tell apart.
    for (const id of ids.slice(0, 3)) expect((await call(m, 'post', `/api/v2/sandbox/invoices/${id}/pay`, {})).status).toBe(200);
    for (const id of ids.slice(3, 5)) expect((await call(m, 'post', `/api/v2/invoices/${id}/cancel`)).status).toBe(200);
  });

  it('is newest first, 50 by default, with the pagination envelope and the list fields only', async () => {
    const res = await call(m, 'get', '/api/v2/invoices');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'pagination', 'success']);
    expect(res.body.pagination).toEqual({ total: 60, limit: 50, offset: 0, pages: 2 });
    expect(res.body.data.map((i: { id: string }) => i.id)).toEqual(ids.slice(0, 50));
    const sbp = res.body.data.find((i: { qrCode?: string }) => i.qrCode);
    expect(Object.keys(sbp).sort()).toEqual(
      [
        'id', 'invoiceNumber', 'amount', 'currency', 'description', 'status', 'livemode', 'paymentMethod', 'payerBank', 'refundedAmount', 'customerEmail', 'customerName', 'expiresAt', 'createdAt', 'paidAt', 'qrCode',
        'qrPayload', 'externalOrderId', 'kycRequired', 'kycVerified', 'paymentLink',
      ].sort(),
    );
    const card = res.body.data.find((i: { qrCode?: string }) => !i.qrCode);
    expect(card).not.toHaveProperty('originalPaymentUrl');
    expect(card).not.toHaveProperty('customerPhone');
    expect(card).not.toHaveProperty('receiptRequired');
    expect(card).not.toHaveProperty('customer');
    expect(res.body.data[0]).toMatchObject({ status: 'PAID', amount: 60, paidAt: expect.any(String) });
  });

  it('pages with limit and offset, up to 1000', async () => {
    const page = await call(m, 'get', '/api/v2/invoices?limit=7&offset=14');
    expect(page.body.pagination).toEqual({ total: 60, limit: 7, offset: 14, pages: 9 });
    expect(page.body.data.map((i: { id: string }) => i.id)).toEqual(ids.slice(14, 21));
    const all = await call(m, 'get', '/api/v2/invoices?limit=1000');
    expect(all.body.data).toHaveLength(60);
    const beyond = await call(m, 'get', '/api/v2/invoices?offset=100');
    expect(beyond.body).toEqual({ success: true, data: [], pagination: { total: 60, limit: 50, offset: 100, pages: 2 } });
    const furthest = await call(m, 'get', '/api/v2/invoices?offset=1000000000');
    expect(furthest.body.pagination).toEqual({ total: 60, limit: 50, offset: 1000000000, pages: 2 });
  });

  it('bounds offset at 1,000,000,000 on every v2 list (99999999999999999999 reached Postgres as out of range for bigint: a 500)', async () => {
    const lists = ctx.apis.v2.operations.filter((op) => op.method === 'get' && 'offset' in ((op.query as { properties?: object } | undefined)?.properties ?? {}));
    expect(lists.map((op) => op.path).sort()).toEqual(['/api/v2/customers', '/api/v2/invoices', '/api/v2/kyc/sessions', '/api/v2/receipts', '/api/v2/reviews', '/api/v2/webhooks', '/api/v2/webhooks/:webhookId/deliveries']);
    for (const op of lists) {
      for (const offset of ['99999999999999999999', '1e21', '1000000001']) {
        // A path parameter as a well-formed id: the query is refused before the id is looked up.
        const res = await call(m, 'get', `${op.path.replace(':webhookId', randomUUID())}?offset=${offset}`);
        expect([op.path, offset, res.status, res.body.error?.details]).toEqual([op.path, offset, 400, [{ field: 'offset', message: 'must be <= 1000000000' }]]);
      }
    }
  });

  it('filters by status', async () => {
    const expected = { PAID: ids.slice(0, 3), CANCELLED: ids.slice(3, 5), PENDING: ids.slice(5), EXPIRED: [] };
    for (const [status, want] of Object.entries(expected)) {
      const res = await call(m, 'get', `/api/v2/invoices?status=${status}&limit=1000`);
      expect(res.body.data.map((i: { id: string }) => i.id)).toEqual(want);
      expect(res.body.pagination.total).toBe(want.length);
      for (const i of res.body.data) expect(i.status).toBe(status);
    }
  });

  it.each([
    ['limit=1001', 'limit', 'must be <= 1000'],
    ['limit=0', 'limit', 'must be >= 1'],
    ['offset=-1', 'offset', 'must be >= 0'],
    ['status=paid', 'status', 'must be one of: PENDING, PAID, EXPIRED, CANCELLED'],
    ['sort=amount', 'sort', 'is not a known field'],
  ])('refuses %s', async (qs, field, message) => {
    const res = await call(m, 'get', `/api/v2/invoices?${qs}`);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toContainEqual({ field, message });
  });
});

describe('test and live mode', () => {
  it('never mix: each key sees only its mode’s invoices', async () => {
    const m = await newMerchant(ctx.deps);
    const live = { ...m, apiKey: m.liveKey };
    const t = await create(m, { amount: 1 });
    const l = await create(live, { amount: 2 });
    expect(l.status).toBe(201);
    const testList = await call(m, 'get', '/api/v2/invoices');
    const liveList = await call(live, 'get', '/api/v2/invoices');
    expect(testList.body.data.map((i: { id: string }) => i.id)).toEqual([t.body.invoice.id]);
    expect(liveList.body.data.map((i: { id: string }) => i.id)).toEqual([l.body.invoice.id]);
    expect((await call(live, 'get', `/api/v2/invoices/${t.body.invoice.id}`)).status).toBe(404);
    // The sandbox pays test invoices only.
    const pay = await call(live, 'post', `/api/v2/sandbox/invoices/${l.body.invoice.id}/pay`, {});
    expect(pay.status).toBe(403);
  });
});

describe('GET /api/v2/invoices: the optional filters beyond the spec (paymentMethod, createdFrom/createdTo, search)', () => {
  const DAY = 86_400_000;
  let m: TestMerchant;
  const made: { id: string; number: string; day: string }[] = [];
  const listed = async (qs: string) => {
    const res = await call(m, 'get', `/api/v2/invoices?limit=1000&${qs}`);
    expect(res.status).toBe(200);
    expect(res.body.pagination.total).toBe(res.body.data.length);
    return res.body.data.map((i: { id: string }) => made.findIndex((x) => x.id === i.id));
  };
  beforeAll(async () => {
    m = await newMerchant(ctx.deps);
    // Another merchant's invoice that every search would match: it never shows.
    const other = await newMerchant(ctx.deps);
    await create(other, { amount: 1, description: 'Coffee beans 100% Tea_set Mugs', customerEmail: 'alice@example.ru' });
    const bodies = [
      { amount: 10, description: 'Coffee beans 100%', customerEmail: 'alice@example.ru', customerName: 'Alice Smith' },
      { amount: 20, description: 'Tea_set', customerEmail: 'bob@example.ru', paymentMethod: 'card' },
      { amount: 30, description: 'Mugs', customerPhone: '+79991112233' },
      { amount: 40, description: 'Teapot' },
    ];
    for (const body of bodies) {
      clock.advance(DAY);
      const res = await create(m, body);
      made.push({ id: res.body.invoice.id, number: res.body.invoice.invoiceNumber, day: clock.now().toISOString().slice(0, 10) });
    }
    // An SBP invoice paid by card lists as `card`: the filter follows what the list shows.
    expect((await call(m, 'post', `/api/v2/sandbox/invoices/${made[3]!.id}/pay`, { method: 'card' })).body.invoice.paymentMethod).toBe('card');
  });

  it('filters by the listed paymentMethod', async () => {
    expect(await listed('paymentMethod=card')).toEqual([3, 1]);
    expect(await listed('paymentMethod=sbp')).toEqual([2, 0]);
  });

  it('filters by UTC creation days, both ends included, and combines with the others', async () => {
    expect(await listed(`createdFrom=${made[1]!.day}`)).toEqual([3, 2, 1]);
    expect(await listed(`createdTo=${made[1]!.day}`)).toEqual([1, 0]);
    expect(await listed(`createdFrom=${made[1]!.day}&createdTo=${made[2]!.day}`)).toEqual([2, 1]);
    expect(await listed(`createdFrom=${made[2]!.day}&createdTo=${made[2]!.day}`)).toEqual([2]);
    expect(await listed(`createdFrom=${made[1]!.day}&paymentMethod=sbp&status=PENDING`)).toEqual([2]);
  });

  it('searches the number (from its start), the id, the customer and the description, case-insensitively, LIKE characters as themselves', async () => {
    expect(await listed(`search=${made[2]!.number.toLowerCase()}`)).toEqual([2]);
    expect(await listed(`search=${made[2]!.number.slice(4)}`)).toEqual([]); // not from its start
    expect(await listed(`search=${made[1]!.id.toUpperCase()}`)).toEqual([1]);
    expect(await listed('search=ALICE')).toEqual([0]);
    expect(await listed('search=smith')).toEqual([0]);
    expect(await listed('search=1112233')).toEqual([2]);
    expect(await listed('search=tea')).toEqual([3, 1]);
    expect(await listed(`search=${encodeURIComponent('100%')}`)).toEqual([0]);
    expect(await listed(`search=${encodeURIComponent('%')}`)).toEqual([0]);
    expect(await listed('search=_')).toEqual([1]);
    expect(await listed('search=%20bob%20')).toEqual([1]); // trimmed
    expect(await listed('search=tea&paymentMethod=card&status=PAID')).toEqual([3]);
  });

  it.each([
    ['paymentMethod=cash', 'paymentMethod', 'must be one of: sbp, card'],
    ['createdFrom=2026-02-30', 'createdFrom', 'must be a real date, YYYY-MM-DD'],
    ['createdTo=12/01/2026', 'createdTo', 'must match pattern "^\\d{4}-\\d{2}-\\d{2}$"'],
    ['createdFrom=2026-12-05&createdTo=2026-12-01', 'createdFrom', 'must be on or before createdTo'],
    ['search=', 'search', 'must NOT have fewer than 1 characters'],
    [`search=${'x'.repeat(201)}`, 'search', 'must NOT have more than 200 characters'],
  ])('refuses %s with a 400 naming the field', async (qs, field, message) => {
    const res = await call(m, 'get', `/api/v2/invoices?${qs}`);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toContainEqual({ field, message });
  });
});
