import { ManualClock } from '@pay/runtime';
import { setCustomersKyc } from '../../../test/customers/store';
import { invoiceRow } from '../../../test/invoices/store';
import { clockSigner, invoicingAppForSuite, newMerchant, type TestMerchant } from '../../../test/test-support';

const clock = new ManualClock(Date.now());
const ctx = invoicingAppForSuite({ clock });
const call = clockSigner(() => ctx.app, clock);

async function paid(m: TestMerchant, body: Record<string, unknown>) {
  const c = await call(m, 'post', '/api/v2/invoices', body);
  expect(c.status).toBe(201);
  const p = await call(m, 'post', `/api/v2/sandbox/invoices/${c.body.invoice.id}/pay`, {});
  expect(p.status).toBe(200);
  return p.body.invoice;
}
const customers = (m: TestMerchant, qs = '') => call(m, 'get', `/api/v2/customers${qs}`);

describe('customers from payments', () => {
  it('are created on the first payment, then updated: totals, last payment, trust level, latest name', async () => {
    const m = await newMerchant(ctx.deps);
    const created = await call(m, 'post', '/api/v2/invoices', { amount: 10, customerEmail: 'Olga@Example.ru', customerName: 'Olga' });
    expect((await customers(m)).body.data).toEqual([]); // nobody until a payment
    const firstPaidAt = clock.now().toISOString();
    await call(m, 'post', `/api/v2/sandbox/invoices/${created.body.invoice.id}/pay`, {});
    let list = (await customers(m)).body;
    expect(list.pagination).toEqual({ total: 1, limit: 50, offset: 0, pages: 1 });
    const c = list.data[0];
    expect(c).toEqual({
      id: expect.any(String),
      fullName: 'Olga',
      email: 'olga@example.ru',
      phone: null,
      kycStatus: 'PENDING',
      trustLevel: 'LEVEL_1',
      totalPayments: 1,
      totalAmount: 10,
      lastPaymentAt: firstPaidAt,
      isBlocked: false,
      createdAt: firstPaidAt,
    });
    // The same person by e-mail (any case), now with a phone and a new name: one customer.
    clock.advance(60_000);
    const second = await paid(m, { amount: 20.55, customerEmail: 'OLGA@example.ru', customerPhone: '+79991112233', customerName: 'Olga P.' });
    expect(second.customer).toEqual({ id: c.id, fullName: 'Olga P.', email: 'olga@example.ru', kycStatus: 'PENDING' });
    // And by phone alone.
    clock.advance(60_000);
    await paid(m, { amount: 0.45, customerPhone: '+79991112233' });
    list = (await customers(m)).body;
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({ id: c.id, fullName: 'Olga P.', phone: '+79991112233', totalPayments: 3, totalAmount: 31, trustLevel: 'LEVEL_2', lastPaymentAt: clock.now().toISOString() });
  });

  it('trust level climbs with payments and KYC: NEW → LEVEL_1 → LEVEL_2 → LEVEL_3 (6 payments and KYC)', async () => {
    const m = await newMerchant(ctx.deps);
    const levels: string[] = [];
    for (let i = 1; i <= 6; i++) {
      await paid(m, { amount: 1, customerEmail: 'climb@example.ru' });
      levels.push((await customers(m)).body.data[0].trustLevel);
    }
    expect(levels).toEqual(['LEVEL_1', 'LEVEL_1', 'LEVEL_2', 'LEVEL_2', 'LEVEL_2', 'LEVEL_2']);
    await setCustomersKyc(ctx.deps.db, m.merchantId, { kyc_status: 'VERIFIED' });
    await paid(m, { amount: 1, customerEmail: 'climb@example.ru' });
    expect((await customers(m)).body.data[0]).toMatchObject({ trustLevel: 'LEVEL_3', totalPayments: 7 });
  });

  it('a refund lowers totalAmount only', async () => {
    const m = await newMerchant(ctx.deps);
    const inv = await paid(m, { amount: 100, customerEmail: 'ref@example.ru' });
    expect((await call(m, 'post', `/api/v2/invoices/${inv.id}/refunds`, { amount: 40 })).status).toBe(201);
    expect((await customers(m)).body.data[0]).toMatchObject({ totalPayments: 1, totalAmount: 60, trustLevel: 'LEVEL_1' });
  });

  it('an invoice without e-mail or phone makes no customer; test and live customers never mix', async () => {
    const m = await newMerchant(ctx.deps);
    await paid(m, { amount: 5, customerName: 'Nameless' });
    expect((await customers(m)).body.pagination.total).toBe(0);
    await paid(m, { amount: 5, customerEmail: 'x@example.ru' });
    const live = await call({ ...m, apiKey: m.liveKey }, 'get', '/api/v2/customers');
    expect(live.body.pagination.total).toBe(0);
    const other = await newMerchant(ctx.deps);
    expect((await customers(other)).body.pagination.total).toBe(0);
  });
});

