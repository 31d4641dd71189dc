import request from 'supertest';
import { randomUUID } from 'node:crypto';
import { registerMerchant, signedRequest, cryptoAppForSuite } from '../../../test/test-support';

const ctx = cryptoAppForSuite();

const profile = (key: string) => request(ctx.app).get('/api/v1/merchants/profile').set('X-Api-Key', key);

describe('API keys', () => {
  it('creates a test key, shown once, and lists keys without their values', async () => {
    const m = await registerMerchant(ctx.app);
    const created = await request(ctx.app).post('/api/v1/api-keys').set('X-Api-Key', m.apiKey).send({ name: 'CI', isTestKey: true });
    expect(created.status).toBe(201);
    expect(created.body.success).toBe(true);
    expect(Object.keys(created.body.data).sort()).toEqual(['apiKey', 'createdAt', 'id', 'isTestKey', 'keyPrefix', 'name']);
    expect(created.body.data).toMatchObject({ name: 'CI', isTestKey: true });
    expect(created.body.data.apiKey).toMatch(/^sk_test_/);
    expect(created.body.data.apiKey.startsWith(created.body.data.keyPrefix)).toBe(true);

    const list = await request(ctx.app).get('/api/v1/api-keys').set('X-Api-Key', m.apiKey);
    expect(list.status).toBe(200);
    expect(list.body.data).toMatchObject({ totalCount: 2, page: 1, pageSize: 20 });
    expect(list.body.data.items.map((k: { name: string }) => k.name)).toEqual(['Default key', 'CI']);
    expect(JSON.stringify(list.body)).not.toContain(created.body.data.apiKey);
    expect(JSON.stringify(list.body)).not.toContain(m.apiKey);
    expect(list.body.data.items[1]).toMatchObject({ isTestKey: true, status: 'Active', revokedAt: null });
  });

  it('validates the create body', async () => {
    const m = await registerMerchant(ctx.app);
    const res = await request(ctx.app).post('/api/v1/api-keys').set('X-Api-Key', m.apiKey).send({ name: '', isTestKey: 'yes' });
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['isTestKey', 'name']);
  });

  it('revokes a key: the very next request with it is refused', async () => {
    const m = await registerMerchant(ctx.app);
    const second = await request(ctx.app).post('/api/v1/api-keys').set('X-Api-Key', m.apiKey).send({ name: 'temp', isTestKey: false });
    const temp = second.body.data;
    expect((await profile(temp.apiKey)).status).toBe(200);

    const revoked = await request(ctx.app).delete(`/api/v1/api-keys/${temp.id}`).set('X-Api-Key', m.apiKey);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data).toMatchObject({ id: temp.id, status: 'Revoked' });

    const after = await profile(temp.apiKey);
    expect(after.status).toBe(401);
    expect(after.body.error).toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringMatching(/revoked/) });
    expect((await profile(m.apiKey)).status).toBe(200);
  });

  it('lets a key revoke itself, but never the last active key', async () => {
    const m = await registerMerchant(ctx.app);
    const last = await request(ctx.app).delete(`/api/v1/api-keys/${m.keyId}`).set('X-Api-Key', m.apiKey);
    expect(last.status).toBe(422);
    expect(last.body.error.code).toBe('INVALID_STATE');

    const other = (await request(ctx.app).post('/api/v1/api-keys').set('X-Api-Key', m.apiKey).send({ name: 'b', isTestKey: false })).body.data;
    const self = await request(ctx.app).delete(`/api/v1/api-keys/${m.keyId}`).set('X-Api-Key', m.apiKey);
    expect(self.status).toBe(200);
    expect((await profile(m.apiKey)).status).toBe(401);
    expect((await profile(other.apiKey)).status).toBe(200);
  });

  it("answers 404 for an unknown key or another merchant's key, 400 for a malformed id", async () => {
    const a = await registerMerchant(ctx.app);
    const b = await registerMerchant(ctx.app);
    const unknown = await request(ctx.app).delete(`/api/v1/api-keys/${randomUUID()}`).set('X-Api-Key', a.apiKey);
    expect(unknown.status).toBe(404);
    const foreign = await request(ctx.app).delete(`/api/v1/api-keys/${b.keyId}`).set('X-Api-Key', a.apiKey);
    expect(foreign.status).toBe(404);
    expect((await profile(b.apiKey)).status).toBe(200);
    const malformed = await request(ctx.app).delete('/api/v1/api-keys/not-a-uuid').set('X-Api-Key', a.apiKey);
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.details).toEqual([{ field: 'keyId', message: expect.stringContaining('uuid') }]);
  });

  it('regenerates the HMAC secret: the old secret no longer verifies, the new one does', async () => {
    const m = await registerMerchant(ctx.app);
    const res = await signedRequest(ctx.app, m, 'post', '/api/v1/api-keys/regenerate');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(['hmacSecret', 'rotatedAt']);
    const fresh = res.body.data.hmacSecret as string;
    expect(fresh).not.toBe(m.hmacSecret);

    const old = await signedRequest(ctx.app, m, 'put', '/api/v1/merchants/webhook', { webhookUrl: 'https://old.test' });
    expect(old.status).toBe(401);
    expect(old.body.error.code).toBe('INVALID_SIGNATURE');
    const ok = await signedRequest(ctx.app, { ...m, hmacSecret: fresh }, 'put', '/api/v1/merchants/webhook', { webhookUrl: 'https://new.test' });
    expect(ok.status).toBe(200);
  });

  it('regenerate takes no body: fields sent to it are refused and the secret stays', async () => {
    const m = await registerMerchant(ctx.app);
    const res = await signedRequest(ctx.app, m, 'post', '/api/v1/api-keys/regenerate', { rotate: true });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: '(body)', message: 'must be empty' }]);
    const still = await signedRequest(ctx.app, m, 'put', '/api/v1/merchants/webhook', { webhookUrl: 'https://still.test' });
    expect(still.status).toBe(200);
  });

  it('lets a test key manage test keys only: live keys and the shared secret need a live key', async () => {
    const live = await registerMerchant(ctx.app);
    const test = (await request(ctx.app).post('/api/v1/api-keys').set('X-Api-Key', live.apiKey).send({ name: 't', isTestKey: true })).body.data;
    const asTest = { ...live, apiKey: test.apiKey as string };
    const mintLive = await request(ctx.app).post('/api/v1/api-keys').set('X-Api-Key', asTest.apiKey).send({ name: 'x', isTestKey: false });
    expect(mintLive.status).toBe(403);
    expect(mintLive.body.error.code).toBe('FORBIDDEN');
    const mintTest = await request(ctx.app).post('/api/v1/api-keys').set('X-Api-Key', asTest.apiKey).send({ name: 'y', isTestKey: true });
    expect(mintTest.status).toBe(201);
    const revokeLive = await request(ctx.app).delete(`/api/v1/api-keys/${live.keyId}`).set('X-Api-Key', asTest.apiKey);
    expect(revokeLive.status).toBe(403);
    expect((await profile(live.apiKey)).status).toBe(200);
    const revokeTest = await request(ctx.app).delete(`/api/v1/api-keys/${mintTest.body.data.id}`).set('X-Api-Key', asTest.apiKey);
    expect(revokeTest.status).toBe(200);
    const regenerate = await signedRequest(ctx.app, asTest, 'post', '/api/v1/api-keys/regenerate');
    expect(regenerate.status).toBe(403);
  });

  it('scopes Idempotency-Key by mode: the same key on a test and a live key makes two keys', async () => {
    const live = await registerMerchant(ctx.app);
    const test = (await request(ctx.app).post('/api/v1/api-keys').set('X-Api-Key', live.apiKey).send({ name: 't', isTestKey: true })).body.data;
    const key = randomUUID();
    const body = { name: 'same', isTestKey: true };
    const a = await request(ctx.app).post('/api/v1/api-keys').set('X-Api-Key', live.apiKey).set('Idempotency-Key', key).send(body);
    const b = await request(ctx.app).post('/api/v1/api-keys').set('X-Api-Key', test.apiKey).set('Idempotency-Key', key).send(body);
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(b.body.data.id).not.toBe(a.body.data.id);
  });

  it('refuses an unsigned regeneration', async () => {
    const m = await registerMerchant(ctx.app);
    const res = await request(ctx.app).post('/api/v1/api-keys/regenerate').set('X-Api-Key', m.apiKey);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('INVALID_SIGNATURE');
  });

  it('replays a key creation for a repeated Idempotency-Key instead of making a second key', async () => {
    const m = await registerMerchant(ctx.app);
    const key = randomUUID();
    const send = () => request(ctx.app).post('/api/v1/api-keys').set('X-Api-Key', m.apiKey).set('Idempotency-Key', key).send({ name: 'once', isTestKey: true });
    const a = await send();
    const b = await send();
    expect(b.body.data.id).toBe(a.body.data.id);
    const list = await request(ctx.app).get('/api/v1/api-keys').set('X-Api-Key', m.apiKey);
    expect(list.body.data.totalCount).toBe(2);
  });
});
