import request from 'supertest';
import { eventually, openBrowser, registerCryptoMerchant, spawnBuiltService, type RunningService, BUILT_START_MS } from '@pay/testing';
import { paymentUri } from './payment-uri';
import { money } from '../../shared/money';

// The built crypto service as scripts/stack.sh runs it, its sandbox chain and tracker on.
let svc: RunningService;
let browser: Awaited<ReturnType<typeof openBrowser>>;
beforeAll(async () => {
  [svc, browser] = await Promise.all([spawnBuiltService('crypto'), openBrowser()]);
}, BUILT_START_MS);
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

it('the payment page shows what to send, and the invoice state once paid (headless Chromium)', async () => {
  const m = await registerCryptoMerchant(svc.url);
  const inv = (await request(svc.url).post('/api/v1/invoices').set('X-Api-Key', m.apiKey).send({ amount: 42.5, currency: 'USDT_TRC20', description: 'Order <7>' })).body.data;
  const page = await browser.context.newPage();
  await page.goto(inv.paymentUrl);
  expect(await page.title()).toBe('Pay 42.5 Tether USD — Acme Ltd');
  expect(await page.getByTestId('address').textContent()).toBe(inv.address);
  expect(await page.getByTestId('status').textContent()).toBe('Awaiting payment');
  expect(await page.locator('body').textContent()).toContain('Order <7>'); // escaped, shown as text
  expect(await page.getByTestId('test-mode').textContent()).toBe('TEST MODE: no real funds');

  await request(svc.url).post('/api/v1/sandbox/transactions').set('X-Api-Key', m.apiKey).send({ invoiceId: inv.id, amount: 42.5 });
  // The sandbox chain confirms by itself (a block each SANDBOX_BLOCK_MS).
  await eventually(async () => {
    await page.reload();
    expect(await page.getByTestId('status').textContent()).toBe('Paid');
  }, 30_000);
  const shot = await page.screenshot();
  expect(shot.length).toBeGreaterThan(1000);
  await page.goto(`${svc.url}/pay/00000000-0000-4000-8000-000000000000`);
  expect(await page.locator('body').textContent()).toContain('does not lead to an invoice');
});

it('on a phone: fits the screen, a live countdown; test mode shows a test-mode notice instead of a QR or wallet link', async () => {
  const m = await registerCryptoMerchant(svc.url);
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 390, height: 844 });
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(err.message));
  page.on('response', (r) => r.status() >= 400 && problems.push(`${r.status()} ${r.url()}`));
  for (const currency of ['USDT_ERC20', 'USDC_BEP20', 'USDT_TRC20']) {
    const inv = (await request(svc.url).post('/api/v1/invoices').set('X-Api-Key', m.apiKey).send({ amount: 12.34, currency })).body.data;
    await page.goto(inv.paymentUrl);
    expect(await page.getAttribute('meta[name=viewport]', 'content')).toBe('width=device-width, initial-scale=1');
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    // The stylesheet applied: the fiat page's sheet.
    expect(await page.evaluate("getComputedStyle(document.querySelector('main')).maxWidth")).not.toBe('none');
    // No real network carries a sandbox invoice: nothing a wallet could act on (the live link is checked on the devnet: page.devnet.test.ts).
    expect(await page.getByTestId('test-mode-notice').isVisible()).toBe(true);
    expect(await page.locator('[data-testid=qr], [data-testid=open-wallet]').count()).toBe(0);
    expect(await page.content()).not.toContain('ethereum:');
    expect(await page.getByTestId('due').textContent()).toBe('12.34');
    const first = await page.getByTestId('countdown').textContent();
    expect(first).toMatch(/^(59:\d\d|1:00:00)$/);
    await eventually(async () => expect(await page.getByTestId('countdown').textContent()).not.toBe(first), 3000);
  }
  expect(problems).toEqual([]);
  await page.close();
}, 60_000);

it('the payment URI: an EIP-681 token transfer of the configured token, the amount in its base units', () => {
  const to = '0x8C8d35429F74ec245F8Ef2f4Fd1e551cFF97d650';
  const token = { chainId: 31337, contract: '0x5FbDB2315678afecb367f032d93F642f64180aa3', decimals: 18 };
  expect(paymentUri(token, to, money('5.75'))).toBe(`ethereum:${token.contract}@31337/transfer?address=${to}&uint256=5750000000000000000`);
  expect(paymentUri({ ...token, chainId: 1, decimals: 6 }, to, money('0.000001'))).toBe(`ethereum:${token.contract}@1/transfer?address=${to}&uint256=1`);
  // A token coarser than the ledger: rounded up, so the payment still covers the amount.
  expect(paymentUri({ ...token, decimals: 2 }, to, money('1.001'))).toBe(`ethereum:${token.contract}@31337/transfer?address=${to}&uint256=101`);
});
