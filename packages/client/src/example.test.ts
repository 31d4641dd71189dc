/**
 * The SDK as a merchant gets it, by packages/client/README.md's install steps: built (`pnpm
 * build client`: types generated from the committed OpenAPI documents), packed (`pnpm pack`,
 * only what `files` publishes), installed alone with `npm install <tarball>` into a plain Node project, and the README's "A first session in TypeScript" run there with plain
 * `node` against the stack as scripts/stack.sh starts it; then type-checked as TypeScript
 * against the packed declarations.
 */
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { installPackedLibrary, readmeCodeBlock, spawnBuiltService, typeCheckIn, type PackedInstall, type RunningService, BUILT_START_MS } from '@pay/testing';
import { verifyWebhook } from '../../webhook-receiver/src/index';

const PACKAGE = path.resolve(__dirname, '..');
const EXAMPLE = path.join(PACKAGE, 'examples', 'first-session.mjs');
const README = path.join(PACKAGE, '..', '..', 'README.md');

it('the README shows examples/first-session.mjs verbatim', () => {
  expect(readmeCodeBlock(README, 'A first session in TypeScript', 'ts')).toBe(readFileSync(EXAMPLE, 'utf8'));
});

describe('installed alone from the packed build into a plain Node project', () => {
  let packed: PackedInstall;
  let crypto: RunningService;
  let invoicing: RunningService;

  beforeAll(async () => {
    [packed, crypto, invoicing] = await Promise.all([
      installPackedLibrary(PACKAGE, ['@types/node']),
      // Sandbox blocks every 100 ms: the session's transfer confirms in seconds, not 20.
      spawnBuiltService('crypto', { SANDBOX_BLOCK_MS: '100' }),
      spawnBuiltService('invoicing'),
    ]);
  }, BUILT_START_MS);
  afterAll(async () => {
    packed?.remove();
    await Promise.all([crypto?.stop(), invoicing?.stop()]);
  });

  it('publishes dist/ only, with no runtime dependency', () => {
    const manifest = JSON.parse(readFileSync(path.join(packed.installed, 'package.json'), 'utf8'));
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.peerDependencies).toBeUndefined();
    expect(manifest.files).toEqual(['dist', 'CHANGELOG.md']);
    const files = execFileSync('find', ['.', '-type', 'f'], { cwd: packed.installed, encoding: 'utf8' }).trim().split('\n').sort();
    expect(files).toEqual(['./CHANGELOG.md', './README.md', './dist/index.d.mts', './dist/index.d.ts', './dist/index.js', './dist/index.mjs', './package.json']);
    expect(readFileSync(path.join(packed.installed, 'CHANGELOG.md'), 'utf8')).toContain(`## ${manifest.version}\n`);
  });

  it('the root README gives the same steps as the package README, with the version packed', () => {
    const { version } = JSON.parse(readFileSync(path.join(packed.installed, 'package.json'), 'utf8'));
    const root = readFileSync(README, 'utf8');
    expect(root).toContain('`pnpm build`');
    expect(root).toContain('`cd packages/client && pnpm pack`');
    expect(root).toContain(`pay-client-${version}.tgz`);
  });

  it("runs the README's session with plain node against the stack, every answer a success but the refusal it shows", async () => {
    cpSync(EXAMPLE, path.join(packed.project, 'session.mjs'));
    const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ['session.mjs'],
        { cwd: packed.project, env: { PATH: process.env.PATH!, INVOICING_URL: invoicing.url, CRYPTO_URL: crypto.url }, timeout: 90_000 },
        (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toMatch(new RegExp(`^payment page: ${invoicing.url}/pay/[0-9a-f-]{36}$`, 'm'));
    expect(stdout).toMatch(/^paid: [0-9a-f-]{36} 1490\.9 RUB$/m);
    expect(stdout).toMatch(/^customers: 1 paid invoices: \d+$/m);
    expect(stdout).toMatch(/^batch: completed$/m);
    expect(stdout).toMatch(/^withdrawal: [0-9a-f-]{36} Pending$/m);
    expect(stdout).toMatch(/^refused: 422 REFUND_EXCEEDS_PAID \S+$/m);
    expect(Number(/^answers: (\d+)$/m.exec(stdout)?.[1])).toBeGreaterThanOrEqual(15); // one per call of `pay` in the session, more while the balance is awaited
  }, 120_000);

  it('the packed build names its version in the User-Agent, emits request and response events, pages into an array and signs test webhooks', async () => {
    // A loopback "API" answering a v2 list of 5 invoices, 2 a page.
    writeFileSync(
      path.join(packed.project, 'surface.mjs'),
      `import { createServer } from 'node:http';
import { PayClient } from '@pay/client';
const agents = [];
const server = createServer((req, res) => {
  agents.push(req.headers['user-agent']);
  const q = new URL(req.url, 'http://x').searchParams;
  const limit = Number(q.get('limit') ?? 2), offset = Number(q.get('offset') ?? 0);
  res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req-' + offset });
  res.end(JSON.stringify({ success: true, data: [0, 1, 2, 3, 4].slice(offset, offset + limit).map((i) => ({ id: 'i' + i })), pagination: { total: 5, limit, offset, pages: 3 } }));
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const pay = new PayClient({ apiKey: 'sk_test_packed', hmacSecret: 'hs_packed', invoicingUrl: 'http://127.0.0.1:' + server.address().port });
const events = [];
pay.on('request', (e) => events.push(['request', e.method, e.path])).on('response', (e) => events.push(['response', e.status, e.requestId, typeof e.elapsed]));
const items = await pay.invoicing.v2.invoices.list.each({ query: { limit: 2 } }).toArray({ limit: 3 });
const body = JSON.stringify({ event: 'invoice.paid', livemode: true, invoice: { id: 'inv-1' } });
const headers = pay.webhooks.generateTestHeader(body, 'whsec_packed');
server.close();
console.log(JSON.stringify({ agents, events, items: items.map((i) => i.id), body, headers }));
`,
    );
    const out = execFileSync(process.execPath, ['surface.mjs'], { cwd: packed.project, env: { PATH: process.env.PATH! }, encoding: 'utf8' });
    const { agents, events, items, body, headers } = JSON.parse(out);
    const { version } = JSON.parse(readFileSync(path.join(packed.installed, 'package.json'), 'utf8'));
    expect(agents).toEqual([`pay-client-node/${version} node/${process.version}`, `pay-client-node/${version} node/${process.version}`]);
    expect(items).toEqual(['i0', 'i1', 'i2']);
    expect(events).toEqual([
      ['request', 'GET', '/api/v2/invoices?limit=2'],
      ['response', 200, 'req-0', 'number'],
      ['request', 'GET', '/api/v2/invoices?limit=2&offset=2'],
      ['response', 200, 'req-2', 'number'],
    ]);
    expect(verifyWebhook(body, headers, 'whsec_packed').event).toEqual(JSON.parse(body));
  }, 60_000);

  it('type-checks as TypeScript against the packed declarations, ESM and CommonJS, and catches a wrong field', async () => {
    cpSync(EXAMPLE, path.join(packed.project, 'session.mts'));
    writeFileSync(
      path.join(packed.project, 'cjs.cts'),
      `import pay = require('@pay/client');
const client = new pay.PayClient({ apiKey: 'k', hmacSecret: 's', invoicingUrl: 'http://127.0.0.1:3001' });
export async function f(): Promise<string> {
  const { invoice } = await client.invoicing.createInvoice({ body: { amount: 10, description: 'x' }, idempotencyKey: 'order-1' });
  // @ts-expect-error: amount is a number, so the generated types were really read
  await client.invoicing.createInvoice({ body: { amount: '10', description: 'x' } });
  // @ts-expect-error: getInvoice needs its path parameter
  await client.invoicing.getInvoice();
  // @ts-expect-error: and so does its place in the namespaces
  await client.invoicing.v2.invoices.retrieve();
  return invoice.status;
}
export const isPayError = (err: unknown): boolean => err instanceof pay.PayApiError;
export function refusal(err: unknown): string {
  if (client.invoicing.v2.refunds.create.isError(err)) {
    // @ts-expect-error: a typo of REFUND_EXCEEDS_PAID fails the type check
    if (err.code === 'REFUND_EXCEDS_PAID') return 'never';
    return err.code;
  }
  return 'other';
}
export const hooks = (w: pay.Webhook, d: pay.WebhookDelivery): string[] => [w.id, d.attemptHistory[0]?.url ?? ''];
export const named = (i: pay.Invoice, c: pay.Customer, k: pay.KycSession, w: pay.Withdrawal, t: pay.Transaction, b: pay.Balances): string[] => [i.id, c.id, k.id, w.id, t.id, String(b.totalUsdValue)];
export const firstTen = (): Promise<pay.Customer[]> => client.invoicing.v2.customers.list.each().toArray({ limit: 10 });
client.on('response', (e: pay.ResponseEvent) => console.log(e.method, e.path, e.status, e.elapsed, e.requestId));
export const signed: string = client.webhooks.generateTestHeader('{}', 'whsec_x')['X-SVC-Signature'];
`,
    );
    const { diagnostics, declarations } = await typeCheckIn(packed.project, ['session.mts', 'cjs.cts'], '@pay/client', ['node']);
    expect(diagnostics).toEqual([]);
    expect(declarations).toEqual(['node_modules/@pay/client/dist/index.d.mts', 'node_modules/@pay/client/dist/index.d.ts']);
  }, 60_000);
});
