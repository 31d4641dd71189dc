import { randomBytes, randomInt } from 'node:crypto';
import request from 'supertest';
import type { Express } from 'express';
import { PNG } from 'pngjs';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { BrowserContext } from 'playwright-core';
import { signedHeaders } from '@pay/auth';
import type { TestMerchant } from '../test-support';

/** What a receipt made by a test says. */
export interface ReceiptText {
  /** As the bank prints it, e.g. `1 490,90 ₽`. */
  amount: string;
  /** As the bank prints it, e.g. `23.11.2026 14:05`. */
  date: string;
  bank?: string;
  operation?: string;
}

/** `dd.mm.yyyy` of a day in Moscow time, `days` from now. */
export function moscowDay(days = 0, now = new Date()): string {
  const iso = new Date(now.getTime() + 3 * 3_600_000 + days * 86_400_000).toISOString();
  return `${iso.slice(8, 10)}.${iso.slice(5, 7)}.${iso.slice(0, 4)}`;
}

/**
 * A document number of its own for every receipt made, as a bank prints on each: the service
 * refuses a file uploaded before for another invoice (by its bytes), and two receipts a test
 * makes with the same text would otherwise be the same file, in one run (another test file on
 * the same database) or the next (the database is kept): REJECTED, "already been uploaded".
 */
function documentNumber(): string {
  return `${randomInt(1e9, 1e10 - 1)}${randomInt(1e6, 1e7 - 1)}`;
}

/** A bank-app receipt as HTML, in Russian, the way Sberbank's app lays one out. */
export function receiptHtml(r: ReceiptText): string {
  return `<!doctype html><html><head><meta charset="utf-8"></head>
<body style="margin:0;background:#fff;font-family:'DejaVu Sans',sans-serif;color:#111">
<div style="width:380px;padding:24px;font-size:18px;line-height:1.5">
<div style="font-size:24px;font-weight:bold">${r.bank ?? 'СберБанк'}</div>
<div>Чек по операции</div>
<div>${r.date} (МСК)</div>
<div>Операция: ${r.operation ?? 'Перевод по СБП'}</div>
<div>Получатель: ООО Ромашка</div>
<div>Сумма перевода</div>
<div style="font-size:26px;font-weight:bold">${r.amount}</div>
<div>Комиссия 0,00 ₽</div>
<div>Статус: Выполнено</div>
<div>Номер документа: ${documentNumber()}</div>
</div></body></html>`;
}

/** A screenshot of the receipt in headless Chromium: the PNG (or JPEG) a customer's phone would upload. */
export async function receiptPng(context: BrowserContext, r: ReceiptText, type: 'png' | 'jpeg' = 'png'): Promise<Buffer> {
  const page = await context.newPage();
  try {
    await page.setViewportSize({ width: 430, height: 520 });
    await page.setContent(receiptHtml(r));
    return await page.screenshot({ fullPage: true, type, ...(type === 'jpeg' ? { quality: 90 } : {}) });
  } finally {
    await page.close();
  }
}

/**
 * A PDF receipt with a real text layer (pdf-lib, standard Helvetica). The standard PDF fonts
 * have no Cyrillic, so the PDF receipts are in English, as Russian banks' English app
 * versions print them; Cyrillic is covered by the PNG receipts.
 */
export async function receiptPdf(r: ReceiptText): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([420, 560]);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const lines: [string, number, typeof font][] = [
    [r.bank ?? 'Alfa-Bank', 20, bold],
    ['Payment receipt', 14, font],
    [`Date: ${r.date}`, 12, font],
    [`Operation: ${r.operation ?? 'Transfer via SBP (Faster Payments System)'}`, 12, font],
    ['Recipient: Romashka LLC', 12, font],
    [`Amount: ${r.amount}`, 16, bold],
    ['Fee: 0.00 RUB', 12, font],
    ['Status: Completed', 12, font],
    [`Document No: ${documentNumber()}`, 12, font],
  ];
  let y = 520;
  for (const [text, size, f] of lines) {
    page.drawText(text, { x: 30, y, size, font: f });
    y -= size + 18;
  }
  return Buffer.from(await doc.save());
}

/** A PDF with nothing to read: a drawn shape, no text layer (what a scanner without OCR makes of a blank page). */
export async function textlessPdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([420, 560]);
  page.drawRectangle({ x: 40, y: 40, width: 300, height: 200, borderWidth: 3 });
  return Buffer.from(await doc.save());
}

/** A PNG of grey noise: a photo of nothing legible. Seeded by `seed` so runs are alike. */
export function noisePng(seed = 7, width = 400, height = 500): Buffer {
  const png = new PNG({ width, height });
  let x = seed;
  for (let i = 0; i < width * height; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    const v = x >> 23;
    png.data[i * 4] = v;
    png.data[i * 4 + 1] = v;
    png.data[i * 4 + 2] = v;
    png.data[i * 4 + 3] = 255;
  }
  return PNG.sync.write(png);
}

/** A multipart/form-data body with one file, built by hand so its bytes can be signed exactly as sent. */
export function multipartBody(field: string, filename: string, contentType: string, bytes: Buffer): { body: Buffer; contentType: string } {
  const boundary = `----pay${randomBytes(12).toString('hex')}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: ${contentType}\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { body: Buffer.concat([head, bytes, tail]), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** A signed v2 receipt upload, the way a merchant's client sends one: the signature covers the multipart bytes. */
export function uploadReceiptRequest(
  app: Express,
  m: Pick<TestMerchant, 'apiKey' | 'hmacSecret'>,
  invoiceId: string,
  bytes: Buffer,
  filename = 'receipt.png',
  declared = 'application/octet-stream',
  extra: Record<string, string> = {},
  form = multipartBody('file', filename, declared, bytes),
) {
  const path = `/api/v2/invoices/${invoiceId}/receipts`;
  const { body, contentType } = form;
  const headers = { ...signedHeaders('v2', m.hmacSecret, { method: 'POST', path, body }), ...extra };
  let req = request(app).post(path).set('x-api-key', m.apiKey).set('Content-Type', contentType);
  for (const [k, v] of Object.entries(headers)) req = req.set(k, v);
  return req.send(body);
}
