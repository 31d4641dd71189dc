/**
 * The package as a merchant gets it, by its README's install steps: built (`pnpm build
 * webhook-receiver`), packed (`pnpm pack`, so only what `files` publishes, and `npm pack` the
 * same), installed with `npm install <tarball>` into a plain Node project beside express, and
 * the README's express example run there with `node` as-is, signed by the platform's own signer.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { webhookHeaders } from '@pay/webhooks';
import { installPackedLibrary, readmeCodeBlock, typeCheckIn, type PackedInstall } from '@pay/testing';

const PACKAGE = path.resolve(__dirname, '..');
const EXAMPLE = path.join(PACKAGE, 'examples', 'express.js');
const SECRET = 'whsec_example_secret';
const PUBLISHED = ['./CHANGELOG.md', './README.md', './dist/index.d.mts', './dist/index.d.ts', './dist/index.js', './dist/index.mjs', './package.json'];
const filesIn = (dir: string) => execFileSync('find', ['.', '-type', 'f'], { cwd: dir, encoding: 'utf8' }).trim().split('\n').sort();

it('the README shows examples/express.js verbatim', () => {
  expect(readmeCodeBlock(path.join(PACKAGE, 'README.md'), 'Express', 'js')).toBe(readFileSync(EXAMPLE, 'utf8'));
});

describe('installed from the packed build into a plain Node project', () => {
  let merchant: string;
  let server: ChildProcess;
  let url: string;
  let output = '';
  let packed: PackedInstall;
  /** Told of every chunk the example prints (see `printed`). */
  const listeners = new Set<() => void>();

  beforeAll(async () => {
    packed = await installPackedLibrary(PACKAGE, ['express']);
    merchant = packed.project;
    // The README's code, byte for byte (the test above), as the merchant's server.js.
    cpSync(EXAMPLE, path.join(merchant, 'server.js'));

    server = spawn(process.execPath, ['server.js'], {
      cwd: merchant,
      env: { PATH: process.env.PATH, WEBHOOK_SECRET: SECRET, PORT: '0', HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the example did not start: ${output}`)), 15_000);
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        for (const listener of listeners) listener();
        const m = /listening on 127\.0\.0\.1 port (\d+)/.exec(output);
        if (m) {
          clearTimeout(timer);
          resolve(`http://127.0.0.1:${m[1]}/webhooks`);
        }
      };
      server.stdout!.on('data', onData);
      server.stderr!.on('data', onData);
      server.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the example exited (${code}): ${output}`));
      });
    });
  }, 180_000);

  afterAll(async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((r) => server.once('exit', r));
      server.kill();
      await exited;
    }
    packed?.remove();
  });

  it('publishes dist/ only, with no runtime dependency', () => {
    const manifest = JSON.parse(readFileSync(path.join(merchant, 'node_modules/@pay/webhook-receiver/package.json'), 'utf8'));
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.peerDependencies).toBeUndefined();
    const files = filesIn(path.join(merchant, 'node_modules/@pay/webhook-receiver'));
    expect(files).toEqual(PUBLISHED);
    expect(manifest.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(readFileSync(path.join(merchant, 'node_modules/@pay/webhook-receiver/CHANGELOG.md'), 'utf8')).toContain(`## ${manifest.version}\n`);
  });

  const post = async (body: string, headers: Record<string, string>) => {
    const res = await fetch(url, { method: 'POST', headers, body });
    return { status: res.status, text: await res.text() };
  };
  /** The console's invoice.paid as invoicing's document shows it (its example body), in the mode asked. */
  const paidExample = JSON.parse(readFileSync(path.resolve(PACKAGE, '..', '..', 'docs', 'openapi', 'invoicing.json'), 'utf8')).webhooks['invoice.paid'].post.requestBody.content['application/json'].example;
  const invoicePaid = (livemode = true) => JSON.stringify({ ...paidExample, timestamp: Date.now(), livemode, invoice: { ...paidExample.invoice, livemode } });
  const signed = (body: string, over: { timestamp?: number; deliveryId?: string } = {}) =>
    webhookHeaders({ secret: SECRET, deliveryId: over.deliveryId ?? randomUUID(), event: JSON.parse(body).event, timestamp: over.timestamp ?? Date.now(), body });
  /**
   * Resolves once the example's output (from `from` on) matches: the example logs before it
   * answers, but its output reaches this process through a pipe, possibly after the answer.
   * The example handles requests in order, so a probe's line also means every earlier line is in.
   */
  const printed = (pattern: RegExp, from = 0) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!pattern.test(output.slice(from))) return;
        listeners.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`the example did not print ${pattern}: ${output.slice(from)}`));
      }, 10_000);
      listeners.add(check);
      check();
    });
  /** A delivery the example logs, sent last: once its line is printed, so is everything before it. */
  const probe = async () => {
    const id = randomUUID();
    const body = JSON.stringify({ event: 'withdrawal.failed', timestamp: Date.now(), livemode: true, withdrawal: { id, failureReason: 'probe' } });
    expect((await post(body, signed(body))).status).toBe(200);
    await printed(new RegExp(`withdrawal ${id} failed: probe`));
  };

  it('answers 200 to a signed event and acts on it once, however often it is delivered', async () => {
    const body = invoicePaid();
    const deliveryId = randomUUID();
    expect(await post(body, signed(body, { deliveryId }))).toEqual({ status: 200, text: 'OK' });
    // A retry: the same delivery, signed again a minute later.
    expect((await post(body, signed(body, { deliveryId, timestamp: Date.now() + 60_000 }))).status).toBe(200);
    await probe();
    expect(output.match(/invoice 00000000-0000-4000-8000-000000000000 paid: 1500\.5/g)).toHaveLength(1);
  });

  it('answers 400 INVALID_SIGNATURE to a tampered body, and does not act on it', async () => {
    const body = invoicePaid();
    const headers = signed(body);
    const before = output;
    expect(await post(body.replace('1500.5', '15000.5'), headers)).toEqual({ status: 400, text: JSON.stringify({ error: 'INVALID_SIGNATURE' }) });
    expect(await post(body, { ...headers, 'X-SVC-Timestamp': String(Date.now() - 1000) })).toEqual({ status: 400, text: JSON.stringify({ error: 'INVALID_SIGNATURE' }) });
    await printed(/webhook refused: INVALID_SIGNATURE[\s\S]*webhook refused: INVALID_SIGNATURE/, before.length);
    await probe();
    expect(output.slice(before.length)).not.toMatch(/paid:/);
  });

  it('answers 400 TIMESTAMP_OUT_OF_WINDOW to a correctly signed event more than 5 minutes old (or ahead)', async () => {
    const body = invoicePaid();
    expect(await post(body, signed(body, { timestamp: Date.now() - 5 * 60_000 - 5_000 }))).toEqual({ status: 400, text: JSON.stringify({ error: 'TIMESTAMP_OUT_OF_WINDOW' }) });
    expect(await post(body, signed(body, { timestamp: Date.now() + 5 * 60_000 + 5_000 }))).toEqual({ status: 400, text: JSON.stringify({ error: 'TIMESTAMP_OUT_OF_WINDOW' }) });
    // 4 minutes late is still within the window.
    expect((await post(body, signed(body, { timestamp: Date.now() - 4 * 60_000 }))).status).toBe(200);
  });

  it('answers 400 TEST_MODE_EVENT to a correctly signed test-mode event, and does not act on it (ACCEPT_TEST_EVENTS unset)', async () => {
    const before = output;
    const body = invoicePaid(false);
    expect(await post(body, signed(body))).toEqual({ status: 400, text: JSON.stringify({ error: 'TEST_MODE_EVENT' }) });
    await printed(/webhook refused: TEST_MODE_EVENT/, before.length);
    await probe();
    expect(output.slice(before.length)).not.toMatch(/paid:/);
  });

  it('answers 400 MISSING_HEADER to an unsigned request', async () => {
    expect(await post(invoicePaid(), { 'Content-Type': 'application/json' })).toEqual({ status: 400, text: JSON.stringify({ error: 'MISSING_HEADER' }) });
  });

  it('handles a crypto event signed with the HMAC secret the same way', async () => {
    const body = JSON.stringify({ event: 'withdrawal.failed', timestamp: Date.now(), livemode: true, withdrawal: { id: 'w-1', failureReason: 'Hot wallet balance too low' } });
    expect((await post(body, signed(body))).status).toBe(200);
    await printed(/withdrawal w-1 failed: Hot wallet balance too low/);
  });

  it('loads as ESM too, and its types resolve for CommonJS and ESM TypeScript projects', async () => {
    const script = `import { verifyWebhook, WEBHOOK_TOLERANCE_MS } from '@pay/webhook-receiver';
      import { createHmac } from 'node:crypto';
      const body = '{"event":"kyc.passed","timestamp":1,"livemode":true}', t = String(Date.now());
      const sig = createHmac('sha256', 's').update(t + body).digest('hex');
      const v = verifyWebhook(body, { 'x-svc-signature': sig, 'x-svc-timestamp': t, 'x-svc-delivery': 'd' }, 's');
      console.log(v.event.event, WEBHOOK_TOLERANCE_MS);`;
    expect(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: merchant, encoding: 'utf8' })).toBe('kyc.passed 300000\n');

    const use = (imp: string) => `${imp}
const v = verifyWebhook('{}', {}, 's');
if (v.event.event === 'withdrawal.failed') { const reason: string | null = v.event.withdrawal.failureReason; void reason; }
const e: WebhookEventOf<'invoice.refunded'> | undefined = undefined; void e;
// @ts-expect-error: a typo in an event kind is caught, so the declarations were really read
const wrong: WebhookEventOf<'invoice.payed'> | undefined = undefined; void wrong;
export const isVerificationError = (err: unknown) => err instanceof WebhookVerificationError;
`;
    writeFileSync(path.join(merchant, 'esm.mts'), use("import { verifyWebhook, WebhookVerificationError, type WebhookEventOf } from '@pay/webhook-receiver';"));
    writeFileSync(
      path.join(merchant, 'cjs.cts'),
      use("import receiver = require('@pay/webhook-receiver');\nimport verifyWebhook = receiver.verifyWebhook;\nimport WebhookVerificationError = receiver.WebhookVerificationError;\ntype WebhookEventOf<K extends receiver.WebhookEvent['event']> = receiver.WebhookEventOf<K>;"),
    );
    const { diagnostics, declarations } = await typeCheckIn(merchant, ['esm.mts', 'cjs.cts'], '@pay/webhook-receiver');
    expect(diagnostics).toEqual([]);
    expect(declarations).toEqual(['node_modules/@pay/webhook-receiver/dist/index.d.mts', 'node_modules/@pay/webhook-receiver/dist/index.d.ts']);
  });
});

