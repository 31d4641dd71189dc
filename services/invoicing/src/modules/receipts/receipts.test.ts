import request from 'supertest';
import { Queue } from 'bullmq';
import { ManualClock } from '@pay/runtime';
import { eventually } from '@pay/testing';
import { Queues } from '@pay/queue';
import { signedHeaders } from '@pay/auth';
import { invoicingAppForSuite, newMerchant, v2Request, type TestMerchant } from '../../../test/test-support';
import { outboxRowsOfJob } from '@pay/queue/test';
import { backdateReceipt, countReceiptsOf, receiptColumns } from '../../../test/receipts/store';
import { checkReceipt } from './check';
import { reconcileReceipts, startReceiptWorker } from './worker';
import { ReceiptReaders } from './readers';
import { moscowDay, multipartBody, noisePng, receiptPdf, uploadReceiptRequest } from '../../../test/receipts/test-fixtures';

/** No background here: receipts stay PENDING until a test runs the check itself (the worker's own function). */
const MAX_BYTES = 200_000;
const ctx = invoicingAppForSuite({ env: { RECEIPT_MAX_BYTES: String(MAX_BYTES) } });
const readers = new ReceiptReaders({ rusTrainedData: '/usr/share/tesseract-ocr/5/tessdata/rus.traineddata' });
afterAll(() => readers.close());

let m: TestMerchant;
let other: TestMerchant;
beforeAll(async () => {
  m = await newMerchant(ctx.deps);
  other = await newMerchant(ctx.deps);
});

async function newInvoice(who: TestMerchant = m, amount = 500) {
  const res = await v2Request(ctx.app, who, 'post', '/api/v2/invoices', { amount });
  expect(res.status).toBe(201);
  return res.body.invoice.id as string;
}
const pdf = (amount = '500.00 RUB') => receiptPdf({ amount, date: `${moscowDay(0)} 12:00` });
const get = (who: TestMerchant, path: string) => v2Request(ctx.app, who, 'get', path);

describe('POST /api/v2/invoices/{id}/receipts', () => {
  it('answers 201 with the PENDING receipt, every field, the file stored under its sniffed type', async () => {
    const invoiceId = await newInvoice();
    const bytes = await pdf();
    const res = await uploadReceiptRequest(ctx.app, m, invoiceId, bytes, 'photo.png', 'image/png');
    expect(res.status).toBe(201);
    const r = res.body.receipt;
    expect(res.body.success).toBe(true);
    expect(Object.keys(r).sort()).toEqual(['createdAt', 'id', 'imageUrl', 'invoiceId', 'status', 'verificationDetails', 'verifiedAmount', 'verifiedAt']);
    expect(r).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      invoiceId,
      imageUrl: `${ctx.deps.config.PUBLIC_URL}/api/v2/receipts/${r.id}/file`,
      status: 'PENDING',
      verifiedAmount: null,
      verifiedAt: null,
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      verificationDetails: { extractedAmount: null, extractedDate: null, confidence: null, bank: null, paymentType: null },
    });
    const row = await receiptColumns(ctx.deps.db, r.id, ['content_type', 'size_bytes', 'source']);
    // Named photo.png and declared image/png: a PDF all the same, by its bytes.
    expect(row).toEqual({ content_type: 'application/pdf', size_bytes: bytes.length, source: 'api' });
    // The check job went to the outbox in the same transaction.
    expect(await outboxRowsOfJob(ctx.deps.db, r.id)).toEqual([{ queue: 'invoicing-receipt-checks', payload: { receiptId: r.id } }]);
  });

  it('answers a retry with the same Idempotency-Key and bytes with the first receipt, writing one', async () => {
    const invoiceId = await newInvoice();
    const form = multipartBody('file', 'r.pdf', 'application/pdf', await pdf());
    const send = () => uploadReceiptRequest(ctx.app, m, invoiceId, Buffer.alloc(0), '', '', { 'Idempotency-Key': `rcpt-${invoiceId}` }, form);
    const first = await send();
    const again = await send();
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.receipt.id).toBe(first.body.receipt.id);
    expect(await countReceiptsOf(ctx.deps.db, [invoiceId])).toBe(1);
  });

  it('refuses by content: HTML named .png is 400, over the size limit is 413, no file is 400', async () => {
    const invoiceId = await newInvoice();
    const html = await uploadReceiptRequest(ctx.app, m, invoiceId, Buffer.from('<html><script>alert(1)</script></html>'), 'x.png', 'image/png');
    expect(html.status).toBe(400);
    expect(html.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'file', message: 'must be one of: image/png, image/jpeg, application/pdf' }] });
    const big = await uploadReceiptRequest(ctx.app, m, invoiceId, Buffer.concat([noisePng(), Buffer.alloc(MAX_BYTES)]), 'big.png');
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    const path = `/api/v2/invoices/${invoiceId}/receipts`;
    const { body, contentType } = multipartBody('other', 'r.pdf', 'application/pdf', await pdf());
    const wrongField = await request(ctx.app)
      .post(path)
      .set('x-api-key', m.apiKey)
      .set('Content-Type', contentType)
      .set(signedHeaders('v2', m.hmacSecret, { method: 'POST', path, body }))
      .send(body);
    expect(wrongField.status).toBe(400);
    expect(await countReceiptsOf(ctx.deps.db, [invoiceId])).toBe(0);
  });

  it('refuses a signature that does not cover the bytes sent, another merchant’s invoice and an unknown one', async () => {
    const invoiceId = await newInvoice();
    const path = `/api/v2/invoices/${invoiceId}/receipts`;
    const { body, contentType } = multipartBody('file', 'r.pdf', 'application/pdf', await pdf());
    const tampered = Buffer.from(body);
    const at = tampered.length - 40;
    tampered.writeUInt8(tampered.readUInt8(at) ^ 1, at);
    const bad = await request(ctx.app).post(path).set('x-api-key', m.apiKey).set('Content-Type', contentType).set(signedHeaders('v2', m.hmacSecret, { method: 'POST', path, body })).send(tampered);
    expect(bad.status).toBe(401);
    expect((await uploadReceiptRequest(ctx.app, other, invoiceId, await pdf())).status).toBe(404);
    const unknown = await uploadReceiptRequest(ctx.app, m, '00000000-0000-4000-8000-000000000000', await pdf());
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('NOT_FOUND');
  });
});

