import request from 'supertest';
import { ManualClock } from '@pay/runtime';
import { countKycSessions, kycSessionRow, setKycSessionExpiresAt, setKycSessionStatus } from '../../../test/kyc/store';
import { clockSigner, invoicingAppForSuite, newMerchant, v1Request } from '../../../test/test-support';
import { expireDueKycSessions } from './expiry';
import { kycSessionById } from './store';

const clock = new ManualClock(Date.parse('2026-03-01T10:00:00.000Z'));
const ctx = invoicingAppForSuite({ clock });
const call = clockSigner(() => ctx.app, clock);
const UUID = /^[0-9a-f-]{36}$/;

describe('KYC sessions v2', () => {
  it('create answers exactly the create view; defaults: NOT_STARTED, ru, 24 h', async () => {
    const m = await newMerchant(ctx.deps);
    const r = await call(m, 'post', '/api/v2/kyc/sessions', {});
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      success: true,
      session: {
        id: expect.stringMatching(UUID),
        sessionId: expect.stringMatching(/^kyc_[A-Za-z0-9_-]{24}$/),
        status: 'NOT_STARTED',
        verificationUrl: `${ctx.deps.config.PUBLIC_URL}/kyc/${r.body.session.sessionId}`,
        invoiceId: null,
        customerEmail: null,
        customerPhone: null,
        customerId: null,
        expiresAt: '2026-03-02T10:00:00.000Z',
        createdAt: '2026-03-01T10:00:00.000Z',
      },
    });
    const stored = await kycSessionRow(ctx.deps.db, r.body.session.id);
    expect(stored).toMatchObject({ chosen_language: null, level: 'basic', api: 'v2' });
    expect((await kycSessionById(ctx.deps.db, r.body.session.id))?.language).toBe('ru');
  });

  it('takes every optional field; binds an invoice of its own and inherits its e-mail and phone', async () => {
    const m = await newMerchant(ctx.deps);
    const inv = await call(m, 'post', '/api/v2/invoices', { amount: 100, kycRequired: true, customerEmail: 'anna@example.kz', customerPhone: '+77011234567' });
    const full = await call(m, 'post', '/api/v2/kyc/sessions', {
      invoiceId: inv.body.invoice.id,
      customerEmail: 'other@example.kz',
      customerPhone: '+79990001122',
      customerId: 'crm-42',
      callbackUrl: 'https://shop.example/kyc-done?order=7&x=%22',
      language: 'kk',
    });
    expect(full.status).toBe(201);
    expect(full.body.session).toMatchObject({ invoiceId: inv.body.invoice.id, customerEmail: 'other@example.kz', customerPhone: '+79990001122', customerId: 'crm-42' });
    const inherited = await call(m, 'post', '/api/v2/kyc/sessions', { invoiceId: inv.body.invoice.id });
    expect(inherited.body.session).toMatchObject({ customerEmail: 'anna@example.kz', customerPhone: '+77011234567', customerId: null });
    const stored = await kycSessionRow(ctx.deps.db, full.body.session.id);
    expect(stored).toMatchObject({ chosen_language: 'kk', return_url: 'https://shop.example/kyc-done?order=7&x=%22' });
    expect((await kycSessionById(ctx.deps.db, full.body.session.id))?.language).toBe('kk');
  });

  it('refuses an invoice of another merchant or of the other mode, and bad fields, writing nothing', async () => {
    const m = await newMerchant(ctx.deps);
    const other = await newMerchant(ctx.deps);
    const theirs = await call(other, 'post', '/api/v2/invoices', { amount: 5 });
    const r = await call(m, 'post', '/api/v2/kyc/sessions', { invoiceId: theirs.body.invoice.id });
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND', details: [{ field: 'invoiceId' }] } });
    // The same merchant's live key does not see its test invoice.
    const mine = await call(m, 'post', '/api/v2/invoices', { amount: 5 });
    const live = await call({ ...m, apiKey: m.liveKey }, 'post', '/api/v2/kyc/sessions', { invoiceId: mine.body.invoice.id });
    expect(live.status).toBe(404);
    for (const bad of [
      { customerPhone: '89991112233' },
      { language: 'kz' },
      { customerEmail: 'nope' },
      { callbackUrl: 'javascript:alert(1)' },
      { invoiceId: 'x' },
      { level: 'basic' },
    ]) {
      const b = await call(m, 'post', '/api/v2/kyc/sessions', bad);
      expect(b.status).toBe(400);
      expect(b.body.error.code).toBe('VALIDATION_ERROR');
    }
    expect(await countKycSessions(ctx.deps.db, m.merchantId)).toBe(0);
  });

  it('lists newest first with limit (default 50, max 100), offset, status and invoiceId filters; items have the list view', async () => {
    const m = await newMerchant(ctx.deps);
    const inv = await call(m, 'post', '/api/v2/invoices', { amount: 1 });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      clock.advance(1000);
      ids.push((await call(m, 'post', '/api/v2/kyc/sessions', i === 1 ? { invoiceId: inv.body.invoice.id } : { customerId: `c${i}` })).body.session.id);
    }
    await setKycSessionStatus(ctx.deps.db, ids[0]!, 'EXPIRED');
    const all = await call(m, 'get', '/api/v2/kyc/sessions');
    expect(all.status).toBe(200);
    expect(all.body.pagination).toEqual({ total: 3, limit: 50, offset: 0, pages: 1 });
    expect(all.body.data.map((s: { id: string }) => s.id)).toEqual([...ids].reverse());
    expect(Object.keys(all.body.data[0]).sort()).toEqual(
      ['id', 'sessionId', 'status', 'invoiceId', 'customerEmail', 'customerPhone', 'customerId', 'verification', 'createdAt'].sort(),
    );
    expect(all.body.data[0].verification).toBeNull();
    const page = await call(m, 'get', '/api/v2/kyc/sessions?limit=1&offset=1');
    expect(page.body.data.map((s: { id: string }) => s.id)).toEqual([ids[1]]);
    expect(page.body.pagination).toEqual({ total: 3, limit: 1, offset: 1, pages: 3 });
    const expired = await call(m, 'get', '/api/v2/kyc/sessions?status=EXPIRED');
    expect(expired.body.data.map((s: { id: string }) => s.id)).toEqual([ids[0]]);
    const bound = await call(m, 'get', `/api/v2/kyc/sessions?invoiceId=${inv.body.invoice.id}`);
    expect(bound.body.data.map((s: { id: string }) => s.id)).toEqual([ids[1]]);
    expect((await call(m, 'get', '/api/v2/kyc/sessions?limit=100')).status).toBe(200);
    for (const q of ['limit=101', 'limit=0', 'offset=-1', 'status=approved', 'invoiceId=abc', 'foo=1']) {
      const r = await call(m, 'get', `/api/v2/kyc/sessions?${q}`);
      expect(r.status).toBe(400);
    }
    // Another merchant sees none of them, and cannot read one.
    const other = await newMerchant(ctx.deps);
    expect((await call(other, 'get', '/api/v2/kyc/sessions')).body.pagination.total).toBe(0);
    expect((await call(other, 'get', `/api/v2/kyc/sessions/${ids[0]}`)).status).toBe(404);
  });

  it('get answers the detail view; unknown or malformed ids are 404 / 400; unsigned is 401', async () => {
    const m = await newMerchant(ctx.deps);
    const c = await call(m, 'post', '/api/v2/kyc/sessions', { customerEmail: 'a@b.kz' });
    const g = await call(m, 'get', `/api/v2/kyc/sessions/${c.body.session.id}`);
    expect(g.status).toBe(200);
    expect(g.body.session).toEqual({ ...c.body.session, verification: null, declineReason: null, retryRequired: false, maxAttempts: 3, attemptsUsed: 0, attemptsRemaining: 3 });
    expect((await call(m, 'get', '/api/v2/kyc/sessions/5b0f8b8e-7e7e-4e7e-8e7e-7e7e7e7e7e7e')).status).toBe(404);
    expect((await call(m, 'get', '/api/v2/kyc/sessions/nope')).status).toBe(400);
    const unsigned = await request(ctx.app).get('/api/v2/kyc/sessions').set('x-api-key', m.apiKey);
    expect(unsigned.status).toBe(401);
  });

  it('expiry marks a NOT_STARTED session past its expiresAt EXPIRED, once', async () => {
    const m = await newMerchant(ctx.deps);
    const c = await call(m, 'post', '/api/v2/kyc/sessions', { customerEmail: 'late@b.kz' });
    await setKycSessionExpiresAt(ctx.deps.db, c.body.session.id, new Date(clock.now().getTime() - 1000));
    expect(await expireDueKycSessions(ctx.deps)).toBeGreaterThanOrEqual(1);
    expect((await call(m, 'get', `/api/v2/kyc/sessions/${c.body.session.id}`)).body.session.status).toBe('EXPIRED');
    // Nothing else is due at this suite's clock: a second pass expires nothing.
    expect(await expireDueKycSessions(ctx.deps)).toBe(0);
  });
});

