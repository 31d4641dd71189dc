import request from 'supertest';
import { eventually, openBrowser, registerCryptoMerchant, spawnBuiltService, type RunningService, BUILT_START_MS, decodeQrDataUri } from '@pay/testing';
import { createCryptoDatabase } from '../../db';
import { startDevnetNode, openDevnet, type Devnet, type DevnetNode } from '../../chains/evm/devnet';
import { forgetWatcher } from '../../../test/chains/store';

// The payment page of the built crypto service, as scripts/stack.sh runs it, with live
// USDT_ERC20 on a local devnet (its own chain id, its own token contract, 18 decimals): the QR
// a payer scans must name that token on that chain, for what is still due.
const CHAIN_ID = 31338;
const REQUIRED = 2;
let node: DevnetNode;
let devnet: Devnet;
let svc: RunningService;
let browser: Awaited<ReturnType<typeof openBrowser>>;

beforeAll(async () => {
  node = await startDevnetNode({ chainId: CHAIN_ID });
  [devnet, browser] = await Promise.all([openDevnet(node.url, { stop: node.stop }), openBrowser()]);
  // The Ethereum rows of the watcher's tables belong to the devnet of whichever file runs: start clean.
  const { db, close } = createCryptoDatabase(process.env.DATABASE_URL!, 1);
  await db.$transaction((tx) => forgetWatcher(tx, 'Ethereum'));
  await close();
  svc = await spawnBuiltService('crypto', {
    EVM_RPC_URL_ETHEREUM: devnet.url,
    USDT_CONTRACT_ETHEREUM: devnet.token,
    DEPOSIT_XPUB: devnet.xpub,
    CONFIRMATIONS_ETHEREUM: String(REQUIRED),
    EVM_WATCH_INTERVAL_MS: '200',
    TRACKER_INTERVAL_MS: '200',
  });
}, BUILT_START_MS);

afterAll(async () => {
  await browser?.close();
  await svc?.stop();
  await devnet?.stop();
});

async function qrOf(page: Awaited<ReturnType<typeof browser.context.newPage>>): Promise<string | null> {
  const shot = await page.getByTestId('qr').screenshot();
  return decodeQrDataUri(`data:image/png;base64,${shot.toString('base64')}`);
}

/** chain id, contract, recipient and base units of an EIP-681 token transfer request. */
function eip681(uri: string) {
  const m = /^ethereum:(0x[0-9a-fA-F]{40})@(\d+)\/transfer\?address=(0x[0-9a-fA-F]{40})&uint256=(\d+)$/.exec(uri);
  if (!m) throw new Error(`not an EIP-681 token transfer: ${uri}`);
  return { contract: m[1]!, chainId: Number(m[2]), address: m[3]!, units: BigInt(m[4]!) };
}

it('finding 8: a live invoice asks for the configured token on the configured chain; a test-mode one shows a test-mode notice and no link to any network (headless Chromium)', async () => {
  const m = await registerCryptoMerchant(svc.url);
  const live = (await request(svc.url).post('/api/v1/invoices').set('X-Api-Key', m.liveKey).send({ amount: 12.34, currency: 'USDT_ERC20' })).body.data;
  const page = await browser.context.newPage();
  await page.goto(live.paymentUrl);
  const uri = eip681((await qrOf(page))!);
  expect(uri).toEqual({ contract: devnet.token, chainId: CHAIN_ID, address: live.address, units: 12_340_000_000_000_000_000n });
  expect(await page.getByTestId('open-wallet').getAttribute('href')).toBe(`ethereum:${devnet.token}@${CHAIN_ID}/transfer?address=${live.address}&uint256=12340000000000000000`);
  expect(await page.locator('[data-testid=test-mode]').count()).toBe(0);

  // Test mode: nothing a wallet could act on, and a notice that says why.
  const sandbox = (await request(svc.url).post('/api/v1/invoices').set('X-Api-Key', m.apiKey).send({ amount: 12.34, currency: 'USDT_ERC20' })).body.data;
  await page.goto(sandbox.paymentUrl);
  expect(await page.getByTestId('test-mode').textContent()).toMatch(/test mode/i);
  expect(await page.getByTestId('test-mode-notice').textContent()).toMatch(/no real network/i);
  expect(await page.locator('[data-testid=qr]').count()).toBe(0);
  expect(await page.locator('[data-testid=open-wallet]').count()).toBe(0);
  expect(await page.content()).not.toContain('ethereum:');
  await page.close();
}, 60_000);

it('finding 9: after a partial payment the page says what was received and what is due, and the QR asks for the remainder only (headless Chromium)', async () => {
  const m = await registerCryptoMerchant(svc.url);
  const inv = (await request(svc.url).post('/api/v1/invoices').set('X-Api-Key', m.liveKey).send({ amount: 10, currency: 'USDT_ERC20' })).body.data;
  const page = await browser.context.newPage();
  await devnet.transfer(devnet.payer, inv.address, '4.25');
  await devnet.mine(REQUIRED);
  await eventually(async () => {
    await page.goto(inv.paymentUrl);
    expect(await page.getByTestId('status').textContent()).toBe('Partially paid');
  }, 30_000);
  expect(await page.locator('body').textContent()).toContain('Send exactly 5.75 Tether USD');
  expect(await page.getByTestId('received').textContent()).toBe('4.25');
  expect(await page.getByTestId('due').textContent()).toBe('5.75');
  expect(await page.locator('[data-testid=awaiting]').count()).toBe(0);
  expect(eip681((await qrOf(page))!)).toEqual({ contract: devnet.token, chainId: CHAIN_ID, address: inv.address, units: 5_750_000_000_000_000_000n });

  // A transfer seen and not yet confirmed is on its way: it is not asked for again either.
  await devnet.transfer(devnet.payer, inv.address, '2');
  await eventually(async () => {
    await page.goto(inv.paymentUrl);
    expect(await page.getByTestId('awaiting').textContent()).toBe('2');
  }, 30_000);
  expect(await page.getByTestId('received').textContent()).toBe('4.25');
  expect(await page.getByTestId('due').textContent()).toBe('3.75');
  const uri = eip681((await qrOf(page))!);
  expect(uri).toEqual({ contract: devnet.token, chainId: CHAIN_ID, address: inv.address, units: 3_750_000_000_000_000_000n });

  // The payer follows it: nothing more is asked, and the invoice is paid to the unit.
  await devnet.transferUnits(devnet.payer, inv.address, uri.units);
  await devnet.mine(REQUIRED);
  await eventually(async () => {
    await page.goto(inv.paymentUrl);
    expect(await page.getByTestId('status').textContent()).toBe('Paid');
  }, 30_000);
  expect(await page.getByTestId('received').textContent()).toBe('10');
  expect(await page.locator('[data-testid=qr]').count()).toBe(0);
  const got = (await request(svc.url).get(`/api/v1/invoices/${inv.id}`).set('X-Api-Key', m.liveKey)).body.data;
  expect(got).toMatchObject({ status: 'Paid', amountReceived: 10 });
  await page.close();
}, 90_000);
