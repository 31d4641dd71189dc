import request from 'supertest';
import { systemClock } from '@pay/runtime';
import { eventsOf } from '@pay/webhooks';
import { invoicingEvents } from '../../event-catalogue';
import { assertValid } from '@pay/schemas';
import { eventually } from '@pay/testing';
import { countKycFiles, countKycSessions, kycSessionRow, setKycSessionExpiresAt } from '../../../test/kyc/store';
import { clockSigner, invoicingAppForSuite, newMerchant, v1Request, type TestMerchant } from '../../../test/test-support';
import { documentForm, idCard, mismatchedDocument, passportMrz, PERSON, photo, postDocuments, selfie, tamperedDocument } from '../../../test/kyc/fixtures';
import { reviewKycSession } from './decision';
import { DECLINE_BELOW } from './rules';

const ctx = invoicingAppForSuite({ background: true });
const call = clockSigner(() => ctx.app, systemClock);
// Each check reads the document's zone by OCR and runs the face model: 1–3 s of an idle core,
// but over a minute on a 2-core machine loaded tenfold (CI saw 69 s). A check is waited for
// until it is decided, up to CHECK_MS; some tests wait for two.
const CHECK_MS = 150_000;
jest.setTimeout(2 * CHECK_MS + 60_000);
// The background's face model and MRZ reader load before the first test, and stay warm through the file.
beforeAll(() => Promise.all([ctx.background!.faces.warm(), ctx.background!.zones.warm()]), CHECK_MS);

const year = new Date().getUTCFullYear();
const person = PERSON;
const submit = (sessionId: string, form: Record<string, string>, files: Record<string, Buffer | null> = {}) => postDocuments(ctx.app, sessionId, form, files);

const sessionOf = (id: string) => kycSessionRow(ctx.deps.db, id);
const decided = (id: string, status: string) =>
  eventually(async () => {
    const s = await sessionOf(id);
    expect(s.status).toBe(status);
    return s;
  }, CHECK_MS);
const owner = (m: TestMerchant) => ({ merchantId: m.merchantId, isTest: true });

