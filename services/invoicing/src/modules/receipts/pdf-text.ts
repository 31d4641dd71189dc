import { Worker } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import { projectRequire } from '../../project-require';

/** A PDF that takes longer than this to read is given up (the worker is ended and made anew). */
const PDF_TIMEOUT_MS = 20_000;
/** Pages read from one receipt: a receipt is one or two pages; a 500-page upload is not one. */
const MAX_PAGES = 5;

/**
 * The worker's source. pdf.js is ESM only, loaded with import() inside a worker thread, which
 * also keeps the parsing of an untrusted file off the service's event loop, with a memory cap
 * and a timeout: a hostile PDF can cost the worker, never the process. Fonts are not loaded
 * and nothing is evaluated (`isEvalSupported: false`): only the text layer is read.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const loaded = import(workerData.pdfjs);
parentPort.on('message', async ({ id, bytes }) => {
  try {
    const pdfjs = await loaded;
    const doc = await pdfjs.getDocument({ data: new Uint8Array(bytes), useSystemFonts: false, disableFontFace: true, isEvalSupported: false, verbosity: 0 }).promise;
    const pages = [];
    for (let n = 1; n <= Math.min(doc.numPages, workerData.maxPages); n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      let line = '';
      const lines = [];
      for (const item of content.items) {
        if (typeof item.str !== 'string') continue;
        line += item.str;
        if (item.hasEOL) { lines.push(line); line = ''; } else if (item.str !== '') { line += ' '; }
      }
      if (line) lines.push(line);
      pages.push(lines.map((l) => l.replace(/\\s+/g, ' ').trim()).filter(Boolean).join('\\n'));
    }
    await doc.destroy();
    parentPort.postMessage({ id, text: pages.join('\\n') });
  } catch (err) {
    parentPort.postMessage({ id, error: String(err && err.message || err) });
  }
});
`;

export class PdfUnreadableError extends Error {}

/** Reads the text layer of PDFs in one long-lived worker thread, one file at a time. */
export class PdfTextReader {
  private worker: Worker | null = null;
  private seq = 0;
  private queue: Promise<unknown> = Promise.resolve();

  private start(): Worker {
    if (this.worker) return this.worker;
    const pdfjs = pathToFileURL(projectRequire.resolve('pdfjs-dist/legacy/build/pdf.mjs')).href;
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { pdfjs, maxPages: MAX_PAGES }, resourceLimits: { maxOldGenerationSizeMb: 256 } });
    worker.unref();
    worker.on('error', () => undefined);
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = null;
    });
    this.worker = worker;
    return worker;
  }

  /** The PDF's text, lines joined by `\n`; throws PdfUnreadableError for a PDF pdf.js cannot read. */
  read(bytes: Buffer): Promise<string> {
    const run = this.queue.then(() => this.readNow(bytes));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private readNow(bytes: Buffer): Promise<string> {
    const worker = this.start();
    const id = ++this.seq;
    return new Promise<string>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('exit', onExit);
      };
      const onMessage = (msg: { id: number; text?: string; error?: string }) => {
        if (msg.id !== id) return;
        done();
        if (msg.error !== undefined) reject(new PdfUnreadableError(msg.error));
        else resolve(msg.text ?? '');
      };
      const onExit = () => {
        done();
        reject(new PdfUnreadableError('the PDF reader stopped (the file is too large or malformed)'));
      };
      const timer = setTimeout(() => {
        done();
        void worker.terminate();
        reject(new PdfUnreadableError(`reading the PDF took longer than ${PDF_TIMEOUT_MS} ms`));
      }, PDF_TIMEOUT_MS);
      worker.on('message', onMessage);
      worker.on('exit', onExit);
      worker.postMessage({ id, bytes });
    });
  }

  async close(): Promise<void> {
    await this.queue;
    await this.worker?.terminate();
    this.worker = null;
  }
}
