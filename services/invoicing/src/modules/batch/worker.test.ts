import request from 'supertest';
import { invoicingAppForSuite, newMerchant, v1Request, type TestMerchant } from '../../../test/test-support';
import { updateBatch, updateBatchEmails } from '../../../test/batch/store';
import { batchInvoicesWithoutQr, clearBatchQrCodes } from '../../../test/invoices/store';
import { qrPngDataUri } from '../../payments/qr';
import { processBatch } from './batches';
import { batchForWork, emailsOfBatch } from './store';
import { batchesWithUnsentEmails, MAX_EMAIL_ATTEMPTS } from './emails';

// No background here: the test plays the queue worker itself, so each step can be looked at.
const ctx = invoicingAppForSuite({ env: { BATCH_INLINE_ROWS: '2' } });
let m: TestMerchant;

beforeAll(async () => {
  m = await newMerchant(ctx.deps);
});

const upload = (csv: string) => request(ctx.app).post('/api/v1/batch/invoices').set('x-api-key', m.apiKey).attach('file', Buffer.from(csv), 'b.csv');
const summary = async (batchId: string) => (await v1Request(ctx.app, m, 'get', `/api/v1/batch/invoices/${batchId}`)).body;

describe('a batch over BATCH_INLINE_ROWS', () => {
  it('answers with its invoice ids at once, shows processing until the worker has written it, then completed; a rerun writes nothing twice', async () => {
    const res = await upload('amount,currency,externalId\n1,RUB,w-1\n2,RUB,w-2\n3,RUB,w-3\nx,RUB,w-4\n5,RUB,w-5\n');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ total: 5, created: 4, failed: 1 });
    const { batchId } = res.body;
    expect(await summary(batchId)).toMatchObject({ status: 'processing', total: 5, created: 0, failed: 1 });
    // Meanwhile another request takes w-5: the unique index makes that row an error, not a duplicate.
    expect((await upload('amount,currency,externalId\n9,RUB,w-5\n')).status).toBe(201);
    const batchRow = async () => (await batchForWork(ctx.deps.db, batchId))!;
    const { pendingRows: pending } = await batchRow();
    await processBatch(ctx.deps, batchId);
    expect(await summary(batchId)).toMatchObject({ status: 'completed', total: 5, created: 3, failed: 2 });
    const batch = await batchRow();
    expect(batch!.pendingRows).toBeNull();
    expect(batch!.errors).toEqual([
      { row: 4, externalId: 'w-4', error: 'amount "x" is not a number (digits, a dot, at most 2 decimals)' },
      { row: 5, externalId: 'w-5', error: 'externalId "w-5" was used by an earlier invoice' },
    ]);
    // The invoices the answer named are the ones written.
    for (const inv of res.body.invoices.slice(0, 3)) expect((await v1Request(ctx.app, m, 'get', `/api/v1/invoices/${inv.id}`)).status).toBe(200);
    // A job run again over rows already written (a crash after a chunk, a lost acknowledgement)
    // writes nothing twice and reports no error twice.
    await updateBatch(ctx.deps.db, batchId, { status: 'processing', pendingRows: pending });
    await processBatch(ctx.deps, batchId);
    expect(await summary(batchId)).toMatchObject({ status: 'completed', total: 5, created: 3, failed: 2 });
    expect((await batchRow()).errors).toHaveLength(2);
  });

  it('draws the QR images a completed batch still lacks when its job runs again (a process stopped in between); a GET draws only the one it shows', async () => {
    const res = await upload('amount,currency,externalId\n1,RUB,q-1\n2,RUB,q-2\n3,RUB,q-3\n');
    const { batchId } = res.body;
    await processBatch(ctx.deps, batchId);
    const missing = async () => batchInvoicesWithoutQr(ctx.deps.db, batchId);
    expect(await missing()).toBe(0);
    // As if the process had stopped between completing the batch and drawing its images.
    await clearBatchQrCodes(ctx.deps.db, batchId);
    const id = res.body.invoices[0].id;
    const first = await v1Request(ctx.app, m, 'get', `/api/v1/invoices/${id}`);
    expect(first.body.qrCodeUrl).toBe(qrPngDataUri(`${ctx.deps.config.PUBLIC_URL}/pay/${id}/sbp`));
    expect(await missing()).toBe(2);
    await processBatch(ctx.deps, batchId);
    expect(await missing()).toBe(0);
    expect((await v1Request(ctx.app, m, 'get', `/api/v1/invoices/${id}`)).body.qrCodeUrl).toBe(first.body.qrCodeUrl);
  });

  it('keeps each row’s language through the worker: its e-mail is queued in it (none: the merchant’s default, when sent)', async () => {
    const res = await upload('amount,currency,email,language\n1,RUB,l1@example.com,kk\n2,RUB,l2@example.com,\n3,RUB,l3@example.com,ru\n');
    expect(res.status).toBe(201);
    const { batchId } = res.body;
    await updateBatch(ctx.deps.db, batchId, { sendEmails: true });
    await processBatch(ctx.deps, batchId);
    const queued = await emailsOfBatch(ctx.deps.db, batchId);
    expect(Object.fromEntries(queued.map((e) => [e.toAddress, e.language]))).toEqual({ 'l1@example.com': 'kk', 'l2@example.com': null, 'l3@example.com': 'ru' });
  });

  it('e-mails left unsent are given new jobs until each has had its attempts, then stay failed with their error', async () => {
    const res = await upload('amount,currency,email\n1,RUB,a@example.com\n2,RUB,b@example.com\n3,RUB,c@example.com\n');
    const { batchId } = res.body;
    await updateBatch(ctx.deps.db, batchId, { sendEmails: true });
    await processBatch(ctx.deps, batchId);
    const set = (address: string, status: 'sent' | 'failed', attempts: number) =>
      updateBatchEmails(ctx.deps.db, batchId, { status, attempts, lastError: 'x' }, address);
    expect(await batchesWithUnsentEmails(ctx.deps)).toContain(batchId); // never tried
    await set('a@example.com', 'sent', 1);
    await set('b@example.com', 'failed', 6);
    await set('c@example.com', 'failed', MAX_EMAIL_ATTEMPTS);
    expect(await batchesWithUnsentEmails(ctx.deps)).toContain(batchId); // b has attempts left
    await set('b@example.com', 'failed', MAX_EMAIL_ATTEMPTS);
    expect(await batchesWithUnsentEmails(ctx.deps)).not.toContain(batchId);
  });
});