describe('GET /api/v2/receipts and /api/v2/receipts/{id}', () => {
  it('lists newest first with pagination, filters by status and invoiceId, and gets one with verificationDetails', async () => {
    const who = await newMerchant(ctx.deps);
    const a = await newInvoice(who, 500);
    const b = await newInvoice(who, 750.5);
    const up = async (invoiceId: string, amount: string) => (await uploadReceiptRequest(ctx.app, who, invoiceId, await pdf(amount))).body.receipt.id as string;
    const approved = await up(a, '500.00 RUB');
    const rejected = await up(a, '499.00 RUB');
    const pending = await up(b, '750.50 RUB');
    expect(await checkReceipt(ctx.deps, readers, approved)).toBe('APPROVED');
    expect(await checkReceipt(ctx.deps, readers, rejected)).toBe('REJECTED');
    // Checking twice changes nothing (a job delivered again).
    expect(await checkReceipt(ctx.deps, readers, approved)).toBe('already checked');

    const all = await get(who, '/api/v2/receipts');
    expect(all.status).toBe(200);
    expect(all.body.pagination).toEqual({ total: 3, limit: 50, offset: 0, pages: 1 });
    expect(all.body.data.map((r: { id: string }) => r.id)).toEqual([pending, rejected, approved]);
    for (const item of all.body.data) expect(Object.keys(item).sort()).toEqual(['createdAt', 'id', 'imageUrl', 'invoiceId', 'status', 'verifiedAmount', 'verifiedAt']);
    expect(all.body.data[2]).toMatchObject({ status: 'APPROVED', verifiedAmount: 500, verifiedAt: expect.any(String), invoiceId: a });
    expect(all.body.data[1]).toMatchObject({ status: 'REJECTED', verifiedAmount: null, verifiedAt: expect.any(String) });

    const ids = async (query: string) => (await get(who, `/api/v2/receipts?${query}`)).body.data.map((r: { id: string }) => r.id);
    expect(await ids('status=APPROVED')).toEqual([approved]);
    expect(await ids('status=REJECTED')).toEqual([rejected]);
    expect(await ids('status=PENDING')).toEqual([pending]);
    expect(await ids(`invoiceId=${a}`)).toEqual([rejected, approved]);
    expect(await ids(`invoiceId=${a}&status=PENDING`)).toEqual([]);
    const page = await get(who, '/api/v2/receipts?limit=1&offset=1');
    expect(page.body.pagination).toEqual({ total: 3, limit: 1, offset: 1, pages: 3 });
    expect(page.body.data.map((r: { id: string }) => r.id)).toEqual([rejected]);
    expect((await get(who, '/api/v2/receipts?limit=101')).status).toBe(400);
    expect((await get(who, '/api/v2/receipts?status=DONE')).status).toBe(400);
    expect((await get(who, '/api/v2/receipts?invoiceId=nope')).status).toBe(400);
    expect((await get(who, '/api/v2/receipts?sort=asc')).status).toBe(400);
    expect((await get(other, '/api/v2/receipts')).body.data.filter((r: { id: string }) => [approved, rejected, pending].includes(r.id))).toEqual([]);

    const one = await get(who, `/api/v2/receipts/${approved}`);
    expect(one.status).toBe(200);
    expect(one.body.receipt.verificationDetails).toEqual({
      extractedAmount: 500,
      extractedDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      confidence: 1,
      bank: 'Alfa-Bank',
      paymentType: 'sbp',
    });
    const no = await get(who, `/api/v2/receipts/${rejected}`);
    expect(no.body.receipt.verificationDetails).toMatchObject({ extractedAmount: 499, rejectionReason: 'Amount mismatch: the receipt shows 499.00, the invoice is for 500.00' });
    expect((await get(other, `/api/v2/receipts/${approved}`)).status).toBe(404);
    expect((await get(who, '/api/v2/receipts/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await get(who, '/api/v2/receipts/not-a-uuid')).status).toBe(400);
  });
});

describe('imageUrl', () => {
  it('serves the bytes to the owning merchant only, as an attachment a browser will not render or run', async () => {
    const invoiceId = await newInvoice();
    const bytes = await pdf();
    const receipt = (await uploadReceiptRequest(ctx.app, m, invoiceId, bytes)).body.receipt;
    const path = new URL(receipt.imageUrl).pathname;
    const res = await get(m, path).buffer(true).parse((r, cb) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => cb(null, Buffer.concat(chunks)));
    });
    expect(res.status).toBe(200);
    expect(Buffer.compare(res.body as Buffer, bytes)).toBe(0);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="receipt-${receipt.id}.pdf"`);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toBe("default-src 'none'; sandbox");
    expect((await get(other, path)).status).toBe(404);
    expect((await request(ctx.app).get(path).set('x-api-key', m.apiKey)).status).toBe(401);
  });
});

describe('the check of a hostile image', () => {
  it('rejects a PNG declaring 30,000 × 30,000 pixels as unreadable without decoding it', async () => {
    const header = Buffer.alloc(33);
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(header, 0);
    header.writeUInt32BE(13, 8);
    header.write('IHDR', 12, 'latin1');
    header.writeUInt32BE(30_000, 16);
    header.writeUInt32BE(30_000, 20);
    header.set([8, 6, 0, 0, 0], 24);
    const bomb = Buffer.concat([header, Buffer.alloc(1000)]);
    const invoiceId = await newInvoice();
    const id = (await uploadReceiptRequest(ctx.app, m, invoiceId, bomb)).body.receipt.id as string;
    expect(await checkReceipt(ctx.deps, readers, id)).toBe('REJECTED');
    const r = (await get(m, `/api/v2/receipts/${id}`)).body.receipt;
    expect(r.verificationDetails.rejectionReason).toBe('Unreadable: the image declares 30000 × 30000 pixels, more than the 50 million a receipt can have');
  });
});

describe('reconcileReceipts', () => {
  it('gives a job again to a receipt PENDING for over two minutes (Redis lost it), and to no other', async () => {
    const invoiceId = await newInvoice();
    const stale = (await uploadReceiptRequest(ctx.app, m, invoiceId, await pdf())).body.receipt.id as string;
    const fresh = (await uploadReceiptRequest(ctx.app, m, invoiceId, await pdf())).body.receipt.id as string;
    await backdateReceipt(ctx.deps.db, stale, new Date(Date.now() - 3 * 60_000));
    const queue = new Queue(Queues.receiptChecks.name, { connection: ctx.deps.queueRedis, prefix: `reconcile-${invoiceId}` });
    try {
      await reconcileReceipts({ db: ctx.deps.db, clock: new ManualClock() }, queue);
      expect((await queue.getJob(stale))?.data).toEqual({ receiptId: stale });
      expect(await queue.getJob(fresh)).toBeUndefined();
      // Decided receipts are never queued again.
      await checkReceipt(ctx.deps, readers, stale);
      await queue.obliterate({ force: true });
      await reconcileReceipts({ db: ctx.deps.db, clock: new ManualClock() }, queue);
      expect(await queue.getJob(stale)).toBeUndefined();
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });
});

describe('the receipt worker at shutdown', () => {
  it('hands back a check its closed OCR cut short, on the last attempt too: the receipt stays PENDING, the attempt unspent', async () => {
    const invoiceId = await newInvoice();
    const id = (await uploadReceiptRequest(ctx.app, m, invoiceId, noisePng(11, 120, 160), 'receipt.png', 'image/png')).body.receipt.id as string;
    // The engines are closed before the workers at shutdown: a check still running reads through closed ones.
    const closed = new ReceiptReaders({ rusTrainedData: '/usr/share/tesseract-ocr/5/tessdata/rus.traineddata' });
    await closed.close();
    const prefix = `shutdown-${id}`;
    const queue = new Queue(Queues.receiptChecks.name, { connection: ctx.deps.queueRedis, prefix });
    const worker = startReceiptWorker({ ...ctx.deps, config: { ...ctx.deps.config, QUEUE_PREFIX: prefix } }, closed);
    try {
      // One attempt only: were the abort counted as a failure, this would be the receipt's last and it would be rejected.
      await queue.add(Queues.receiptChecks.name, { receiptId: id }, { ...Queues.receiptChecks.jobOptions, attempts: 1, jobId: id, removeOnFail: false });
      await eventually(async () => expect(await (await queue.getJob(id))?.getState()).toBe('delayed'));
      expect((await queue.getJob(id))!.attemptsMade).toBe(0);
      expect((await get(m, `/api/v2/receipts/${id}`)).body.receipt.status).toBe('PENDING');
    } finally {
      await worker.close();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });
});