describe('packed with npm pack instead of pnpm pack', () => {
  let packed: PackedInstall;
  beforeAll(async () => {
    packed = await installPackedLibrary(PACKAGE, [], 'npm');
  }, 180_000);
  afterAll(() => packed?.remove());

  it('publishes the same files, and loads with require and import in a plain Node project', () => {
    expect(filesIn(packed.installed)).toEqual(PUBLISHED);
    const manifest = JSON.parse(readFileSync(path.join(packed.installed, 'package.json'), 'utf8'));
    expect({ main: manifest.main, types: manifest.types }).toEqual({ main: './dist/index.js', types: './dist/index.d.ts' });
    const cjs = "const r = require('@pay/webhook-receiver'); console.log(typeof r.verifyWebhook, r.WEBHOOK_TOLERANCE_MS)";
    expect(execFileSync(process.execPath, ['-e', cjs], { cwd: packed.project, encoding: 'utf8' })).toBe('function 300000\n');
    const esm = "import { verifyWebhook, WEBHOOK_TOLERANCE_MS } from '@pay/webhook-receiver'; console.log(typeof verifyWebhook, WEBHOOK_TOLERANCE_MS)";
    expect(execFileSync(process.execPath, ['--input-type=module', '-e', esm], { cwd: packed.project, encoding: 'utf8' })).toBe('function 300000\n');
  });
});