describe('KYC verification flow', () => {
  it('page → documents → automatic approval: verification views, customer VERIFIED, invoice kycVerified and payable, kyc.passed', async () => {
    const m = await newMerchant(ctx.deps);
    const inv = (await call(m, 'post', '/api/v2/invoices', { amount: 250, kycRequired: true, customerEmail: 'Anna@Example.kz', customerName: 'A. I.' })).body.invoice;
    expect((await call(m, 'post', `/api/v2/sandbox/invoices/${inv.id}/pay`, {})).body.error.code).toBe('KYC_REQUIRED');
    const created = (await call(m, 'post', '/api/v2/kyc/sessions', { invoiceId: inv.id, callbackUrl: 'https://shop.example/done', customerId: 'crm-1' })).body.session;

    const page = await request(ctx.app).get(`/kyc/${created.sessionId}`);
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.text).toContain('<html lang="ru">');
    expect(page.text).toContain('Проверка личности');
    expect(page.text).toMatch(/name="document"[^>]*capture="environment"/);
    expect(page.text).toMatch(/name="selfie"[^>]*capture="user"/);
    expect(page.text).not.toContain('name="addressProof"');

    const sent = await submit(created.sessionId, documentForm());
    expect(sent.status).toBe(303);
    expect(sent.headers.location).toBe(`/kyc/${created.sessionId}`);
    const s = await decided(created.id, 'APPROVED');
    expect(s.check_state).toBe('DECIDED');
    expect(s.decided_by).toBe('auto:rules');

    const got = (await call(m, 'get', `/api/v2/kyc/sessions/${created.id}`)).body.session;
    expect(got.status).toBe('APPROVED');
    expect(got.verification).toEqual({
      firstName: 'Anna',
      lastName: 'Ivanova',
      middleName: 'Sergeevna',
      fullName: 'Anna Sergeevna Ivanova',
      dateOfBirth: '1990-01-01',
      documentType: 'passport',
      documentNumber: '*****5678',
      documentCountry: 'KAZ',
      documentIssuedAt: `${year - 2}-06-30`,
      documentExpiresAt: person.expiry,
      faceMatchScore: expect.any(Number),
      livenessScore: 1,
      verifiedAt: s.verified_at!.toISOString(),
    });
    expect(got.verification.faceMatchScore).toBeGreaterThanOrEqual(0.8);
    const listed = (await call(m, 'get', `/api/v2/kyc/sessions?status=APPROVED&invoiceId=${inv.id}`)).body.data;
    expect(listed).toHaveLength(1);
    expect(Object.keys(listed[0].verification).sort()).toEqual(
      ['firstName', 'lastName', 'fullName', 'dateOfBirth', 'documentType', 'documentCountry', 'faceMatchScore', 'livenessScore', 'verifiedAt'].sort(),
    );

    // The invoice is kycVerified and can be paid; the customer exists, VERIFIED, LEVEL_2 (KYC).
    const invoice = (await call(m, 'get', `/api/v2/invoices/${inv.id}`)).body.invoice;
    expect(invoice.kycVerified).toBe(true);
    expect(invoice.customer).toMatchObject({ email: 'anna@example.kz', kycStatus: 'VERIFIED', fullName: 'Anna Sergeevna Ivanova' });
    const customers = (await call(m, 'get', '/api/v2/customers')).body.data;
    expect(customers).toEqual([expect.objectContaining({ email: 'anna@example.kz', kycStatus: 'VERIFIED', trustLevel: 'LEVEL_2', totalPayments: 0 })]);
    expect((await call(m, 'post', `/api/v2/sandbox/invoices/${inv.id}/pay`, {})).status).toBe(200);
    // A new invoice of the same customer is kycVerified from creation.
    expect((await call(m, 'post', '/api/v2/invoices', { amount: 1, customerEmail: 'anna@example.kz' })).body.invoice.kycVerified).toBe(true);

    const events = await eventsOf(ctx.deps.db, owner(m), 'kyc.passed');
    expect(events).toHaveLength(1);
    expect(events[0]!.targetUrl).toBeNull();
    expect(events[0]!.body).toEqual({
      event: 'kyc.passed',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: 'kyc.passed',
      createdAt: expect.any(String),
      source: 'invoicing',
      timestamp: expect.any(Number),
      livemode: false,
      session: { id: created.id, sessionId: created.sessionId, status: 'APPROVED', invoiceId: inv.id, customerId: 'crm-1', customerEmail: 'Anna@Example.kz', customerPhone: null, reason: null, updatedAt: s.updated_at.toISOString() },
    });

    assertValid(invoicingEvents.bodies['kyc.passed'], events[0]!.body); // the documented contract

    // The page shows the outcome and the way back; a second submission is refused.
    const after = await request(ctx.app).get(`/kyc/${created.sessionId}`);
    expect(after.text).toContain('data-return-url="https://shop.example/done"');
    expect(after.text).toContain('data-kyc-state="approved"');
    expect((await request(ctx.app).get(`/kyc/${created.sessionId}/state`)).body).toEqual({ success: true, state: 'approved' });
    const again = await submit(created.sessionId, documentForm());
    expect(again.status).toBe(422);
    expect(again.text).toContain('Документы уже отправлены'); // the session's language (ru)
  });

  it('declines a minor at once, attempts left or not: DECLINED with its reason, a paying customer becomes REJECTED with trust recomputed, kyc.rejected', async () => {
    const m = await newMerchant(ctx.deps);
    for (let i = 0; i < 3; i++) {
      const inv = (await call(m, 'post', '/api/v2/invoices', { amount: 10, customerPhone: '+77010000001' })).body.invoice;
      await call(m, 'post', `/api/v2/sandbox/invoices/${inv.id}/pay`, {});
    }
    const created = (await call(m, 'post', '/api/v2/kyc/sessions', { customerPhone: '+77010000001', language: 'en' })).body.session;
    const birth = `${year - 17}-01-01`;
    expect((await submit(created.sessionId, documentForm({ dateOfBirth: birth, mrz: passportMrz({ ...person, birth }) }), { document: await idCard({ holder: { ...person, birth } }) })).status).toBe(303);
    const s = await decided(created.id, 'DECLINED');
    expect(s.reason).toMatch(/under 18/);
    expect((await call(m, 'get', `/api/v2/kyc/sessions/${created.id}`)).body.session).toMatchObject({ declineReason: 'UNDERAGE', retryRequired: false, attemptsUsed: 1, attemptsRemaining: 0 });
    expect((await call(m, 'get', `/api/v2/kyc/sessions/${created.id}`)).body.session.verification).toBeNull();
    const customer = (await call(m, 'get', '/api/v2/customers')).body.data[0];
    expect(customer).toMatchObject({ phone: '+77010000001', kycStatus: 'REJECTED', trustLevel: 'LEVEL_2', totalPayments: 3 });
    const events = await eventsOf(ctx.deps.db, owner(m), 'kyc.rejected');
    expect(events.map((e) => (e.body.session as { status: string; reason: string }).status)).toEqual(['DECLINED']);
    assertValid(invoicingEvents.bodies['kyc.rejected'], events[0]!.body);
    expect((await request(ctx.app).get(`/kyc/${created.sessionId}`)).text).toContain('Not verified');
  });

  it('a selfie of someone else declines the attempt, not the session: the customer sees why and tries again, and the retry passes', async () => {
    const m = await newMerchant(ctx.deps);
    const created = (await call(m, 'post', '/api/v2/kyc/sessions', { customerEmail: 'other@example.kz', language: 'en' })).body.session;
    expect((await submit(created.sessionId, documentForm(), { selfie: await selfie({ person: 'John_Savage' }) })).status).toBe(303);
    const s = await eventually(async () => {
      const x = await sessionOf(created.id);
      expect(x.check_state).toBe('RETRY');
      return x;
    }, CHECK_MS);
    expect(s.status).toBe('IN_PROGRESS');
    expect(s.reason).toMatch(/^The selfie does not show the person on the document photo/);
    expect(Number(s.face_match_score)).toBeLessThan(DECLINE_BELOW);
    expect(s.checks).toContainEqual({ name: 'face_match', passed: false, hard: true, detail: s.reason });
    // The merchant reads why and how many attempts are left; nothing final happened: no event, no customer.
    expect((await call(m, 'get', `/api/v2/kyc/sessions/${created.id}`)).body.session).toMatchObject({
      status: 'IN_PROGRESS',
      verification: null,
      declineReason: 'FACE_MISMATCH',
      retryRequired: true,
      maxAttempts: 3,
      attemptsUsed: 1,
      attemptsRemaining: 2,
    });
    expect(await eventsOf(ctx.deps.db, owner(m), 'kyc.rejected')).toEqual([]);
    expect((await call(m, 'get', '/api/v2/customers')).body.data).toEqual([]);
    // The page tells the customer in their words (no score) and offers to try again, with what they typed.
    const page = await request(ctx.app).get(`/kyc/${created.sessionId}`);
    expect(page.text).toContain('data-kyc-state="retry"');
    expect(page.text).toContain('The selfie does not match the document photo.');
    expect(page.text).toContain('Attempts left: 2');
    expect(page.text).toContain(`href="/kyc/${created.sessionId}?retry=1"`);
    expect(page.text).not.toContain('data-kyc-form');
    expect(page.text).not.toMatch(/score|0\.\d{2}/i);
    expect((await request(ctx.app).get(`/kyc/${created.sessionId}/state`)).body).toEqual({ success: true, state: 'retry' });
    const again = await request(ctx.app).get(`/kyc/${created.sessionId}?retry=1`);
    expect(again.text).toContain('data-kyc-form');
    expect(again.text).toContain('data-reason="FACE_MISMATCH"');
    expect(again.text).toMatch(/name="lastName" value="Ivanova"/);

    expect((await submit(created.sessionId, documentForm())).status).toBe(303);
    const passed = await decided(created.id, 'APPROVED');
    expect(passed).toMatchObject({ attempts: 2, reason: null, check_state: 'DECIDED' });
    expect(await countKycFiles(ctx.deps.db, created.id)).toBe(2); // the retry's pictures replaced the first ones
    expect((await call(m, 'get', `/api/v2/kyc/sessions/${created.id}`)).body.session).toMatchObject({
      status: 'APPROVED',
      declineReason: null,
      retryRequired: false,
      attemptsUsed: 2,
      attemptsRemaining: 0,
    });
    expect(await eventsOf(ctx.deps.db, owner(m), 'kyc.rejected')).toEqual([]);
    expect(await eventsOf(ctx.deps.db, owner(m), 'kyc.passed')).toHaveLength(1);
  });

  it('the last attempt’s decline is final: DECLINED with its reason and one kyc.rejected; maxAttempts is the merchant’s', async () => {
    const m = await newMerchant(ctx.deps);
    const created = (await call(m, 'post', '/api/v2/kyc/sessions', { customerEmail: 'twice@example.kz', maxAttempts: 2 })).body.session;
    for (const attempt of [1, 2]) {
      expect((await submit(created.sessionId, documentForm(), { selfie: await selfie({ person: 'John_Savage' }) })).status).toBe(303);
      await eventually(async () => expect(await sessionOf(created.id)).toMatchObject({ attempts: attempt, check_state: attempt === 1 ? 'RETRY' : 'DECIDED' }), CHECK_MS);
    }
    const s = await decided(created.id, 'DECLINED');
    expect((await call(m, 'get', `/api/v2/kyc/sessions/${created.id}`)).body.session).toMatchObject({
      status: 'DECLINED',
      declineReason: 'FACE_MISMATCH',
      retryRequired: false,
      maxAttempts: 2,
      attemptsUsed: 2,
      attemptsRemaining: 0,
    });
    const events = await eventsOf(ctx.deps.db, owner(m), 'kyc.rejected');
    expect(events.map((e) => (e.body.session as { status: string; reason: string }).reason)).toEqual([s.reason]);
    const third = await submit(created.sessionId, documentForm());
    expect(third.status).toBe(422);
    expect(third.text).toContain('Документы уже отправлены');
    // Out of range: a clear 400 naming the field, nothing written.
    for (const maxAttempts of [0, 11, 1.5, '3']) {
      const r = await call(m, 'post', '/api/v2/kyc/sessions', { customerEmail: 'n@example.kz', maxAttempts });
      expect(r.status).toBe(400);
      expect(r.body.error.details).toEqual([expect.objectContaining({ field: 'maxAttempts' })]);
    }
    const v1 = await v1Request(ctx.app, m, 'post', '/api/v1/kyc/sessions', { level: 'basic', redirectUrl: 'https://shop.example/r', maxAttempts: 5 });
    expect(v1.body).toMatchObject({ status: 'pending', maxAttempts: 5, attemptsUsed: 0, attemptsRemaining: 5, retryRequired: false, declineReason: null });
    expect(await countKycSessions(ctx.deps.db, m.merchantId)).toBe(2);
  });

  it('a session still waiting for a retry at expiresAt ends DECLINED with its last reason and kyc.rejected', async () => {
    const m = await newMerchant(ctx.deps);
    const created = (await call(m, 'post', '/api/v2/kyc/sessions', { customerEmail: 'late@example.kz' })).body.session;
    expect((await submit(created.sessionId, documentForm({ documentExpiresAt: `${year - 1}-01-31` }))).status).toBe(303);
    await eventually(async () => expect((await sessionOf(created.id)).check_state).toBe('RETRY'), CHECK_MS);
    await setKycSessionExpiresAt(ctx.deps.db, created.id, new Date(Date.now() - 1000));
    // Past its time the page takes nothing more; the suite's expiry loop ends the session.
    expect((await submit(created.sessionId, documentForm())).status).toBe(422);
    const s = await decided(created.id, 'DECLINED');
    expect(s).toMatchObject({ attempts: 1, decided_by: 'auto:rules', check_state: 'DECIDED' });
    expect((await call(m, 'get', `/api/v2/kyc/sessions/${created.id}`)).body.session).toMatchObject({ declineReason: 'DOCUMENT_EXPIRED', attemptsRemaining: 0 });
    const events = await eventsOf(ctx.deps.db, owner(m), 'kyc.rejected');
    expect(events).toHaveLength(1);
    assertValid(invoicingEvents.bodies['kyc.rejected'], events[0]!.body);
    expect((await request(ctx.app).get(`/kyc/${created.sessionId}`)).text).toContain('data-reason="DOCUMENT_EXPIRED"');
  });

  it('reads the zone off the document photo: declines a wrong check digit on it, or a zone that is not the typed data', async () => {
    const m = await newMerchant(ctx.deps);
    // One attempt each: the decline is final at once.
    const forged = (await call(m, 'post', '/api/v2/kyc/sessions', { customerEmail: 'forged@example.kz', maxAttempts: 1 })).body.session;
    const other = (await call(m, 'post', '/api/v2/kyc/sessions', { customerEmail: 'other-doc@example.kz', maxAttempts: 1 })).body.session;
    // Nothing typed in the zone field: what counts is the zone on the photo.
    expect((await submit(forged.sessionId, documentForm({ mrz: '' }), { document: await tamperedDocument() })).status).toBe(303);
    expect((await submit(other.sessionId, documentForm({ mrz: '' }), { document: await mismatchedDocument() })).status).toBe(303);
    const a = await decided(forged.id, 'DECLINED');
    expect(a.reason).toMatch(/^The machine-readable zone read from the document photo is not valid \(Document number check digit: .*\)/);
    const b = await decided(other.id, 'DECLINED');
    expect(b.reason).toBe('The machine-readable zone read from the document photo does not match the typed document number');
  });

  it('sends a borderline case to manual review (kyc.manual_review), which a reviewer approves once', async () => {
    const m = await newMerchant(ctx.deps);
    const created = (await call(m, 'post', '/api/v2/kyc/sessions', { customerEmail: 'r@example.kz' })).body.session;
    // A document without a machine-readable zone, and none typed: a person compares it.
    expect((await submit(created.sessionId, documentForm({ mrz: '' }), { document: await idCard({ zone: null }) })).status).toBe(303);
    const s = await eventually(async () => {
      const x = await sessionOf(created.id);
      expect(x.check_state).toBe('MANUAL_REVIEW');
      return x;
    }, CHECK_MS);
    expect(s.status).toBe('IN_PROGRESS');
    expect(s.reason).toMatch(/machine-readable zone/);
    expect((await eventsOf(ctx.deps.db, owner(m), 'kyc.manual_review')).map((e) => (e.body.session as { status: string }).status)).toEqual(['IN_PROGRESS']);
    expect((await request(ctx.app).get(`/kyc/${created.sessionId}`)).text).toContain('data-kyc-state="review"');
    // Another merchant cannot decide it; the reviewer decides once.
    const other = await newMerchant(ctx.deps);
    await expect(reviewKycSession(ctx.deps, owner(other), created.id, { approve: true, reason: null, reviewer: 'x' })).rejects.toThrow(/not found/);
    const approved = await reviewKycSession(ctx.deps, owner(m), created.id, { approve: true, reason: null, reviewer: 'key-1' });
    expect(approved).toMatchObject({ status: 'APPROVED', decidedBy: 'key-1' });
    await expect(reviewKycSession(ctx.deps, owner(m), created.id, { approve: false, reason: 'late', reviewer: 'key-1' })).rejects.toThrow(/not waiting/);
    expect((await call(m, 'get', '/api/v2/customers')).body.data[0]).toMatchObject({ email: 'r@example.kz', kycStatus: 'VERIFIED' });
    expect(await eventsOf(ctx.deps.db, owner(m), 'kyc.passed')).toHaveLength(1);
  });

  it('refuses bad uploads and bad data with nothing written: type by content, size, missing file, form problems, advanced without proof', async () => {
    const m = await newMerchant(ctx.deps);
    const created = (await call(m, 'post', '/api/v2/kyc/sessions', {})).body.session;
    const fake = await submit(created.sessionId, documentForm(), { selfie: Buffer.from('GIF89a not really an image') });
    expect(fake.status).toBe(400);
    expect(fake.text).toContain('data-refusal="fileType"');
    const pdf = await submit(created.sessionId, documentForm(), { document: Buffer.from('%PDF-1.4\n%%EOF') });
    expect(pdf.status).toBe(400);
    const huge = await submit(created.sessionId, documentForm(), { document: Buffer.concat([await photo(), Buffer.alloc(9 * 1024 * 1024)]) });
    expect(huge.status).toBe(413);
    const missing = await submit(created.sessionId, documentForm(), { selfie: null });
    expect(missing.status).toBe(400);
    const badData = await submit(created.sessionId, documentForm({ dateOfBirth: '1990-02-30', documentCountry: 'KZ', firstName: '<script>' }));
    expect(badData.status).toBe(400);
    expect(badData.text).toContain('Дата рождения');
    expect(badData.text).not.toContain('<script>');
    expect(badData.text).toContain('&lt;script&gt;');
    expect((await sessionOf(created.id)).status).toBe('NOT_STARTED');
    expect(await countKycFiles(ctx.deps.db, created.id)).toBe(0);

    const v1 = (await v1Request(ctx.app, m, 'post', '/api/v1/kyc/sessions', { level: 'advanced', redirectUrl: 'https://shop.example/r', locale: 'kz' })).body;
    const sessionId = v1.verificationUrl.split('/kyc/')[1];
    const page = await request(ctx.app).get(`/kyc/${sessionId}`);
    expect(page.text).toContain('<html lang="kk">');
    expect(page.text).toContain('name="addressProof"');
    const noProof = await submit(sessionId, documentForm());
    expect(noProof.status).toBe(400);
    expect(noProof.text).toContain('Мекенжайды растау'); // the proof of address, named in the session's language (kk)
    expect((await submit(sessionId, documentForm(), { addressProof: Buffer.from('%PDF-1.4\n1 0 obj\n<<>>\nendobj\n%%EOF') })).status).toBe(303);
    expect((await v1Request(ctx.app, m, 'get', `/api/v1/kyc/sessions/${v1.id}`)).body.status).toBe('in_progress');
    await eventually(async () => expect((await sessionOf(v1.id)).check_state).toBe('MANUAL_REVIEW'), CHECK_MS);
    expect(await countKycFiles(ctx.deps.db, v1.id)).toBe(3);
  });

  it('the payment page of a kycRequired invoice sends the payer to verification, and back to pay once approved', async () => {
    const m = await newMerchant(ctx.deps);
    const inv = (await call(m, 'post', '/api/v2/invoices', { amount: 99, kycRequired: true, customerPhone: '+77015550000' })).body.invoice;
    const pay = await request(ctx.app).get(`/pay/${inv.id}`);
    expect(pay.text).toContain(`action="/pay/${inv.id}/kyc"`);
    const go = await request(ctx.app).post(`/pay/${inv.id}/kyc`).type('form').send('');
    expect(go.status).toBe(303);
    expect(go.headers.location).toMatch(/^\/kyc\/kyc_/);
    // Asking again leads to the same open session, not a new one.
    expect((await request(ctx.app).post(`/pay/${inv.id}/kyc`).type('form').send('')).headers.location).toBe(go.headers.location);
    const sessions = (await call(m, 'get', `/api/v2/kyc/sessions?invoiceId=${inv.id}`)).body.data;
    expect(sessions).toEqual([expect.objectContaining({ status: 'NOT_STARTED', invoiceId: inv.id, customerPhone: '+77015550000' })]);
    const sessionId = go.headers.location!.split('/kyc/')[1]!;
    expect((await submit(sessionId, documentForm())).status).toBe(303);
    await decided(sessions[0].id, 'APPROVED');
    expect((await request(ctx.app).get(`/kyc/${sessionId}`)).text).toContain(`data-return-url="${ctx.deps.config.PUBLIC_URL}/pay/${inv.id}"`);
    const payable = await request(ctx.app).get(`/pay/${inv.id}`);
    expect(payable.text).not.toContain('data-testid="kyc-required"');
    expect(payable.text).toContain('data-testid="qr"');
    // Nothing to verify any more: straight back to the payment page.
    expect((await request(ctx.app).post(`/pay/${inv.id}/kyc`).type('form').send('')).headers.location).toBe(`/pay/${inv.id}`);
  });

  it('expires a session nobody finished: EXPIRED (v1 expired), the page says so and takes nothing', async () => {
    const m = await newMerchant(ctx.deps);
    const v1 = (await v1Request(ctx.app, m, 'post', '/api/v1/kyc/sessions', { level: 'basic', redirectUrl: 'https://shop.example/r' })).body;
    const sessionId = v1.verificationUrl.split('/kyc/')[1];
    await setKycSessionExpiresAt(ctx.deps.db, v1.id, new Date(Date.now() - 1000));
    // Past its time, the page refuses before the loop has marked it.
    const late = await submit(sessionId, documentForm());
    expect(late.status).toBe(422);
    expect(late.text).toContain('expired');
    // The suite's background expiry loop marks it: what it returns is not this test's to count.
    await eventually(async () => expect((await v1Request(ctx.app, m, 'get', `/api/v1/kyc/sessions/${v1.id}`)).body.status).toBe('expired'));
    expect((await call(m, 'get', `/api/v2/kyc/sessions/${v1.id}`)).body.session.status).toBe('EXPIRED');
    expect((await request(ctx.app).get(`/kyc/${sessionId}`)).text).toContain('Срок действия ссылки истёк');
    expect((await request(ctx.app).get('/kyc/kyc_AAAAAAAAAAAAAAAAAAAAAAAA')).status).toBe(404);
  });
});
