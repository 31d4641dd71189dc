import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { openBrowser } from '@pay/testing';
import { ManualClock } from '@pay/kit';
import { startCryptoApp, type CryptoTestApp, testMerchant } from '../test-support';
import { trackTransfers } from '../transactions/tracker';

const clock = new ManualClock(Date.parse('2026-11-21T10:00:00.000Z'));
let ctx: CryptoTestApp;
let server: Server;
let base: string;
let browser: Awaited<ReturnType<typeof openBrowser>>;
beforeAll(async () => {
  ctx = await startCryptoApp({ clock });
  server = createServer(ctx.app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await openBrowser();
});
afterAll(async () => {
  await browser?.close();
  await new Promise((r) => server.close(r));
  await ctx.close();
});

it('the payment page shows what to send, and the invoice state once paid (headless Chromium)', async () => {
  const m = await testMerchant(ctx.app);
  const inv = (await request(ctx.app).post('/api/v1/invoices').set('X-Api-Key', m.apiKey).send({ amount: 42.5, currency: 'USDT_TRC20', description: 'Order <7>' })).body.data;
  const page = await browser.context.newPage();
  await page.goto(`${base}${new URL(inv.paymentUrl).pathname}`);
  expect(await page.title()).toBe('Pay 42.5 Tether USD');
  expect(await page.getByTestId('address').textContent()).toBe(inv.address);
  expect(await page.getByTestId('status').textContent()).toBe('Pending');
  expect(await page.locator('body').textContent()).toContain('Order <7>'); // escaped, shown as text
  expect(await page.locator('body').textContent()).toContain('test mode');

  await request(ctx.app).post('/api/v1/sandbox/transactions').set('X-Api-Key', m.apiKey).send({ invoiceId: inv.id, amount: 42.5 });
  clock.advance(20 * ctx.deps.config.SANDBOX_BLOCK_MS);
  await trackTransfers(ctx.deps);
  await page.reload();
  expect(await page.getByTestId('status').textContent()).toBe('Paid');
  const shot = await page.screenshot();
  expect(shot.length).toBeGreaterThan(1000);
  await page.goto(`${base}/pay/00000000-0000-4000-8000-000000000000`);
  expect(await page.locator('body').textContent()).toContain('does not exist');
});
