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
    expect(stdout).toMatch(/^refused: 422 \w+ \S+$/m);
  }, 120_000);

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
  return invoice.status;
}
export const isPayError = (err: unknown): boolean => err instanceof pay.PayApiError;
`,
    );
    const { diagnostics, declarations } = await typeCheckIn(packed.project, ['session.mts', 'cjs.cts'], '@pay/client', ['node']);
    expect(diagnostics).toEqual([]);
    expect(declarations).toEqual(['node_modules/@pay/client/dist/index.d.mts', 'node_modules/@pay/client/dist/index.d.ts']);
  }, 60_000);
});
