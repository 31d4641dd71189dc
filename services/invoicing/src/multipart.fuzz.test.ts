/**
 * Multipart abuse on every upload of the invoicing service (pnpm test:fuzz; the schema fuzzer
 * leaves uploads to this file): the signed receipt upload, the v1 CSV batch, and the two public
 * pages that take files (a receipt on the payment page, the KYC documents). Every hostile body
 * is refused with a 4xx in the route's own shape (JSON for the APIs, HTML for the pages), and
 * nothing is written. Counts go to artefacts/fuzz-multipart.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { signedHeaders } from '@pay/auth';
import { multipartAbuses, WriteSnapshot } from '@pay/testing';
import { invoicingAppForSuite, newMerchant, v2Request, type TestMerchant } from '../test/test-support';

const ctx = invoicingAppForSuite();
let snapshot: WriteSnapshot;
let m: TestMerchant;

interface UploadRoute {
  name: string;
  path: string;
  fileField: string;
  /** The caller's credentials for this route, over the exact bytes sent. */
  auth(path: string, body: Buffer): Record<string, string>;
  page: boolean;
}

const routes: UploadRoute[] = [];

beforeAll(async () => {
  snapshot = new WriteSnapshot(process.env.DATABASE_URL!, ['invoicing', 'accounts', 'webhooks', 'queue', 'kit']);
  m = await newMerchant(ctx.deps);
  const invoice = await v2Request(ctx.app, m, 'post', '/api/v2/invoices', { amount: 10, receiptRequired: true });
  const session = await v2Request(ctx.app, m, 'post', '/api/v2/kyc/sessions', {});
  const invoiceId = invoice.body.invoice.id as string;
  const pageId = session.body.session.sessionId as string;
  const signed = (path: string, body: Buffer) => ({ 'x-api-key': m.apiKey, ...signedHeaders('v2', m.hmacSecret, { method: 'POST', path, body }) });
  routes.push(
    { name: 'POST /api/v2/invoices/{id}/receipts', path: `/api/v2/invoices/${invoiceId}/receipts`, fileField: 'file', auth: signed, page: false },
    { name: 'POST /api/v1/batch/invoices', path: '/api/v1/batch/invoices', fileField: 'file', auth: () => ({ 'x-api-key': m.apiKey }), page: false },
    { name: 'POST /pay/{id}/receipt', path: `/pay/${invoiceId}/receipt`, fileField: 'file', auth: () => ({}), page: true },
    { name: 'POST /kyc/{sessionId}', path: `/kyc/${pageId}`, fileField: 'selfie', auth: () => ({}), page: true },
  );
});
afterAll(() => snapshot?.close());

it('refuses every multipart abuse on every upload with a 4xx in the route’s shape, and writes nothing', async () => {
  const before = await snapshot.take();
  const report: Record<string, Record<string, number>> = {};
  const failures: string[] = [];
  for (const route of routes) {
    for (const abuse of multipartAbuses(route.fileField)) {
      let req = request(ctx.app).post(route.path);
      for (const [k, v] of Object.entries({ ...abuse.headers, ...route.auth(route.path, abuse.body) })) req = req.set(k, v);
      const res = await req.send(abuse.body);
      (report[route.name] ??= {})[abuse.name] = res.status;
      const shaped = route.page ? /^text\/html/.test(res.headers['content-type'] ?? '') : typeof res.body?.error?.code === 'string';
      if (res.status < 400 || res.status >= 500 || !shaped) failures.push(`${route.name}, ${abuse.name}: ${res.status} ${res.text.slice(0, 200)}`);
    }
  }
  mkdirSync('artefacts', { recursive: true });
  writeFileSync(join('artefacts', 'fuzz-multipart.json'), `${JSON.stringify(report, null, 2)}\n`);
  expect(failures).toEqual([]);
  expect(WriteSnapshot.changed(before, await snapshot.take())).toEqual([]);
  expect(Object.values(report).flatMap(Object.keys)).toHaveLength(routes.length * 10);
}, 120_000);
