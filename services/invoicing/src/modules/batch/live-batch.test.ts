/**
 * Issue 28, finding 13: a live batch on the T-Bank protocol emulator (loopback). The acquirer
 * takes rubles only, so in live mode a row in another currency is that row's error, as every
 * other bad row is, and the valid rows are still created.
 */
import request from 'supertest';
import { merchantInvoices } from '../../../test/invoices/store';
import { liveInvoicingForSuite, newMerchant, v1Request, type TestMerchant } from '../../../test/test-support';

const { ctx, emulator } = liveInvoicingForSuite({ terminal: 'BatchTerminal', password: 'batch-secret-1' });

async function liveMerchantWith(...currencies: string[]): Promise<TestMerchant> {
  const m = await newMerchant(ctx.deps, 'live');
  expect((await v1Request(ctx.app, m, 'put', '/api/v1/settings/currencies', { enabledCurrencies: currencies })).status).toBe(200);
  return m;
}
const upload = (m: TestMerchant, csv: string) =>
  request(ctx.app).post('/api/v1/batch/invoices').set('x-api-key', m.apiKey).field('sendEmails', 'false').attach('file', Buffer.from(csv), 'invoices.csv');

describe('a live batch', () => {
  it('lists a non-RUB row as that row’s error (live mode takes rubles only) and creates the ruble rows at the acquirer', async () => {
    const m = await liveMerchantWith('RUB', 'USD', 'EUR');
    const csv = 'amount,currency,externalId\n100.50,RUB,r-1\n20,USD,u-2\n30.25,RUB,r-3\n5,EUR,e-4\n';
    const res = await upload(m, csv);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ total: 4, created: 2, failed: 2 });
    expect(res.body.invoices.map((i: { externalId: string; currency: string }) => [i.externalId, i.currency])).toEqual([
      ['r-1', 'RUB'],
      ['r-3', 'RUB'],
    ]);
    expect(res.body.errors).toEqual([
      { row: 2, externalId: 'u-2', error: expect.stringMatching(/USD.*live mode.*RUB only/) },
      { row: 4, externalId: 'e-4', error: expect.stringMatching(/EUR.*live mode.*RUB only/) },
    ]);
    // Each ruble row has its payment at the acquirer; nothing was opened for the others.
    for (const inv of res.body.invoices as { id: string }[]) expect(emulator.paymentsOfOrder(inv.id)).toHaveLength(1);
    const rows = await merchantInvoices(ctx.deps.db, m.merchantId, ['external_id', 'currency', 'is_test'], 'external_id');
    expect(rows).toEqual([
      { external_id: 'r-1', currency: 'RUB', is_test: false },
      { external_id: 'r-3', currency: 'RUB', is_test: false },
    ]);
  });

  it('a live file with no ruble row at all is 422 NO_VALID_ROWS, each row’s reason listed, nothing created', async () => {
    const m = await liveMerchantWith('RUB', 'USD');
    const res = await upload(m, 'amount,currency\n20,USD\n');
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'NO_VALID_ROWS', details: [{ row: 1, message: expect.stringMatching(/live mode.*RUB only/) }] });
    expect(await merchantInvoices(ctx.deps.db, m.merchantId, ['id'])).toEqual([]);
  });
});
