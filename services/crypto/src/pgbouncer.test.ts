import request from 'supertest';
import { startPgBouncer, type PgBouncer } from '@pay/testing';
import { registerMerchant, startCryptoApp, testKeyFor, type CryptoTestApp } from '../test/test-support';

// The crypto API through PgBouncer in transaction pooling (DATABASE_POOLING=transaction, README
// "PgBouncer"): its client's 8 connections share PgBouncer's 2 server connections, so
// consecutive statements of one client connection run on different server connections.
let bouncer: PgBouncer;
let ctx: CryptoTestApp;
beforeAll(async () => {
  bouncer = await startPgBouncer(process.env.DATABASE_URL!, { poolSize: 2 });
  ctx = await startCryptoApp({ env: bouncer.envFor('crypto') });
}, 60_000);
afterAll(async () => {
  await ctx?.close();
  await bouncer?.stop();
});

it("creates and reads invoices concurrently through the hot paths' prepared statements, which go unnamed there", async () => {
  expect((await request(ctx.app).get('/readyz')).status).toBe(200);
  const m = await testKeyFor(ctx.app, await registerMerchant(ctx.app));
  const created = await Promise.all(
    Array.from({ length: 40 }, (_, i) => request(ctx.app).post('/api/v1/invoices').set('X-Api-Key', m.apiKey).send({ amount: 1 + i, currency: 'USDT_TRC20' })),
  );
  expect(created.map((r) => r.status)).toEqual(created.map(() => 201));
  const read = await Promise.all(created.map((r) => request(ctx.app).get(`/api/v1/invoices/${r.body.data.id}`).set('X-Api-Key', m.apiKey)));
  expect(read.map((r) => [r.status, r.body.data?.amount])).toEqual(created.map((_, i) => [200, 1 + i]));
}, 60_000);

it('is not ready on a PgBouncer entry that sets no search_path, and says which connect_query to add', async () => {
  const wrong = await startCryptoApp({ env: { ...bouncer.envFor('crypto'), DATABASE_URL: bouncer.url } });
  try {
    const res = await request(wrong.app).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body.checks.postgres).toBe(
      "failing: the database connection works in schema public, not crypto: behind PgBouncer (DATABASE_POOLING=transaction) give this service a database entry with connect_query='SET search_path TO crypto' and point DATABASE_URL at it",
    );
  } finally {
    await wrong.close();
  }
}, 60_000);
