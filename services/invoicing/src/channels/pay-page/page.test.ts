import request from 'supertest';
import { PAGE_CSP } from '@pay/http';
import { assertNoEnglish } from '@pay/testing';
import { createLogger, ManualClock } from '@pay/runtime';
import { eventsOf } from '@pay/webhooks';
import type { SandboxProvider } from '../../payments/sandbox';
import { customersOf } from '../../../test/customers/store';
import { invoiceColumns, merchantInvoiceRows, setInvoiceStatus } from '../../../test/invoices/store';
import { clockSigner, invoicingAppForSuite, newMerchant, type TestMerchant } from '../../../test/test-support';

const clock = new ManualClock(Date.now());
/** Every log line the app writes, at the most verbose level: the card number must be in none. */
const logLines: string[] = [];
const ctx = invoicingAppForSuite({ clock, liveSandbox: true, logger: createLogger('invoicing', 'trace', { write: (line: string) => void logLines.push(line) }) });
const call = clockSigner(() => ctx.app, clock);
const CARD = '4242424242424242';

async function invoice(m: TestMerchant, body: Record<string, unknown>) {
  const res = await call(m, 'post', '/api/v2/invoices', { amount: 1234.5, ...body });
  expect(res.status).toBe(201);
  return res.body.invoice as { id: string; qrCode?: string; qrPayload?: string; invoiceNumber: string };
}
const page = (path: string) => request(ctx.app).get(path);
const postCard = (id: string, card: Record<string, string>) => request(ctx.app).post(`/pay/${id}/card`).type('form').send(card);
async function statusOf(id: string) {
  return (await invoiceColumns(ctx.deps.db, id, ['status', 'paid_method', 'payer_bank']))!;
}

/** What the sandbox acquirer charged (and voided) for an invoice's order. */
async function chargesOf(id: string) {
  const row = (await invoiceColumns(ctx.deps.db, id, ['external_order_id']))!;
  return (ctx.deps.providers.test as SandboxProvider).chargesOf(row.external_order_id).map((c) => ({ amount: c.amount, status: c.status }));
}

let m: TestMerchant;
beforeAll(async () => {
  m = await newMerchant(ctx.deps);
});

