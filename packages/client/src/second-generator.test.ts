/**
 * The documents are not tuned to one tool: a client generated from them by a second,
 * independent generator (@hey-api/openapi-ts, with its fetch client; packages/client's own
 * types come from openapi-typescript) type-checks a merchant's small program that signs its
 * requests as the `signature` scheme says and uses the named models (Withdrawal, Invoice,
 * ErrorCode, InvoiceStatus). `@ts-expect-error` lines prove the types are real: a misspelt
 * field or an unknown currency must be refused, or the check fails. Nothing is fetched.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DOCUMENTED_APIS, documentPath, type DocumentedApi } from '../../../scripts/openapi';

const ROOT = path.join(__dirname, '..', '..', '..');
const bin = (pkgDir: string, name: string) => path.join(pkgDir, 'node_modules', '.bin', name);

const PROGRAM = `import { createHmac } from 'node:crypto';
import { client } from './crypto/client.gen';
import { createWithdrawal, getInvoice } from './crypto/sdk.gen';
import type { ErrorCode, Invoice, Withdrawal } from './crypto/types.gen';
import { client as invoicing } from './invoicing/client.gen';
import { createInvoice } from './invoicing/sdk.gen';
import type { InvoiceStatus } from './invoicing/types.gen';

// Crypto style: X-Timestamp in Unix seconds, X-Signature = Base64 HMAC-SHA256 of {timestamp}.{METHOD}.{path}{rawBody}.
client.setConfig({ baseUrl: 'http://127.0.0.1:3002', headers: { 'X-Api-Key': 'pk_test_example' } });
client.interceptors.request.use(async (request) => {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const body = request.body ? await request.clone().text() : '';
  const signature = createHmac('sha256', 'hs_example').update(\`\${timestamp}.\${request.method}.\${new URL(request.url).pathname}\${body}\`).digest('base64');
  request.headers.set('X-Timestamp', timestamp);
  request.headers.set('X-Signature', signature);
  return request;
});
invoicing.setConfig({ baseUrl: 'http://127.0.0.1:3001' });

export async function payout(): Promise<Withdrawal['status'] | ErrorCode> {
  const { data, error } = await createWithdrawal({ body: { toAddress: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7', amount: 10, currency: 'USDT_TRC20' } });
  if (error) return error.error.code;
  return data.data.status;
}

export async function invoiceAddress(invoiceId: string): Promise<Invoice['address'] | undefined> {
  const { data } = await getInvoice({ path: { invoiceId } });
  return data?.data.address;
}

export async function fiat(): Promise<InvoiceStatus | undefined> {
  const { data } = await createInvoice({ body: { amount: 1490.9, description: 'Warm blanket' } });
  return data?.invoice.status;
}

export async function typo(): Promise<unknown> {
  const { data } = await createWithdrawal({ body: { toAddress: 'x', amount: 1, currency: 'USDT_TRC20' } });
  // @ts-expect-error: a misspelt field of the named model is refused (the types are not \`any\`)
  return data?.data.stauts;
}

export const unknownCurrency = () =>
  // @ts-expect-error: a currency the document does not list is refused
  createWithdrawal({ body: { toAddress: 'x', amount: 1, currency: 'DOGE' } });
`;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'pay-second-generator-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('@hey-api/openapi-ts generates a client from each document, and a program against both type-checks', () => {
  for (const service of Object.keys(DOCUMENTED_APIS) as DocumentedApi[]) {
    execFileSync(bin(path.join(__dirname, '..'), 'openapi-ts'), ['-i', documentPath(service), '-o', path.join(dir, service), '-c', '@hey-api/client-fetch'], { stdio: 'pipe', timeout: 120_000 });
  }
  writeFileSync(path.join(dir, 'program.ts'), PROGRAM);
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'preserve', moduleResolution: 'bundler', skipLibCheck: true, lib: ['es2023', 'dom'], types: ['node'], typeRoots: [path.join(ROOT, 'node_modules', '@types')] },
      include: ['**/*.ts'],
    }),
  );
  const tsc = (): string => {
    try {
      execFileSync(bin(ROOT, 'tsc'), ['-p', dir], { encoding: 'utf8', stdio: 'pipe', timeout: 180_000 });
      return '';
    } catch (err) {
      return String((err as { stdout?: string }).stdout ?? err);
    }
  };
  expect(tsc()).toBe('');
  // The check can fail: the same program with the misspelt field spelt right leaves an unused @ts-expect-error.
  writeFileSync(path.join(dir, 'program.ts'), PROGRAM.replace('data?.data.stauts', 'data?.data.status'));
  expect(tsc()).toMatch(/program\.ts\(\d+,\d+\): error TS2578: Unused '@ts-expect-error' directive/);
}, 400_000);
