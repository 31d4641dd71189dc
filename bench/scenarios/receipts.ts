/**
 * Receipt checks (issue 10): OCR time per receipt image, cold (a new tesseract worker: WASM
 * core and rus+eng language data loaded, then the first image) and warm (the same worker on
 * the next images), pdf.js text time per PDF receipt, and receipts checked per minute by one
 * worker (concurrency 1, as RUN_WORKERS runs it): signed uploads through the API, the outbox,
 * the relay, BullMQ, OCR, the decision and its transaction, all real.
 *
 * In process rather than the production bundle: the bench builds bundles outside the project
 * folder, where the bundle cannot find the OCR language data it resolves from the project.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openBrowser } from '@pay/testing';
import { ImageOcr } from '../../services/invoicing/src/engines/vision/ocr';
import { PdfTextReader } from '../../services/invoicing/src/modules/receipts/pdf-text';
import type { BenchConfig } from '../lib/config';
import type { MeasuredSuite, Measurement } from '../lib/types';
import { countReceipts, newMerchant, startInvoicingApp, v2Request, moscowDay, receiptPdf, receiptPng, uploadReceiptRequest } from '@pay/invoicing/test';

const RECEIPTS = Number(process.env.BENCH_RECEIPTS ?? 30);
const WARM_RUNS = Number(process.env.BENCH_OCR_RUNS ?? 10);
const RUS = process.env.OCR_RUS_TRAINEDDATA ?? '/usr/share/tesseract-ocr/5/tessdata/rus.traineddata';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t = performance.now();
  const out = await fn();
  return [out, performance.now() - t];
}

export const receiptSuite: MeasuredSuite = {
  name: 'receipts',
  scenarios: ['receipts.ocr', 'receipts.throughput'],
  async run(config: BenchConfig, only): Promise<Measurement[]> {
    const rows: Measurement[] = [];
    const browser = await openBrowser();
    // Receipts as a phone would upload them: screenshots of a bank app's receipt (Chromium), each a little different.
    const images: Buffer[] = [];
    for (let i = 0; i < Math.max(RECEIPTS, WARM_RUNS + 1); i++) {
      images.push(await receiptPng(browser.context, { amount: '1 490,90 ₽', date: `${moscowDay(0)} 10:${String(i % 60).padStart(2, '0')}` }));
    }
    await browser.close();
    try {
      if (only('receipts.ocr')) {
        // A language folder of its own, so "cold" includes laying the data out too, as a fresh process does.
        const langDir = mkdtempSync(join(tmpdir(), 'bench-tessdata-'));
        const ocr = new ImageOcr({ langDir, rusTrainedData: RUS });
        const [, cold] = await timed(() => ocr.read(images[0]!));
        const warm: number[] = [];
        for (let i = 1; i <= WARM_RUNS; i++) warm.push((await timed(() => ocr.read(images[i]!)))[1]);
        await ocr.close();
        rmSync(langDir, { recursive: true, force: true });
        const pdfReader = new PdfTextReader();
        const pdf = await receiptPdf({ amount: '1,490.90 RUB', date: moscowDay(0) });
        const [, pdfCold] = await timed(() => pdfReader.read(pdf));
        const pdfWarm: number[] = [];
        for (let i = 0; i < WARM_RUNS; i++) pdfWarm.push((await timed(() => pdfReader.read(pdf)))[1]);
        await pdfReader.close();
        rows.push(
          { scenario: 'receipts.ocr', what: 'OCR of one receipt PNG (430 px wide, rus+eng), cold: new worker, language data, first image', value: cold, unit: 'ms' },
          { scenario: 'receipts.ocr', what: `OCR of one receipt PNG, warm (median of ${WARM_RUNS})`, value: median(warm), unit: 'ms' },
          { scenario: 'receipts.ocr', what: 'PDF text layer of one receipt, cold (worker thread, pdf.js loaded)', value: pdfCold, unit: 'ms' },
          { scenario: 'receipts.ocr', what: `PDF text layer of one receipt, warm (median of ${WARM_RUNS})`, value: median(pdfWarm), unit: 'ms' },
        );
        console.log(`  receipts.ocr: cold ${Math.round(cold)} ms, warm ${Math.round(median(warm))} ms; PDF cold ${Math.round(pdfCold)} ms, warm ${median(pdfWarm).toFixed(1)} ms`);
      }

      if (only('receipts.throughput')) {
        const dir = mkdtempSync(join(tmpdir(), 'bench-receipts-'));
        const app = await startInvoicingApp({
          background: true,
          env: {
            DATABASE_URL: config.databaseUrl,
            REDIS_URL: config.redisUrl,
            SECRETS_KEY: 'be'.repeat(32),
            LOG_LEVEL: 'warn',
            QUEUE_PREFIX: `bench-${Date.now()}`,
            RECEIPTS_DIR: dir,
            RECEIPT_WORKER_CONCURRENCY: '1',
            RATE_LIMIT_PER_SECOND: '100000',
          },
          poolSize: 4,
        });
        try {
          const m = await newMerchant(app.deps);
          const inv = await v2Request(app.app, m, 'post', '/api/v2/invoices', { amount: 1490.9, expiresInHours: 2 });
          // Warm the worker first: throughput is a steady state; the cold start is the row above.
          const first = await uploadReceiptRequest(app.app, m, inv.body.invoice.id, images[0]!);
          const decided = (ids: string[]) => countReceipts(app.deps.db, ids, 'decided');
          while ((await decided([first.body.receipt.id])) < 1) await sleep(50);
          const ids: string[] = [];
          // One invoice per receipt, as customers upload them (an invoice takes at most 20).
          const invoices: string[] = [];
          for (let i = 0; i < RECEIPTS; i++) invoices.push((await v2Request(app.app, m, 'post', '/api/v2/invoices', { amount: 1490.9, expiresInHours: 2 })).body.invoice.id);
          const started = performance.now();
          for (let i = 0; i < RECEIPTS; i++) {
            const res = await uploadReceiptRequest(app.app, m, invoices[i]!, images[i % images.length]!);
            if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${JSON.stringify(res.body)}`);
            ids.push(res.body.receipt.id);
          }
          while ((await decided(ids)) < ids.length) await sleep(50);
          const minutes = (performance.now() - started) / 60_000;
          const approved = await countReceipts(app.deps.db, ids, 'APPROVED');
          rows.push({
            scenario: 'receipts.throughput',
            what: `${RECEIPTS} PNG receipts uploaded through the API, checked by one worker (concurrency 1, OCR warm); ${approved} approved`,
            value: RECEIPTS / minutes,
            unit: 'receipts/min',
          });
          console.log(`  receipts.throughput: ${Math.round(RECEIPTS / minutes)} receipts/min (${approved}/${RECEIPTS} approved)`);
        } finally {
          await app.close();
          rmSync(dir, { recursive: true, force: true });
        }
      }
      return rows;
    } finally {
      await browser.close().catch(() => undefined);
    }
  },
};