describe('KYC sessions v1', () => {
  it('creates with the v1 shape, lower-case status, 24 h expiry, metadata as given; kz is stored as kk', async () => {
    const m = await newMerchant(ctx.deps);
    const r = await v1Request(ctx.app, m, 'post', '/api/v1/kyc/sessions', {
      level: 'advanced',
      redirectUrl: 'https://shop.example/back',
      metadata: { orderId: 'A-1', nested: { n: 1.5 } },
      locale: 'kz',
      webhookUrl: 'https://hooks.example/kyc',
    });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.stringMatching(UUID),
      level: 'advanced',
      status: 'pending',
      verificationUrl: expect.stringMatching(new RegExp(`^${ctx.deps.config.PUBLIC_URL}/kyc/kyc_`)),
      metadata: { orderId: 'A-1', nested: { n: 1.5 } },
      createdAt: clock.now().toISOString(),
      expiresAt: new Date(clock.now().getTime() + 24 * 3_600_000).toISOString(),
      // additive: why the latest attempt was declined, once one is, and the attempts
      declineReason: null,
      retryRequired: false,
      maxAttempts: 3,
      attemptsUsed: 0,
      attemptsRemaining: 3,
    });
    const stored = await kycSessionRow(ctx.deps.db, r.body.id);
    expect(stored).toMatchObject({ api: 'v1', chosen_language: 'kk', level: 'advanced', webhook_url: 'https://hooks.example/kyc', return_url: 'https://shop.example/back' });
    const basic = await v1Request(ctx.app, m, 'post', '/api/v1/kyc/sessions', { level: 'basic', redirectUrl: 'https://shop.example/back' });
    expect(basic.body).toMatchObject({ level: 'basic', metadata: {} });
    // No language named: none stored, and the session's language is the default.
    expect((await kycSessionRow(ctx.deps.db, basic.body.id)).chosen_language).toBeNull();
    expect((await kycSessionById(ctx.deps.db, basic.body.id))?.language).toBe('ru');
    expect((await kycSessionById(ctx.deps.db, r.body.id))?.language).toBe('kk');
    const got = await v1Request(ctx.app, m, 'get', `/api/v1/kyc/sessions/${r.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(r.body);
    expect((await v1Request(ctx.app, m, 'get', '/api/v1/kyc/sessions/unknown')).status).toBe(404);
    // The v2 API reads v1 sessions too (same merchant and mode).
    expect((await call(m, 'get', `/api/v2/kyc/sessions/${r.body.id}`)).body.session.status).toBe('NOT_STARTED');
  });

  it('errors: 400 malformed (bare envelope), 401 wrong key, 422 a webhookUrl into our own network', async () => {
    const m = await newMerchant(ctx.deps);
    for (const bad of [{}, { level: 'basic' }, { redirectUrl: 'https://a.example' }, { level: 'pro', redirectUrl: 'https://a.example' }, { level: 'basic', redirectUrl: 'https://a.example', locale: 'kk' }]) {
      const r = await v1Request(ctx.app, m, 'post', '/api/v1/kyc/sessions', bad);
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ error: { code: 'VALIDATION_ERROR', message: expect.any(String), details: expect.any(Array) } });
    }
    const noKey = await request(ctx.app).post('/api/v1/kyc/sessions').send({ level: 'basic', redirectUrl: 'https://a.example' });
    expect(noKey.status).toBe(401);
    expect(noKey.body.error.code).toBe('UNAUTHORIZED');
    expect(noKey.body.success).toBeUndefined();
    const wrong = await v1Request(ctx.app, { apiKey: 'sk_test_wrong' }, 'post', '/api/v1/kyc/sessions', { level: 'basic', redirectUrl: 'https://a.example' });
    expect(wrong.status).toBe(401);
    for (const webhookUrl of ['http://127.0.0.1:9/kyc', 'http://localhost/kyc', 'http://10.1.2.3/kyc', 'http://[::1]/kyc']) {
      const r = await v1Request(ctx.app, m, 'post', '/api/v1/kyc/sessions', { level: 'basic', redirectUrl: 'https://a.example', webhookUrl });
      expect(r.status).toBe(422);
      expect(r.body).toEqual({ error: { code: 'VALIDATION_FAILED', message: expect.stringContaining('webhookUrl'), details: [{ field: 'webhookUrl', message: expect.any(String) }] } });
    }
    expect(await countKycSessions(ctx.deps.db, m.merchantId)).toBe(0);
  });
});
