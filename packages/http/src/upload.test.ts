import { createHash } from 'node:crypto';
import request from 'supertest';
import { Type } from '@sinclair/typebox';
import pino from 'pino';
import { createHttpApp, finishHttpApp } from './app';
import { Api } from './routes';
import { html } from './html';
import { sniffType } from './content-type';
import { fingerprintOf } from './idempotency';

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(100, 1)]);
const PDF = Buffer.from('%PDF-1.4\n%âãÏÓ\n1 0 obj\n<<>>\nendobj\n');
const HTML = Buffer.from('<html><script>alert(1)</script></html>');

const api = new Api({ envelope: 'success', auth: { none: [] } })
  .route({
    method: 'post',
    path: '/receipts',
    operationId: 'uploadReceipt',
    summary: 'upload',
    auth: 'none',
    upload: { files: { file: { required: true, maxBytes: 1000, types: ['image/png', 'application/pdf'] } } },
    body: Type.Object({ note: Type.Optional(Type.String({ maxLength: 10 })), copies: Type.Optional(Type.Integer({ minimum: 1 })) }, { additionalProperties: false }),
    response: { status: 201, schema: Type.Object({ type: Type.String(), size: Type.Integer(), name: Type.String(), fields: Type.Unknown(), rawSha: Type.String() }) },
    handler: ({ files, body, req }) => ({
      status: 201,
      body: { type: files.file!.type, size: files.file!.bytes.length, name: files.file!.originalName, fields: body, rawSha: createHash('sha256').update(req.rawBody!).digest('hex') },
    }),
  })
  .page({
    method: 'post',
    path: '/pay/upload',
    summary: 'page upload',
    auth: 'none',
    upload: { files: { receipt: { required: true, maxBytes: 1000, types: ['image/png'] } } },
    handler: ({ files }) => ({ html: html`<p>${files.receipt!.type}</p>` }),
  });
const app = finishHttpApp(
  (() => {
    const a = createHttpApp({ service: 't', logger: pino({ level: 'silent' }), bodyLimit: '10kb', readiness: [], isShuttingDown: () => false, envelopeFor: () => 'success' });
    a.use(api.router);
    return a;
  })(),
  () => 'success',
);

describe('multipart uploads', () => {
  it('accept a file typed by its content, whatever its name, with text fields coerced and the raw bytes kept', async () => {
    const res = await request(app).post('/receipts').field('note', 'hi').field('copies', '2').attach('file', PDF, { filename: 'photo.png', contentType: 'image/png' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ success: true, type: 'application/pdf', size: PDF.length, name: 'photo.png', fields: { note: 'hi', copies: 2 } });
    expect(res.body.rawSha).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuse a type not accepted, judged by content (HTML named .png)', async () => {
    const res = await request(app).post('/receipts').attach('file', HTML, { filename: 'x.png', contentType: 'image/png' });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'file', message: 'must be one of: image/png, application/pdf' }]);
  });

  it('refuse a file over its limit with 413, a missing file and unknown fields with 400, a JSON body with 415', async () => {
    const big = await request(app).post('/receipts').attach('file', Buffer.concat([PNG, Buffer.alloc(2000)]), 'big.png');
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    const missing = await request(app).post('/receipts').field('note', 'x');
    expect(missing.status).toBe(400);
    expect(missing.body.error.details).toEqual([{ field: 'file', message: 'is required' }]);
    const other = await request(app).post('/receipts').attach('file', PNG, 'a.png').attach('other', PNG, 'b.png');
    expect(other.status).toBe(400);
    const badField = await request(app).post('/receipts').field('copies', '0').attach('file', PNG, 'a.png');
    expect(badField.status).toBe(400);
    expect(badField.body.error.details[0].field).toBe('copies');
    const json = await request(app).post('/receipts').send({ file: 'x' });
    expect(json.status).toBe(415);
  });

  it('work on pages too', async () => {
    const ok = await request(app).post('/pay/upload').attach('receipt', PNG, 'r.png');
    expect(ok.status).toBe(200);
    expect(ok.text).toBe('<p>image/png</p>');
    const bad = await request(app).post('/pay/upload').attach('receipt', PDF, 'r.pdf');
    expect(bad.status).toBe(400);
    expect(bad.headers['content-type']).toMatch(/html/);
  });
});

describe('sniffType', () => {
  it('knows PNG, JPEG, WebP, PDF and UTF-8 CSV text, and nothing else', () => {
    expect(sniffType(PNG)).toBe('image/png');
    expect(sniffType(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0]))).toBe('image/jpeg');
    expect(sniffType(Buffer.from('RIFF\0\0\0\0WEBPVP8 '))).toBe('image/webp');
    expect(sniffType(PDF)).toBe('application/pdf');
    expect(sniffType(Buffer.from('\ufeffamount,currency\n10,RUB\n'))).toBe('text/csv');
    expect(sniffType(Buffer.from([0x61, 0x00, 0x62]))).toBeNull();
    expect(sniffType(Buffer.from([0xc3, 0x28]))).toBeNull(); // invalid UTF-8
    expect(sniffType(Buffer.alloc(0))).toBeNull();
  });
});

describe('the idempotency fingerprint of a multipart request', () => {
  // A client draws a new boundary for every send: the same form must still be the same request.
  const form = (raw: string, fields: Record<string, string>, file: Buffer) =>
    ({ method: 'POST', originalUrl: '/batch?x=1', rawBody: Buffer.from(raw), body: fields, uploads: { file: { originalName: 'a.csv', type: 'text/csv', bytes: file } } }) as unknown as Parameters<typeof fingerprintOf>[0];
  it('is its fields and its files’ bytes, not the boundary', () => {
    const csv = Buffer.from('amount\n1\n');
    const a = fingerprintOf(form('--b1 ...', { sendEmails: 'true', z: '1' }, csv));
    expect(fingerprintOf(form('--b2 ...', { z: '1', sendEmails: 'true' }, Buffer.from(csv)))).toBe(a);
    expect(fingerprintOf(form('--b1 ...', { sendEmails: 'false', z: '1' }, csv))).not.toBe(a);
    expect(fingerprintOf(form('--b1 ...', { sendEmails: 'true', z: '1' }, Buffer.from('amount\n2\n')))).not.toBe(a);
  });
});
