import { invoicingAppForSuite, newMerchant, v2Request } from '../../../test/test-support';

// As main.ts builds it: no live provider.
const ctx = invoicingAppForSuite();

it('refuses live invoices when no live payment provider is connected, writing nothing', async () => {
  const m = await newMerchant(ctx.deps, 'live');
  const res = await v2Request(ctx.app, m, 'post', '/api/v2/invoices', { amount: 10 });
  expect(res.status).toBe(422);
  expect(res.body.error.code).toBe('PAYMENT_METHOD_NOT_ENABLED');
  const list = await v2Request(ctx.app, m, 'get', '/api/v2/invoices');
  expect(list.body.pagination.total).toBe(0);
});