describe('GET /api/v2/customers filters', () => {
  let m: TestMerchant;
  beforeAll(async () => {
    m = await newMerchant(ctx.deps);
    const people = [
      { customerEmail: 'anna.petrova@mail.ru', customerName: 'Anna Petrova', customerPhone: '+79161234567' },
      { customerEmail: 'ivan@yandex.ru', customerName: 'Ivan Sidorov', customerPhone: '+79031112233' },
      { customerEmail: 'maria_k@example.ru', customerName: 'Maria Kuznetsova' },
      { customerPhone: '+79265554433', customerName: 'Petr' },
      { customerEmail: '100%real@example.ru', customerName: 'Percent' },
    ];
    for (const [i, p] of people.entries()) {
      for (let n = 0; n <= i; n++) {
        clock.advance(1000);
        await paid(m, { amount: 10, ...p });
      }
    }
    await setCustomersKyc(ctx.deps.db, m.merchantId, { kyc_status: 'VERIFIED', trust_level: 'LEVEL_2' }, { email: 'ivan@yandex.ru' });
    await setCustomersKyc(ctx.deps.db, m.merchantId, { kyc_status: 'REJECTED' }, { fullName: 'Petr' });
  });
  const names = async (qs: string) => (await customers(m, qs)).body.data.map((c: { fullName: string }) => c.fullName);

  it('search matches part of the name, e-mail or phone, any case; % and _ are plain characters', async () => {
    expect(await names('?search=petr')).toEqual(['Petr', 'Anna Petrova']);
    expect(await names('?search=YANDEX')).toEqual(['Ivan Sidorov']);
    expect(await names('?search=%2B7903')).toEqual(['Ivan Sidorov']);
    expect(await names('?search=5554433')).toEqual(['Petr']);
    expect(await names('?search=%25')).toEqual(['Percent']);
    expect(await names('?search=_')).toEqual(['Maria Kuznetsova']);
    expect(await names('?search=nobody')).toEqual([]);
  });

  it('kycStatus and trustLevel filter, and combine with search', async () => {
    expect(await names('?kycStatus=VERIFIED')).toEqual(['Ivan Sidorov']);
    expect(await names('?kycStatus=REJECTED')).toEqual(['Petr']);
    expect(await names('?kycStatus=PENDING')).toEqual(['Percent', 'Maria Kuznetsova', 'Anna Petrova']);
    expect(await names('?trustLevel=LEVEL_1')).toEqual(['Anna Petrova']);
    expect(await names('?trustLevel=LEVEL_2')).toEqual(['Percent', 'Petr', 'Maria Kuznetsova', 'Ivan Sidorov']);
    expect(await names('?trustLevel=LEVEL_2&search=a')).toEqual(['Percent', 'Maria Kuznetsova', 'Ivan Sidorov']); // Petr has no 'a'
    expect(await names('?trustLevel=NEW')).toEqual([]);
  });

  it('limit default 50, at most 100; offset', async () => {
    const page = await customers(m, '?limit=2&offset=1');
    expect(page.body.pagination).toEqual({ total: 5, limit: 2, offset: 1, pages: 3 });
    expect(page.body.data.map((c: { fullName: string }) => c.fullName)).toEqual(['Petr', 'Maria Kuznetsova']);
    expect((await customers(m, '?limit=100')).status).toBe(200);
    for (const [qs, field, message] of [
      ['?limit=101', 'limit', 'must be <= 100'],
      ['?kycStatus=DONE', 'kycStatus', 'must be one of: PENDING, VERIFIED, REJECTED'],
      ['?trustLevel=LEVEL_4', 'trustLevel', 'must be one of: NEW, LEVEL_1, LEVEL_2, LEVEL_3'],
      ['?search=', 'search', 'must NOT have fewer than 1 characters'],
      ['?q=anna', 'q', 'is not a known field'],
    ]) {
      const res = await customers(m, qs);
      expect(res.status).toBe(400);
      expect(res.body.error.details).toContainEqual({ field, message });
    }
  });
});

