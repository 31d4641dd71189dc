import request from 'supertest';
import { eventually, openBrowser, registerCryptoMerchant, spawnBuiltService, type RunningService } from '@pay/testing';

// The built crypto service as scripts/stack.sh runs it, its sandbox chain and tracker on.
let svc: RunningService;
let browser: Awaited<ReturnType<typeof openBrowser>>;
beforeAll(async () => {
  [svc, browser] = await Promise.all([spawnBuiltService('crypto'), openBrowser()]);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

it('the payment page shows what to send, and the invoice state once paid (headless Chromium)', async () => {
  const m = await registerCryptoMerchant(svc.url);
  const inv = (await request(svc.url).post('/api/v1/invoices').set('X-Api-Key', m.apiKey).send({ amount: 42.5, currency: 'USDT_TRC20', description: 'Order <7>' })).body.data;
  const page = await browser.context.newPage();
  await page.goto(inv.paymentUrl);
  expect(await page.title()).toBe('Pay 42.5 Tether USD');
  expect(await page.getByTestId('address').textContent()).toBe(inv.address);
  expect(await page.getByTestId('status').textContent()).toBe('Pending');
  expect(await page.locator('body').textContent()).toContain('Order <7>'); // escaped, shown as text
  expect(await page.locator('body').textContent()).toContain('test mode');

  await request(svc.url).post('/api/v1/sandbox/transactions').set('X-Api-Key', m.apiKey).send({ invoiceId: inv.id, amount: 42.5 });
  // The sandbox chain confirms by itself (a block each SANDBOX_BLOCK_MS).
  await eventually(async () => {
    await page.reload();
    expect(await page.getByTestId('status').textContent()).toBe('Paid');
  }, 30_000);
  const shot = await page.screenshot();
  expect(shot.length).toBeGreaterThan(1000);
  await page.goto(`${svc.url}/pay/00000000-0000-4000-8000-000000000000`);
  expect(await page.locator('body').textContent()).toContain('does not exist');
});
