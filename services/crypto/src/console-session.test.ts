import request from 'supertest';
import { signInToConsole, signOutOfConsole } from '@pay/accounts';
import { cryptoAppForSuite, fund, registerMerchant, signedRequest, testKeyFor, testMerchant } from '../test/test-support';

// The invoicing console reads a merchant's crypto data through this API with the merchant's
// console session (X-Console-Session), read-only (packages/accounts: apiKeyOrConsoleSession).
const ctx = cryptoAppForSuite();

const signIn = async (apiKey: string) => (await signInToConsole(ctx.deps.db, ctx.deps.secrets, apiKey, new Date())).token;
const asSession = (token: string, path: string) => request(ctx.app).get(path).set('X-Console-Session', token);

it("reads the merchant's balances, transactions and withdrawals in the session key's mode, as the key itself reads them", async () => {
  const live = await registerMerchant(ctx.app);
  const m = await testKeyFor(ctx.app, live);
  await fund(ctx, m, 'USDT_TRC20', 50);
  const token = await signIn(m.apiKey);
  for (const path of ['/api/v1/withdrawals/balance', '/api/v1/transactions?page=1&pageSize=5', '/api/v1/withdrawals', '/api/v1/merchants/profile']) {
    const [bySession, byKey] = await Promise.all([asSession(token, path), request(ctx.app).get(path).set('X-Api-Key', m.apiKey)]);
    expect([path, bySession.status]).toEqual([path, 200]);
    expect(bySession.body).toEqual(byKey.body);
  }
  const balance = (await asSession(token, '/api/v1/withdrawals/balance')).body.data.balances.find((b: { currency: string }) => b.currency === 'USDT_TRC20');
  expect(balance.available).toBe(49.5);
  expect((await asSession(token, '/api/v1/transactions')).body.data.totalCount).toBe(1);

  // The same merchant's live key: its session sees live mode, nothing of the test-mode funds.
  const liveSession = await signIn(live.apiKey);
  expect((await asSession(liveSession, '/api/v1/transactions')).body.data.totalCount).toBe(0);
  expect((await asSession(liveSession, '/api/v1/withdrawals/balance')).body).toEqual((await request(ctx.app).get('/api/v1/withdrawals/balance').set('X-Api-Key', live.apiKey)).body);
});

it('never changes anything: creating a key, a sandbox transfer or a withdrawal with a session is refused', async () => {
  const m = await testMerchant(ctx.app);
  const token = await signIn(m.apiKey);
  const keysBefore = (await request(ctx.app).get('/api/v1/api-keys').set('X-Api-Key', m.apiKey)).body.data.totalCount;

  const key = await request(ctx.app).post('/api/v1/api-keys').set('X-Console-Session', token).send({ name: 'stolen', isTestKey: true });
  expect(key.status).toBe(403);
  expect(key.body.error.message).toMatch(/only reads/);
  const transfer = await request(ctx.app).post('/api/v1/sandbox/transactions').set('X-Console-Session', token).send({ invoiceId: '00000000-0000-4000-8000-000000000000', amount: 1 });
  expect(transfer.status).toBe(403);
  const revoke = await request(ctx.app).delete(`/api/v1/api-keys/${m.keyId}`).set('X-Console-Session', token);
  expect(revoke.status).toBe(403);
  // A signed operation takes an API key and a signature; a session is neither.
  const withdrawal = await request(ctx.app).post('/api/v1/withdrawals').set('X-Console-Session', token).send({ toAddress: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7', amount: 1, currency: 'USDT_TRC20' });
  expect(withdrawal.status).toBe(401);

  expect((await request(ctx.app).get('/api/v1/api-keys').set('X-Api-Key', m.apiKey)).body.data.totalCount).toBe(keysBefore);
});

it('refuses a session that is unknown, signed out, or whose key was revoked', async () => {
  const m = await registerMerchant(ctx.app);
  const test = await testKeyFor(ctx.app, m);

  expect((await asSession('not-a-session', '/api/v1/withdrawals/balance')).status).toBe(401);
  expect((await asSession('', '/api/v1/withdrawals/balance')).status).toBe(401);

  const out = await signIn(test.apiKey);
  expect((await asSession(out, '/api/v1/withdrawals/balance')).status).toBe(200);
  await signOutOfConsole(ctx.deps.db, out);
  const signedOut = await asSession(out, '/api/v1/withdrawals/balance');
  expect(signedOut.status).toBe(401);
  expect(signedOut.body.error.message).toMatch(/sign in to the console again/);

  const revoked = await signIn(test.apiKey);
  expect((await signedRequest(ctx.app, m, 'delete', `/api/v1/api-keys/${test.keyId}`)).status).toBe(200);
  expect((await asSession(revoked, '/api/v1/withdrawals/balance')).status).toBe(401);
});