describe('block and unblock', () => {
  it('answer the spec’s shape; a blocked customer cannot pay (sandbox), nothing written; unblocked can', async () => {
    const m = await newMerchant(ctx.deps);
    await paid(m, { amount: 10, customerEmail: 'bad@example.ru', customerPhone: '+79990000099' });
    const id = (await customers(m)).body.data[0].id;
    const blockedAt = clock.now().toISOString();
    const block = await call(m, 'post', `/api/v2/customers/${id}/block`, { reason: 'chargebacks' });
    expect(block.status).toBe(200);
    expect(block.body).toEqual({ success: true, message: 'Customer blocked', customer: { id, isBlocked: true, blockedAt, blockedReason: 'chargebacks' } });
    const listed = (await customers(m)).body.data[0];
    expect(listed).toMatchObject({ isBlocked: true, blockedAt, blockedReason: 'chargebacks' });

    // Known by phone only on this invoice: still the same customer, still blocked.
    for (const who of [{ customerEmail: 'BAD@example.ru' }, { customerPhone: '+79990000099' }]) {
      const inv = await call(m, 'post', '/api/v2/invoices', { amount: 5, ...who });
      const row = () => invoiceRow(ctx.deps.db, inv.body.invoice.id);
      const before = await row();
      const refused = await call(m, 'post', `/api/v2/sandbox/invoices/${inv.body.invoice.id}/pay`, {});
      expect(refused.status).toBe(422);
      expect(refused.body.error.code).toBe('CUSTOMER_BLOCKED');
      expect(await row()).toEqual(before);
    }
    expect((await customers(m)).body.data[0]).toMatchObject({ totalPayments: 1 });

    // Blocking again keeps the first blockedAt, takes the new reason; no body is fine.
    clock.advance(1000);
    const again = await call(m, 'post', `/api/v2/customers/${id}/block`);
    expect(again.body.customer).toEqual({ id, isBlocked: true, blockedAt, blockedReason: null });

    const unblock = await call(m, 'post', `/api/v2/customers/${id}/unblock`);
    expect(unblock.body).toEqual({ success: true, message: 'Customer unblocked', customer: { id, isBlocked: false, blockedAt: null, blockedReason: null } });
    const unlisted = (await customers(m)).body.data[0];
    expect(unlisted).not.toHaveProperty('blockedAt');
    expect(unlisted).not.toHaveProperty('blockedReason');
    await paid(m, { amount: 5, customerEmail: 'bad@example.ru' });
  });

  it('are 404 for another merchant’s customer or the other mode, 400 for a bad body', async () => {
    const m = await newMerchant(ctx.deps);
    await paid(m, { amount: 10, customerEmail: 'own@example.ru' });
    const id = (await customers(m)).body.data[0].id;
    const other = await newMerchant(ctx.deps);
    expect((await call(other, 'post', `/api/v2/customers/${id}/block`, {})).status).toBe(404);
    expect((await call({ ...m, apiKey: m.liveKey }, 'post', `/api/v2/customers/${id}/block`, {})).status).toBe(404);
    expect((await call(m, 'post', `/api/v2/customers/${id}/unblock`, { reason: 'x' })).status).toBe(400);
    const bad = await call(m, 'post', `/api/v2/customers/${id}/block`, { reason: 'x'.repeat(501) });
    expect(bad.status).toBe(400);
  });
});