describe('the hosted payment page', () => {
  it("shows the invoice's own currency, formatted for the payer's language (Accept-Language, or the switch's ?lang=), on the page, in its title and on the sandbox bank page", async () => {
    const live = { ...m, apiKey: m.liveKey };
    expect((await request(ctx.app).put('/api/v1/settings/currencies').set('x-api-key', live.apiKey).send({ enabledCurrencies: ['RUB', 'USD', 'KZT'] })).status).toBe(200);
    const usd = (await request(ctx.app).post('/api/v1/invoices').set('x-api-key', m.apiKey).send({ amount: 49.9, currency: 'USD' })).body as { id: string };
    const kzt = (await request(ctx.app).post('/api/v1/invoices').set('x-api-key', m.apiKey).send({ amount: 12000, currency: 'KZT' })).body as { id: string };
    const at = (path: string, language?: string) => (language ? page(path).set('Accept-Language', language) : page(path));
    const en = await at(`/pay/${usd.id}`, 'en-GB,en;q=0.9');
    expect(en.text).toContain('<html lang="en">');
    // The title names the merchant too (its display name, by default the company name).
    expect(en.text).toContain(`<title>Pay $49.90 — ${m.companyName}</title>`);
    expect(en.text).toContain('data-testid="amount">$49.90</h1>');
    const ru = await at(`/pay/${usd.id}`, 'de-DE, ru;q=0.8, en;q=0.5');
    expect(ru.text).toContain('<html lang="ru">');
    expect(ru.text).toContain(`<title>Оплатить 49,90\u00a0$ — ${m.companyName}</title>`);
    expect(ru.text).toContain('Ожидает оплаты');
    for (const res of [en, ru]) expect(res.text).not.toContain('₽');
    const bank = await at(`/pay/${usd.id}/sbp`, 'ru');
    expect(bank.text).toContain('<title>Тестовый банк: 49,90\u00a0$</title>');
    // The switch wins over the browser's language, and the page's forms and links keep it.
    const kk = await at(`/pay/${kzt.id}?lang=kk`, 'en');
    expect(kk.text).toContain('<html lang="kk">');
    expect(kk.text).toContain('data-testid="amount">12\u00a0000,00\u00a0₸</h1>');
    expect(kk.text).toContain('Төлем күтілуде');
    expect(kk.text).toMatch(/href="\/pay\/[0-9a-f-]{36}\?lang=ru"[^>]*>Русский</);
    // No language of ours asked for: English.
    expect((await at(`/pay/${kzt.id}`, 'fr-FR')).text).toContain('<html lang="en">');
  });

  it('SBP: amount, escaped description, countdown from the server clock, the stored QR and the bank-app link; strict CSP, nothing inline', async () => {
    const inv = await invoice(m, { description: '<script>alert("x")</script> & "quotes"', expiresInHours: 1 });
    clock.advance(90_000);
    const res = await page(`/pay/${inv.id}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toBe(PAGE_CSP);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.text).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(res.text).toContain('data-testid="amount">RUB\u00a01,234.50</h1>');
    expect(res.text).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &quot;quotes&quot;');
    expect(res.text).not.toContain('<script>alert');
    expect(res.text).toContain(`data-remaining-ms="${3_600_000 - 90_000}"`);
    expect(res.text).toContain('>58:30</time>');
    expect(res.text).toContain(`src="${inv.qrCode}"`);
    expect(res.text).toContain(`href="${inv.qrPayload}"`);
    expect(res.text).toContain('data-testid="test-mode"');
    // Scripts and styles only from the service's own files.
    expect(res.text.match(/<script[^>]*>/g)).toEqual(['<script src="/assets/invoicing/pay.js" defer>']);
    expect(res.text).not.toMatch(/\sstyle=|<style|\son[a-z]+=/);
    expect(res.text).not.toContain('<form');
  });

  it('card: the card form posting to the page itself, no QR; originalPaymentUrl shows the same form', async () => {
    const inv = await invoice(m, { paymentMethod: 'card' });
    for (const path of [`/pay/${inv.id}`, `/pay/${inv.id}/card`]) {
      const res = await page(path);
      expect(res.status).toBe(200);
      expect(res.text).toContain(`<form class="card-form" method="post" action="/pay/${inv.id}/card"`);
      expect(res.text).toContain('autocomplete="cc-number"');
      expect(res.text).not.toContain('data-testid="qr"');
    }
  });

  it('shows the paid, expired (marked or just due) and cancelled states, with nothing to pay', async () => {
    const paid = await invoice(m, {});
    await call(m, 'post', `/api/v2/sandbox/invoices/${paid.id}/pay`, {});
    const cancelled = await invoice(m, {});
    await call(m, 'post', `/api/v2/invoices/${cancelled.id}/cancel`);
    const due = await invoice(m, { expiresInHours: 0.25 });
    const expired = await invoice(m, { expiresInHours: 0.25 });
    await setInvoiceStatus(ctx.deps.db, expired.id, 'EXPIRED');
    clock.advance(15 * 60_000);
    for (const [inv, state, label] of [
      [paid, 'paid', 'PAID'],
      [cancelled, 'cancelled', 'CANCELLED'],
      [due, 'expired', 'EXPIRED'],
      [expired, 'expired', 'EXPIRED'],
    ] as const) {
      const res = await page(`/pay/${inv.id}`);
      expect(res.text).toContain(`data-status="${state}"`);
      expect(res.text).toContain(`data-testid="status">${label}</p>`);
      expect(res.text).not.toContain('<form');
      expect(res.text).not.toContain('data-testid="qr"');
      expect(res.text).not.toContain('data-testid="countdown"');
      expect((await request(ctx.app).get(`/pay/${inv.id}/status`)).body).toEqual({ success: true, status: state, receipt: 'none' });
    }
  });

  it('unknown and malformed links get HTML refusals', async () => {
    const missing = await page('/pay/00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toMatch(/^text\/html/);
    expect(missing.text).toContain('data-refusal="notFound">This link does not lead to an invoice');
    expect((await page('/pay/nope')).status).toBe(400);
    expect((await request(ctx.app).get('/pay/00000000-0000-4000-8000-000000000000/status')).status).toBe(404);
  });

  it('serves its CSS and JS from its own origin, nosniff', async () => {
    const js = await page('/assets/invoicing/pay.js');
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toMatch(/javascript/);
    expect(js.headers['x-content-type-options']).toBe('nosniff');
    expect((await page('/assets/invoicing/pay.css')).headers['content-type']).toMatch(/^text\/css/);
    expect((await page('/assets/invoicing/nothing.js')).status).toBe(404);
  });
});

describe('paying on the page', () => {
  it('by card: Luhn and expiry checked, the number never echoed, stored or logged; then PAID', async () => {
    const inv = await invoice(m, { paymentMethod: 'card', customerEmail: 'card@example.ru' });
    logLines.length = 0;
    const badLuhn = await postCard(inv.id, { number: '4242 4242 4242 4241', expiry: '12/30', cvc: '123' });
    expect(badLuhn.status).toBe(400);
    expect(badLuhn.text).toContain('<p>Check the card number.</p>');
    expect(badLuhn.text).not.toContain('4242 4242 4242 4241');
    expect(badLuhn.text).not.toContain('4242424242424241');
    const expiredCard = await postCard(inv.id, { number: CARD, expiry: '01/20', cvc: '123' });
    expect(expiredCard.status).toBe(400);
    expect(expiredCard.text).toContain('<p>The card has expired.</p>');
    const declined = await postCard(inv.id, { number: '4000 0000 0000 0002', expiry: '12/30', cvc: '123' });
    expect(declined.status).toBe(422);
    expect(declined.text).toContain('data-refusal="cardDeclined"><p>The bank declined the card. No money was taken.');
    expect((await statusOf(inv.id)).status).toBe('PENDING');

    const ok = await postCard(inv.id, { number: '4242 4242 4242 4242', expiry: '12/30', cvc: '123' });
    expect(ok.status).toBe(303);
    expect(ok.headers.location).toBe(`/pay/${inv.id}`);
    expect(await statusOf(inv.id)).toEqual({ status: 'PAID', paid_method: 'card', payer_bank: null });
    expect((await page(`/pay/${inv.id}`)).text).toContain('data-testid="status">PAID</p>');

    const logs = logLines.join('\n');
    expect(logs).toContain(`"url":"/pay/${inv.id}/card"`); // the requests were logged…
    expect(logs).not.toMatch(/4242|4000 ?0000 ?0000 ?0002/); // …without the number
    // Nor stored: every row the payment wrote or touched (the merchant's invoices, customers and events), as text.
    const stored = await Promise.all([
      merchantInvoiceRows(ctx.deps.db, m.merchantId),
      customersOf(ctx.deps.db, m.merchantId),
      eventsOf(ctx.deps.db, { merchantId: m.merchantId, isTest: true }),
    ]);
    expect(stored[0].map((i) => i.id)).toContain(inv.id);
    expect(JSON.stringify(stored)).not.toMatch(/4242.?4242/);
    // Paying twice from the page is refused with the page again.
    const twice = await postCard(inv.id, { number: CARD, expiry: '12/30', cvc: '123' });
    expect(twice.status).toBe(422);
    expect(twice.text).toContain('data-refusal="alreadyPaid"');
  });

  it('every card problem and refusal is said in the payer’s language (ru, kk): nothing of the API’s English', async () => {
    const inv = await invoice(m, { paymentMethod: 'card' });
    const cancelled = await invoice(m, { paymentMethod: 'card' });
    await call(m, 'post', `/api/v2/invoices/${cancelled.id}/cancel`);
    for (const lang of ['ru', 'kk'] as const) {
      const post = (id: string, card: Record<string, string>) => request(ctx.app).post(`/pay/${id}/card?lang=${lang}`).type('form').send(card);
      for (const [id, card, kind] of [
        [inv.id, { number: '4242 4242 4242 4241', expiry: '13/20', cvc: '1' }, 'card'],
        [inv.id, { number: '4242', expiry: 'soon', cvc: '12345' }, 'card'],
        [inv.id, { number: '4000 0000 0000 0002', expiry: '12/30', cvc: '123' }, 'cardDeclined'],
        [cancelled.id, { number: CARD, expiry: '12/30', cvc: '123' }, 'cancelled'],
        [inv.id, { number: CARD, expiry: '12/30' }, 'badForm'],
      ] as const) {
        const res = await post(id, card);
        expect(res.text).toContain(`data-refusal="${kind}"`);
        await assertNoEnglish(res.text, lang, { allow: [m.companyName] });
      }
      // A refusal before any page route (an unknown or malformed link) too, by ?lang= or Accept-Language.
      await assertNoEnglish((await request(ctx.app).get(`/pay/nope?lang=${lang}`)).text, lang);
      await assertNoEnglish((await request(ctx.app).get('/pay/00000000-0000-4000-8000-000000000000').set('Accept-Language', lang)).text, lang);
    }
    expect((await statusOf(inv.id)).status).toBe('PENDING');
  });

  it('a blocked customer and an invoice needing KYC are refused on the page', async () => {
    const first = await invoice(m, { customerEmail: 'blocked@example.ru', paymentMethod: 'card' });
    expect((await postCard(first.id, { number: CARD, expiry: '12/30', cvc: '123' })).status).toBe(303);
    const customers = await call(m, 'get', '/api/v2/customers?search=blocked');
    await call(m, 'post', `/api/v2/customers/${customers.body.data[0].id}/block`, { reason: 'fraud' });
    const second = await invoice(m, { customerEmail: 'blocked@example.ru', paymentMethod: 'card' });
    const refused = await postCard(second.id, { number: CARD, expiry: '12/30', cvc: '123' });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('data-refusal="blocked"');
    expect((await statusOf(second.id)).status).toBe('PENDING');

    const kyc = await invoice(m, { kycRequired: true, paymentMethod: 'card' });
    const shown = await page(`/pay/${kyc.id}`);
    expect(shown.text).toContain('data-testid="kyc-required"');
    // No payment form: only the way to the verification flow.
    expect(shown.text).not.toContain('/card"');
    expect(shown.text).toContain(`<form method="post" action="/pay/${kyc.id}/kyc">`);
    const forced = await postCard(kyc.id, { number: CARD, expiry: '12/30', cvc: '123' });
    expect(forced.status).toBe(422);
    expect(forced.text).toContain('data-refusal="kycRequired"');
    expect((await statusOf(kyc.id)).status).toBe('PENDING');
  });

  it('an invoice that cannot be paid is refused before the provider charges the card: no charge at all', async () => {
    const cancelled = await invoice(m, { paymentMethod: 'card' });
    expect((await call(m, 'post', `/api/v2/invoices/${cancelled.id}/cancel`)).status).toBe(200);
    const expired = await invoice(m, { paymentMethod: 'card', expiresInHours: 0.25 });
    const kyc = await invoice(m, { kycRequired: true, paymentMethod: 'card' });
    const paidBefore = await invoice(m, { customerEmail: 'blocked-early@example.ru', paymentMethod: 'card' });
    expect((await postCard(paidBefore.id, { number: CARD, expiry: '12/30', cvc: '123' })).status).toBe(303);
    const customers = await call(m, 'get', '/api/v2/customers?search=blocked-early');
    await call(m, 'post', `/api/v2/customers/${customers.body.data[0].id}/block`, { reason: 'fraud' });
    const blocked = await invoice(m, { customerEmail: 'blocked-early@example.ru', paymentMethod: 'card' });
    clock.advance(15 * 60_000);
    for (const [inv, status, text] of [
      [cancelled, 'CANCELLED', 'data-refusal="cancelled"'],
      [expired, 'PENDING', 'data-refusal="expired"'],
      [kyc, 'PENDING', 'data-refusal="kycRequired"'],
      [blocked, 'PENDING', 'data-refusal="blocked"'],
      [paidBefore, 'PAID', 'data-refusal="alreadyPaid"'],
    ] as const) {
      const res = await postCard(inv.id, { number: CARD, expiry: '12/30', cvc: '123' });
      expect([res.status, res.text]).toEqual([422, expect.stringContaining(text)]);
      expect((await statusOf(inv.id)).status).toBe(status);
      expect(await chargesOf(inv.id)).toEqual(inv === paidBefore ? [{ amount: '1234.50', status: 'captured' }] : []);
    }
  });

  describe('when the invoice changes between the charge and its recording, the charge is voided', () => {
    const sandbox = () => ctx.deps.providers.test as SandboxProvider;
    /** The provider charges, then `meanwhile` changes the invoice before the payment is written. */
    function changeAfterCharge(meanwhile: () => Promise<unknown>) {
      const original = sandbox().chargeCard.bind(sandbox());
      return jest.spyOn(sandbox(), 'chargeCard').mockImplementationOnce(async (...args) => {
        const result = await original(...args);
        await meanwhile();
        return result;
      });
    }
    afterEach(() => jest.restoreAllMocks());

    const blockCustomer = async (email: string) => {
      const customers = await call(m, 'get', `/api/v2/customers?search=${encodeURIComponent(email)}`);
      expect((await call(m, 'post', `/api/v2/customers/${customers.body.data[0].id}/block`, { reason: 'fraud' })).status).toBe(200);
    };
    it.each([
      ['cancelled by the merchant', 'CANCELLED', 'data-refusal="cancelled"', 0, (id: string) => call(m, 'post', `/api/v2/invoices/${id}/cancel`).then((r) => expect(r.status).toBe(200))],
      ['its customer blocked', 'PENDING', 'data-refusal="blocked"', 0, (_id: string, email: string) => blockCustomer(email)],
      // The sandbox endpoint does what another channel's success notification would.
      ['paid by another payment', 'PAID', 'data-refusal="alreadyPaid"', 1, (id: string) => call(m, 'post', `/api/v2/sandbox/invoices/${id}/pay`, {}).then((r) => expect(r.status).toBe(200))],
    ] as const)('%s: refused, the charge voided, no money taken', async (_name, status, text, paidEvents, change) => {
      const email = `race-${Math.random().toString(36).slice(2)}@example.ru`;
      // The customer exists (so it can be blocked) from an earlier paid invoice.
      const earlier = await invoice(m, { customerEmail: email, paymentMethod: 'card' });
      expect((await postCard(earlier.id, { number: CARD, expiry: '12/30', cvc: '123' })).status).toBe(303);
      const inv = await invoice(m, { customerEmail: email, paymentMethod: 'card' });
      const spy = changeAfterCharge(() => change(inv.id, email));
      const res = await postCard(inv.id, { number: CARD, expiry: '12/30', cvc: '123' });
      expect(spy).toHaveBeenCalledTimes(1);
      expect(res.status).toBe(422);
      expect(res.text).toContain(text);
      expect(res.text).toContain('no money was taken');
      expect((await statusOf(inv.id)).status).toBe(status);
      expect(await chargesOf(inv.id)).toEqual([{ amount: '1234.50', status: 'voided' }]);
      const events = await eventsOf(ctx.deps.db, { merchantId: m.merchantId, isTest: true }, 'invoice.paid');
      expect(events.filter((e) => JSON.stringify(e).includes(inv.id))).toHaveLength(paidEvents);
    });

    it('card forms posted at once: one charge stands, every other is voided', async () => {
      const inv = await invoice(m, { paymentMethod: 'card' });
      const answers = await Promise.all(Array.from({ length: 6 }, () => postCard(inv.id, { number: CARD, expiry: '12/30', cvc: '123' })));
      expect(answers.filter((a) => a.status === 303)).toHaveLength(1);
      expect(answers.filter((a) => a.status === 422).every((a) => a.text.includes('already paid'))).toBe(true);
      expect((await statusOf(inv.id)).status).toBe('PAID');
      const charges = await chargesOf(inv.id);
      expect(charges.filter((c) => c.status === 'captured')).toHaveLength(1);
      expect(charges.every((c) => c.status === 'captured' || c.status === 'voided')).toBe(true);
    });
  });

  it('by SBP: the QR opens the sandbox bank app, which confirms the transfer', async () => {
    const inv = await invoice(m, {});
    const bank = await page(new URL(inv.qrPayload!).pathname);
    expect(bank.status).toBe(200);
    expect(bank.text).toContain('<select name="payerBank"');
    const bad = await request(ctx.app).post(`/pay/${inv.id}/sbp`).type('form').send({ payerBank: 'Evil <Bank>' });
    expect(bad.status).toBe(400);
    const ok = await request(ctx.app).post(`/pay/${inv.id}/sbp`).type('form').send({ payerBank: 'T-Bank (sandbox)' });
    expect(ok.status).toBe(303);
    expect(await statusOf(inv.id)).toEqual({ status: 'PAID', paid_method: 'sbp', payer_bank: 'T-Bank (sandbox)' });
    const again = await request(ctx.app).post(`/pay/${inv.id}/sbp`).type('form').send({ payerBank: 'Sandbox Bank' });
    expect(again.status).toBe(422);
  });

  it('each invoice is paid only by its own method on the page', async () => {
    const sbp = await invoice(m, {});
    const byCard = await postCard(sbp.id, { number: CARD, expiry: '12/30', cvc: '123' });
    expect(byCard.status).toBe(422);
    expect(byCard.text).toContain('data-refusal="notNow"');
    const card = await invoice(m, { paymentMethod: 'card' });
    const bySbp = await request(ctx.app).post(`/pay/${card.id}/sbp`).type('form').send({ payerBank: 'Sandbox Bank' });
    expect(bySbp.status).toBe(422);
    expect([(await statusOf(sbp.id)).status, (await statusOf(card.id)).status]).toEqual(['PENDING', 'PENDING']);
  });

  it('the sandbox bank never pays a live invoice', async () => {
    const live = await invoice({ ...m, apiKey: m.liveKey, isTest: false }, {});
    const res = await request(ctx.app).post(`/pay/${live.id}/sbp`).type('form').send({ payerBank: 'Sandbox Bank' });
    expect(res.status).toBe(422);
    expect((await statusOf(live.id)).status).toBe('PENDING');
  });
});
