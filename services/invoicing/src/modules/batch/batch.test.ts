import request from 'supertest';
import Papa from 'papaparse';
import { eventually, startTestSmtp, decodeQrDataUri } from '@pay/testing';
import { MAX_EMAIL_ATTEMPTS } from './emails';
import { startInvoicingApp, newMerchant, v1Request, type InvoicingTestApp, type TestMerchant } from '../../../test/test-support';
import { updateBatchEmails } from '../../../test/batch/store';
import { batchEmailCounts, emailsOfBatch } from './store';
import { batchInvoiceColumns, batchInvoicesWithoutQr, countInvoices as countMerchantInvoices } from '../../../test/invoices/store';

let smtp: Awaited<ReturnType<typeof startTestSmtp>>;
let ctx: InvoicingTestApp;
const url = () => ctx.deps.config.PUBLIC_URL;

beforeAll(async () => {
  smtp = await startTestSmtp();
  ctx = await startInvoicingApp({ background: true, env: { SMTP_PORT: String(smtp.port), OUTBOX_INTERVAL_MS: '50' }, poolSize: 6 });
});
afterAll(async () => {
  await ctx?.close();
  await smtp?.close();
});

function upload(m: Pick<TestMerchant, 'apiKey'>, csv: string | Buffer | null, fields: Record<string, string> = {}, key?: string) {
  let req = request(ctx.app).post('/api/v1/batch/invoices').set('x-api-key', m.apiKey);
  if (key) req = req.set('Idempotency-Key', key);
  for (const [k, v] of Object.entries(fields)) req = req.field(k, v);
  return csv === null ? req.field('sendEmails', 'false') : req.attach('file', Buffer.isBuffer(csv) ? csv : Buffer.from(csv), 'invoices.csv');
}

/** The export's rows, read by papaparse as a spreadsheet would (quoted cells may hold commas, quotes and line breaks). */
const parseCsv = (text: string): string[][] => Papa.parse<string[]>(text, { header: false, skipEmptyLines: true }).data;

/** Invoices of a batch still without their stored QR image. */
async function qrCodesMissing(batchId: string): Promise<number> {
  return batchInvoicesWithoutQr(ctx.deps.db, batchId);
}

async function merchantWith(...currencies: string[]) {
  const m = await newMerchant(ctx.deps);
  expect((await v1Request(ctx.app, { apiKey: m.liveKey }, 'put', '/api/v1/settings/currencies', { enabledCurrencies: currencies })).status).toBe(200);
  return m;
}

const countInvoices = async (m: TestMerchant) => countMerchantInvoices(ctx.deps.db, m.merchantId);

