/**
 * Hostile input on every operation of the invoicing service (pnpm test:fuzz): every case is
 * answered below 500, refusals carry the error shape and write nothing, and no merchant or
 * mode reaches another's objects. Counts go to artefacts/fuzz-invoicing.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkCrossOwner, fuzzOperations, WriteSnapshot, type FuzzReport } from '@pay/testing';
import { invoicingAppForSuite, newMerchant, v2Request, type TestMerchant } from './test-support';
import { moscowDay, receiptPdf, uploadReceiptRequest } from './receipts/test-fixtures';

const RUNS = Number(process.env.FUZZ_RUNS ?? 40);
const ctx = invoicingAppForSuite();
let snapshot: WriteSnapshot;
let owner: TestMerchant;
const ownerIds: Record<string, string> = {};

beforeAll(async () => {
  snapshot = new WriteSnapshot(process.env.DATABASE_URL!, ['invoicing', 'accounts', 'webhooks', 'queue', 'kit']);
  owner = await newMerchant(ctx.deps);
  // An invoice paid by a customer: gives an invoice, a customer and a refundable payment.
  const inv = await v2Request(ctx.app, owner, 'post', '/api/v2/invoices', { amount: 500, customerEmail: 'fuzz@example.com' });
  expect(inv.status).toBe(201);
  ownerIds.invoiceId = inv.body.invoice.id;
  expect((await v2Request(ctx.app, owner, 'post', `/api/v2/sandbox/invoices/${ownerIds.invoiceId}/pay`, {})).status).toBe(200);
  const [customer] = await ctx.deps.db.$queryRawUnsafe<{ id: string }[]>(`SELECT id::text FROM invoicing.customers WHERE merchant_id = $1::uuid AND is_test`, owner.merchantId);
  ownerIds.customerId = customer!.id;
  const receipt = await uploadReceiptRequest(ctx.app, owner, ownerIds.invoiceId!, await receiptPdf({ amount: '500.00 RUB', date: moscowDay(0) }));
  expect(receipt.status).toBe(201);
  ownerIds.receiptId = receipt.body.receipt.id;
});
afterAll(() => snapshot?.close());

const operations = () => [...ctx.apis.v2.operations, ...ctx.apis.v1.operations, ...ctx.apis.pages.operations];

describe('invoicing under hostile input', () => {
  const report: Partial<FuzzReport> & { crossOwnerCalls?: number } = {};
  afterAll(() => {
    mkdirSync('artefacts', { recursive: true });
    writeFileSync(join('artefacts', 'fuzz-invoicing.json'), `${JSON.stringify(report, null, 2)}\n`);
  });

  it('answers every case of every operation below 500, and writes nothing when it refuses', async () => {
    Object.assign(
      report,
      await fuzzOperations({
        app: ctx.app,
        operations: operations(),
        signing: 'v2',
        caller: owner,
        realId: (_op, param) => ownerIds[param],
        snapshot,
        runsPerOperation: RUNS,
      }),
    );
    expect(report.serverErrors).toBe(0);
    expect(report.cases).toBeGreaterThanOrEqual(RUNS * 10);
  }, 300_000);

  it("never lets another merchant, or the owner's other mode, read or change an object", async () => {
    const stranger = await newMerchant(ctx.deps);
    report.crossOwnerCalls = await checkCrossOwner({
      app: ctx.app,
      operations: operations(),
      signing: 'v2',
      ownerIds,
      strangers: [
        { name: 'another merchant', caller: stranger },
        { name: "the owner's live key", caller: { apiKey: owner.liveKey, hmacSecret: owner.hmacSecret } },
      ],
      snapshot,
    });
    expect(report.crossOwnerCalls).toBeGreaterThanOrEqual(12);
  }, 120_000);
});