describe('POST /api/v1/batch/invoices', () => {
  it('valid rows are created, failed rows listed with their 1-based row, externalId and reasons; exact result fields', async () => {
    const m = await merchantWith('RUB', 'USD');
    const csv =
      '\uFEFFamount,currency,description,email,externalId,redirectUrl\r\n' +
      '100.50,RUB,Plan A,ann@example.com,ord-1,https://shop.example/a\r\n' + // 1 ok
      '-5,RUB,,,ord-2,\r\n' + // 2 negative
      '20,EUR,,,ord-3,\r\n' + // 3 EUR not enabled
      '30,USD,"=HYPERLINK(""http://evil"")",bob@example.com,@ord-4,\r\n' + // 4 ok: a formula cell stays text
      '40,RUB,,not-an-email,ord-5,javascript:alert(1)\r\n' + // 5 bad e-mail and URL
      '\r\n' + // a blank line: skipped, still counted in the numbering
      '50,,+cmd,,ord-1,\r\n' + // 7 externalId repeats row 1 (currency from the default)
      '1.234,RUB,,,,\r\n' + // 8 three decimals
      '60,,-minus,,,\r\n'; // 9 ok, defaults
    const res = await upload(m, csv, { defaultCurrency: 'RUB', defaultRedirectUrl: 'https://shop.example/default' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['batchId', 'total', 'created', 'failed', 'invoices', 'errors']);
    expect(res.body).toMatchObject({ total: 8, created: 3, failed: 5 });
    expect(res.body.invoices.map((i: { externalId: string | null; amount: number; currency: string }) => [i.externalId, i.amount, i.currency])).toEqual([
      ['ord-1', 100.5, 'RUB'],
      ['@ord-4', 30, 'USD'],
      [null, 60, 'RUB'],
    ]);
    // Each QR image is drawn once the batch is written, and stored before the answer.
    expect(await qrCodesMissing(res.body.batchId)).toBe(0);
    for (const inv of res.body.invoices) {
      expect(Object.keys(inv)).toEqual(['id', 'amount', 'currency', 'externalId', 'paymentUrl', 'status']);
      expect(inv).toMatchObject({ paymentUrl: `${url()}/pay/${inv.id}`, status: 'pending' });
      const got = (await v1Request(ctx.app, m, 'get', `/api/v1/invoices/${inv.id}`)).body;
      expect(got.status).toBe('pending');
      expect(decodeQrDataUri(got.qrCodeUrl)).toBe(`${url()}/pay/${inv.id}/sbp`);
    }
    expect(res.body.errors).toEqual([
      { row: 2, externalId: 'ord-2', error: 'amount "-5" is not a number (digits, a dot, at most 2 decimals)' },
      { row: 3, externalId: 'ord-3', error: 'currency EUR is not enabled for this merchant (enabled: RUB, USD)' },
      { row: 5, externalId: 'ord-5', error: 'email "not-an-email" is not an e-mail address; redirectUrl "javascript:alert(1)" is not an http(s) URL' },
      { row: 7, externalId: 'ord-1', error: 'externalId "ord-1" repeats row 1' },
      { row: 8, externalId: null, error: 'amount must have at most 2 decimal places' },
    ]);
    const rows = await batchInvoiceColumns(ctx.deps.db, res.body.batchId, ['description', 'external_id', 'redirect_url', 'customer_email', 'batch_id'], 'amount');
    expect(rows).toEqual([
      { description: '=HYPERLINK("http://evil")', external_id: '@ord-4', redirect_url: 'https://shop.example/default', customer_email: 'bob@example.com', batch_id: res.body.batchId },
      { description: '-minus', external_id: null, redirect_url: 'https://shop.example/default', customer_email: null, batch_id: res.body.batchId },
      { description: 'Plan A', external_id: 'ord-1', redirect_url: 'https://shop.example/a', customer_email: 'ann@example.com', batch_id: res.body.batchId },
    ]);
    // The CSV export writes those cells as text: a spreadsheet shows them, never runs them.
    const exported = await v1Request(ctx.app, m, 'get', `/api/v1/batch/invoices/${res.body.batchId}/export`);
    expect(exported.status).toBe(200);
    expect(exported.headers['content-type']).toMatch(/^text\/csv/);
    const lines = exported.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe('invoiceId,externalId,amount,currency,status,description,email,paymentUrl,createdAt,paidAt,emailStatus,emailAttempts,emailError');
    expect(lines).toHaveLength(4);
    const line = (externalId: string | null) => lines.find((l) => l.startsWith(res.body.invoices.find((i: { externalId: string | null }) => i.externalId === externalId).id))!;
    expect(line('@ord-4')).toContain(`,"'@ord-4",30.00,USD,pending,"'=HYPERLINK(""http://evil"")",bob@example.com,`);
    expect(line(null)).toContain(`,,60.00,RUB,pending,"'-minus",,`);
    expect(exported.text).not.toMatch(/(^|,)"?[=+\-@]/m);
    // externalId is unique against earlier batches too.
    const again = await upload(m, 'amount,currency,externalId\n5,RUB,ord-1\n6,RUB,ord-9\n');
    expect(again.body.errors).toEqual([{ row: 1, externalId: 'ord-1', error: 'externalId "ord-1" was used by an earlier invoice' }]);
    expect(again.body.created).toBe(1);
  });

  it('numbers rows as the file has them, blank ones included, and counts in total only the rows read: total = created + failed', async () => {
    const m = await merchantWith('RUB');
    // Spreadsheets export an empty row as a line of commas: blank like an empty line.
    const csv = 'amount,currency,externalId\n10,RUB,a\n\n,,\n , ,\nx,RUB,b\n"20",RUB,"c"\n\n';
    const res = await upload(m, csv);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ total: 3, created: 2, failed: 1 });
    expect(res.body.errors).toEqual([{ row: 5, externalId: 'b', error: 'amount "x" is not a number (digits, a dot, at most 2 decimals)' }]);
    expect(res.body.total).toBe(res.body.created + res.body.failed);
    const doc = (await request(ctx.app).get('/openapi.json')).body;
    expect(doc.paths['/api/v1/batch/invoices'].post.description).toMatch(/blank rows \(an empty line, or only empty cells\) are skipped but keep their number, so row N is the spreadsheet’s row N \+ 1/);
  });

  it('the same file with the same Idempotency-Key answers the first result and creates nothing new', async () => {
    const m = await merchantWith('RUB');
    const csv = 'amount,currency,externalId\n10,RUB,a\n11,RUB,b\n';
    const first = await upload(m, csv, { sendEmails: 'false' }, 'batch-42');
    const second = await upload(m, csv, { sendEmails: 'false' }, 'batch-42');
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(await countInvoices(m)).toBe(2);
    expect((await upload(m, csv + '12,RUB,c\n', {}, 'batch-42')).status).toBe(409);
    expect(await countInvoices(m)).toBe(2);
  });

  it('400: no file, not CSV, no header, unknown columns, over 1000 rows, bad form fields; 413 over 5 MB; 422 no valid row; 401 without a key', async () => {
    const m = await merchantWith('RUB');
    const cases: [string, ReturnType<typeof upload>, number, string][] = [
      ['missing file', upload(m, null), 400, 'file'],
      ['PNG', upload(m, Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex')), 400, 'file'],
      ['no amount header', upload(m, 'price,currency\n10,RUB\n'), 400, 'file'],
      ['unknown column', upload(m, 'amount,currency,color\n10,RUB,red\n'), 400, 'file'],
      ['a column twice', upload(m, 'amount,amount,currency\n10,20,RUB\n'), 400, 'file'],
      ['1001 rows', upload(m, 'amount,currency\n' + '1,RUB\n'.repeat(1001)), 400, 'file'],
      ['sendEmails', upload(m, 'amount,currency\n1,RUB\n', { sendEmails: 'maybe' }), 400, 'sendEmails'],
      ['defaultCurrency', upload(m, 'amount,currency\n1,RUB\n', { defaultCurrency: 'GBP' }), 400, 'defaultCurrency'],
      ['defaultRedirectUrl', upload(m, 'amount,currency\n1,RUB\n', { defaultRedirectUrl: 'ftp://x' }), 400, 'defaultRedirectUrl'],
      ['no currency anywhere', upload(m, 'amount\n1\n'), 400, 'file'],
    ];
    for (const [name, req, status, field] of cases) {
      const res = await req;
      expect([name, res.status]).toEqual([name, status]);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    const twice = await upload(m, 'amount,currency,externalId,amount,,\n10,RUB,a,20,,\n');
    expect(twice.body.error.details).toEqual([{ field: 'file', message: 'names the column "amount" more than once in its header' }]);
    const big = 'amount,currency,description\n' + `1,RUB,${'x'.repeat(400)}\n`.repeat(Math.ceil((5 * 1024 * 1024) / 407) + 10); // just over 5 MB
    const tooLarge = await upload(m, big);
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    // In the docs' own unit: 5 MB, not its count of bytes.
    expect(tooLarge.body.error.message).toMatch(/the file "file" may be at most 5 MB$/);
    const sixMegabytes = await upload(m, big + big.slice(0, 1024 * 1024));
    expect(sixMegabytes.body.error.message).toMatch(/the file "file" may be at most 5 MB$/);
    const none = await upload(m, 'amount,currency,externalId\n0,RUB,A-1\nabc,RUB,\n5,EUR,A-3\n');
    expect(none.status).toBe(422);
    // The error envelope; each row with its number and externalId, as a batch's `errors` has them.
    expect(none.body).toEqual({
      error: {
        code: 'NO_VALID_ROWS',
        message: 'None of the 3 rows is valid; nothing was created',
        details: [
          { field: 'row 1', message: 'amount must be greater than 0', row: 1, externalId: 'A-1' },
          { field: 'row 2', message: 'amount "abc" is not a number (digits, a dot, at most 2 decimals)', row: 2, externalId: null },
          { field: 'row 3', message: 'currency EUR is not enabled for this merchant (enabled: RUB)', row: 3, externalId: 'A-3' },
        ],
      },
    });
    const many = await upload(m, 'amount,currency,externalId\n' + Array.from({ length: 150 }, (_, i) => `0,RUB,X-${i + 1}\n`).join(''));
    expect(many.status).toBe(422);
    expect(many.body.error.message).toBe('None of the 150 rows is valid; nothing was created (the first 100 are listed)');
    expect(many.body.error.details).toHaveLength(100);
    expect(many.body.error.details[99]).toEqual({ field: 'row 100', message: 'amount must be greater than 0', row: 100, externalId: 'X-100' });
    expect((await upload(m, 'amount,currency\n')).status).toBe(422);
    expect(await countInvoices(m)).toBe(0);
    const noKey = await request(ctx.app).post('/api/v1/batch/invoices').attach('file', Buffer.from('amount,currency\n1,RUB\n'), 'a.csv');
    expect(noKey.status).toBe(401);
  });
});

describe('GET /api/v1/batch/invoices/{batchId}', () => {
  it('the summary, live as invoices get paid; 404 for unknown, malformed or another merchant’s batch', async () => {
    const m = await merchantWith('RUB');
    const { body: batch } = await upload(m, 'amount,currency\n100,RUB\n250.25,RUB\nx,RUB\n');
    const get = () => v1Request(ctx.app, m, 'get', `/api/v1/batch/invoices/${batch.batchId}`);
    const before = await get();
    expect(before.status).toBe(200);
    // The documented fields, and `emails` (additive): null, since this batch sends none.
    expect(Object.keys(before.body)).toEqual(['batchId', 'status', 'total', 'created', 'failed', 'paidCount', 'totalVolume', 'createdAt', 'emails']);
    expect(before.body).toMatchObject({ batchId: batch.batchId, status: 'completed', total: 3, created: 2, failed: 1, paidCount: 0, totalVolume: 0, emails: null });
    await v1Request(ctx.app, m, 'post', `/api/v1/sandbox/invoices/${batch.invoices[1].id}/pay`, {});
    expect((await get()).body).toMatchObject({ paidCount: 1, totalVolume: 250.25 });
    const other = await newMerchant(ctx.deps);
    for (const id of [batch.batchId, '00000000-0000-4000-8000-000000000000', 'nope']) {
      const res = await v1Request(ctx.app, other, 'get', `/api/v1/batch/invoices/${id}`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
  });
});

describe('a 1000-row batch in the queue worker, with e-mails', () => {
  it('mixed rows: right counts and row numbers, processing → completed, every e-mail at the SMTP server', async () => {
    const m = await merchantWith('RUB', 'KZT');
    const lines = ['amount,currency,description,email,externalId'];
    const bad = new Map<number, string>();
    for (let row = 1; row <= 1000; row++) {
      if (row % 10 === 3) {
        lines.push(`12.345,RUB,bad amount,c${row}@example.com,big-${row}`);
        bad.set(row, 'amount must have at most 2 decimal places');
      } else if (row % 50 === 7) {
        lines.push(`10,USD,not enabled,c${row}@example.com,big-${row}`);
        bad.set(row, 'currency USD is not enabled for this merchant (enabled: RUB, KZT)');
      } else if (row % 100 === 99) {
        lines.push(`10,RUB,dup,c${row}@example.com,big-1`);
        bad.set(row, 'externalId "big-1" repeats row 1');
      } else {
        lines.push(`${row}.50,${row % 2 ? 'RUB' : 'KZT'},Order ${row},c${row}@example.com,big-${row}`);
      }
    }
    const before = smtp.received.length;
    const res = await upload(m, lines.join('\n') + '\n', { sendEmails: 'true' });
    expect(res.status).toBe(201);
    const good = 1000 - bad.size;
    expect(res.body).toMatchObject({ total: 1000, created: good, failed: bad.size });
    expect(res.body.invoices).toHaveLength(good);
    expect(res.body.errors).toEqual([...bad].map(([row, error]) => ({ row, externalId: row % 100 === 99 ? 'big-1' : `big-${row}`, error })));
    const get = () => v1Request(ctx.app, m, 'get', `/api/v1/batch/invoices/${res.body.batchId}`);
    const first = await get();
    expect(['processing', 'completed']).toContain(first.body.status);
    // Generous bounds with slow polls: the whole suite shares this machine's two cores (the bench measures the speed).
    await eventually(async () => expect((await get()).body).toMatchObject({ status: 'completed', total: 1000, created: good, failed: bad.size }), 60_000, 200);
    await eventually(() => expect(smtp.received.length - before).toBe(good), 90_000, 200);
    const mails = smtp.received.slice(before);
    const inv = res.body.invoices[5];
    const mail = mails.find((x) => x.raw.includes(`${url()}/pay/${inv.id}`))!;
    expect(mail.to).toEqual([`c${Number(inv.externalId.slice(4))}@example.com`]);
    const sentRows = async () => (await batchEmailCounts(ctx.deps.db, res.body.batchId)).sent;
    await eventually(async () => expect(await sentRows()).toBe(good), 30_000, 200);
    // The worker drew every QR image after completing the batch: reads find them stored.
    await eventually(async () => expect(await qrCodesMissing(res.body.batchId)).toBe(0), 30_000, 200);
  }, 200_000);

  it('a refused recipient is recorded with its error and retried until it goes through', async () => {
    const m = await merchantWith('RUB');
    smtp.refuse('flaky@example.com');
    const { body } = await upload(m, 'amount,currency,email\n1,RUB,ok@example.com\n2,RUB,flaky@example.com\n3,RUB,\n', { sendEmails: 'true' });
    // The export shows each row's e-mail as recorded: the merchant sees who never got the link, and why.
    const exportedEmails = async () => {
      const res = await v1Request(ctx.app, m, 'get', `/api/v1/batch/invoices/${body.batchId}/export`);
      expect(res.status).toBe(200);
      const [header, ...rows] = parseCsv(res.text);
      expect(header!.slice(-3)).toEqual(['emailStatus', 'emailAttempts', 'emailError']);
      const col = (name: string) => header!.indexOf(name);
      return Object.fromEntries(
        rows.map((r) => [r[col('amount')], { status: r[col('emailStatus')], attempts: r[col('emailAttempts')], error: r[col('emailError')] }]),
      );
    };
    const emailOf = async (address: string) => (await emailsOfBatch(ctx.deps.db, body.batchId)).find((e) => e.toAddress === address)!;
    await eventually(async () => expect(await emailOf('flaky@example.com')).toMatchObject({ status: 'failed', attempts: 1, lastError: expect.stringContaining('550') }), 10_000);
    expect(await emailOf('ok@example.com')).toMatchObject({ status: 'sent', attempts: 1 });
    const failedError = (await emailOf('flaky@example.com')).lastError;
    expect(await exportedEmails()).toEqual({
      '1.00': { status: 'sent', attempts: '1', error: '' },
      '2.00': { status: 'failed', attempts: '1', error: failedError },
      '3.00': { status: '', attempts: '', error: '' },
    });
    // The batch says so too: completed, but one customer has not got the link yet.
    const summary = async () => (await v1Request(ctx.app, m, 'get', `/api/v1/batch/invoices/${body.batchId}`)).body;
    expect(await summary()).toMatchObject({ status: 'completed', emails: { sent: 1, failed: 1, pending: 0, outcome: 'some_failed', retrying: true, lastError: failedError } });
    const exported = await v1Request(ctx.app, m, 'get', `/api/v1/batch/invoices/${body.batchId}/export`);
    expect([exported.headers['x-emails-sent'], exported.headers['x-emails-failed'], exported.headers['x-emails-pending']]).toEqual(['1', '1', '0']);
    smtp.accept('flaky@example.com');
    await eventually(async () => expect(await emailOf('flaky@example.com')).toMatchObject({ status: 'sent', attempts: 2, lastError: null }), 15_000);
    expect((await summary()).emails).toEqual({ sent: 2, failed: 0, pending: 0, outcome: 'sent', retrying: false, lastError: null });
    expect((await exportedEmails())['2.00']).toEqual({ status: 'sent', attempts: '2', error: '' });
    expect(smtp.received.filter((x) => x.to.includes('ok@example.com')).length).toBeGreaterThanOrEqual(1);
  }, 30_000);

  it('a batch none of whose e-mails could be sent says all_failed, not only completed', async () => {
    const m = await merchantWith('RUB');
    smtp.refuse('gone1@example.com');
    smtp.refuse('gone2@example.com');
    const { body } = await upload(m, 'amount,currency,email\n1,RUB,gone1@example.com\n2,RUB,gone2@example.com\n', { sendEmails: 'true' });
    await eventually(async () => {
      const res = await v1Request(ctx.app, m, 'get', `/api/v1/batch/invoices/${body.batchId}`);
      expect(res.body).toMatchObject({ status: 'completed', emails: { sent: 0, failed: 2, pending: 0, outcome: 'all_failed', retrying: true, lastError: expect.stringContaining('550') } });
    }, 10_000);
    // Once their attempts are spent they stay failed and are no longer retried (nor left behind
    // for the next test process on this database to send).
    await updateBatchEmails(ctx.deps.db, body.batchId, { attempts: MAX_EMAIL_ATTEMPTS });
    const spent = await v1Request(ctx.app, m, 'get', `/api/v1/batch/invoices/${body.batchId}`);
    expect(spent.body.emails).toMatchObject({ failed: 2, outcome: 'all_failed', retrying: false });
  }, 30_000);
});
