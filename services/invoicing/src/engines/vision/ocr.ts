import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Worker, WorkerParams } from 'tesseract.js';
import { ShutdownAbort } from '@pay/runtime';
import { projectRequire } from '../../project-require';

/** What OCR read from an image: its text and tesseract's own mean confidence, 0 to 1. */
export interface OcrResult {
  text: string;
  confidence: number;
}

export interface OcrOptions {
  /** Where eng and rus traineddata are laid out for tesseract (made on first use). */
  langDir?: string;
  /** Russian traineddata on disk (Debian's tesseract-ocr-rus; npm has no package of it). */
  rusTrainedData: string;
}

export type OcrLanguage = 'eng' | 'rus';

/**
 * tesseract's engines: 'lstm' (the neural net, best on ordinary print) or 'legacy' (the
 * character classifier, which reads a fixed-pitch font with a whitelist more faithfully: the
 * LSTM reads OCR-B's `<` as K, L or C). Legacy needs English data with its legacy model, the
 * package's full `4.0.0` build, laid out in a `legacy` folder of its own.
 */
export type OcrEngine = 'lstm' | 'legacy';

/** What one OCR engine reads: its languages, and tesseract parameters set once it starts. */
export interface OcrSetup {
  /** Default: Russian and English at once (receipts). Legacy: English only. */
  languages?: OcrLanguage[];
  /** Default 'lstm'. */
  engine?: OcrEngine;
  /** E.g. a character whitelist or a page segmentation mode, for every image this engine reads. */
  parameters?: Partial<WorkerParams>;
}

/** Startup of the WASM core and language data can hang on a broken install: give up after this. */
const INIT_TIMEOUT_MS = 60_000;
const RECOGNIZE_TIMEOUT_MS = 60_000;

/**
 * Lays out `eng.traineddata` (from the @tesseract.js-data/eng package, best_int model,
 * gunzipped) and `rus.traineddata` (copied from the system's tessdata) in one directory, the
 * only form tesseract.js takes (one `langPath`, one `gzip` setting for every language); only
 * the `languages` asked for. For the legacy engine, English with its legacy model (the full
 * `4.0.0` build) in a `legacy` subfolder. Nothing is downloaded: a missing file is an error naming it.
 */
export async function prepareLanguageData(opts: OcrOptions, languages: OcrLanguage[] = ['rus', 'eng'], engine: OcrEngine = 'lstm'): Promise<string> {
  if (engine === 'legacy' && languages.includes('rus')) throw new Error('The legacy OCR engine is set up for English only');
  const dir = join(opts.langDir ?? join(tmpdir(), 'pay-tessdata'), engine === 'legacy' ? 'legacy' : '');
  await mkdir(dir, { recursive: true });
  // Each file is written under a name of its own and renamed: processes sharing the folder
  // never read a half-written file.
  const place = async (path: string, bytes: () => Promise<Buffer>) => {
    if (await exists(path)) return;
    const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(tmp, await bytes());
    await rename(tmp, path);
  };
  if (languages.includes('eng')) {
    const build = engine === 'legacy' ? '4.0.0' : '4.0.0_best_int';
    await place(join(dir, 'eng.traineddata'), async () => gunzipSync(await readFile(projectRequire.resolve(`@tesseract.js-data/eng/${build}/eng.traineddata.gz`))));
  }
  if (!languages.includes('rus')) return dir;
  await place(join(dir, 'rus.traineddata'), async () => {
    if (!(await exists(opts.rusTrainedData))) {
      throw new Error(`Russian OCR data not found at ${opts.rusTrainedData}: install Debian's tesseract-ocr-rus (scripts/bootstrap.sh does) or set OCR_RUS_TRAINEDDATA`);
    }
    return readFile(opts.rusTrainedData);
  });
  return dir;
}

const exists = (path: string) =>
  stat(path).then(
    (s) => s.size > 0,
    () => false,
  );

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms)))]).finally(() =>
    clearTimeout(timer),
  );
}

const closedError = () => new ShutdownAbort('the OCR is closed: the process is shutting down');

/**
 * Real OCR with tesseract.js (WASM core from the local tesseract.js-core package, in a worker
 * thread of its own), by default Russian and English at once (receipts); the KYC MRZ reader
 * uses one of its own, English only with a character whitelist (`setup`). One tesseract worker
 * per instance, created on first use and kept warm; images are read one at a time (tesseract
 * uses a core fully).
 */
export class ImageOcr {
  private worker: Promise<Worker> | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly languages: OcrLanguage[];
  private closed = false;
  /** Rejects the read in flight (close): tesseract.js's terminate leaves its promise pending. */
  private abortRead: ((err: Error) => void) | null = null;

  constructor(
    private readonly opts: OcrOptions,
    private readonly setup: OcrSetup = {},
  ) {
    this.languages = setup.languages ?? ['rus', 'eng'];
  }

  /** Starts the worker now (else the first receipt pays the cold start). */
  warm(): Promise<void> {
    return this.start().then(() => undefined);
  }

  private start(): Promise<Worker> {
    this.worker ??= (async () => {
      const engine = this.setup.engine ?? 'lstm';
      const langPath = await prepareLanguageData(this.opts, this.languages, engine);
      // Loaded on the first receipt, so a process that never checks one does not pay for it.
      const { createWorker, OEM } = await import('tesseract.js');
      // `errorHandler` would make createWorker hang on failure, hence the timeout instead.
      const worker = await within(
        createWorker(this.languages, engine === 'legacy' ? OEM.TESSERACT_ONLY : OEM.LSTM_ONLY, {
          langPath,
          gzip: false,
          // Its worker script and WASM core come from tesseract.js's own node_modules (its defaults).
          cacheMethod: 'none',
        }),
        INIT_TIMEOUT_MS,
        'starting the OCR',
      );
      if (this.setup.parameters) await worker.setParameters(this.setup.parameters);
      return worker;
    })().catch((err: unknown) => {
      this.worker = null;
      throw err;
    });
    return this.worker;
  }

  /** `parameters`: tesseract parameters set for this image and kept for the next ones (pass every one that varies, every time). */
  read(image: Buffer, parameters?: Partial<WorkerParams>): Promise<OcrResult> {
    const run = this.queue.then(async () => {
      const aborted = new Promise<never>((_, reject) => (this.abortRead = reject));
      aborted.catch(() => undefined);
      try {
        if (this.closed) throw closedError();
        const worker = await Promise.race([this.start(), aborted]);
        if (parameters) await Promise.race([worker.setParameters(parameters), aborted]);
        const { data } = await Promise.race([within(worker.recognize(image), RECOGNIZE_TIMEOUT_MS, 'OCR of the image'), aborted]);
        return { text: data.text, confidence: Math.max(0, Math.min(1, data.confidence / 100)) };
      } catch (err) {
        // A worker that failed or hung is not trusted with the next image: start a new one.
        await this.endWorker();
        throw err;
      } finally {
        this.abortRead = null;
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async endWorker(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await (await worker.catch(() => null))?.terminate();
  }

  /**
   * Aborts rather than waits: the read in flight rejects at once, and so does every read queued
   * or made after; the worker is ended. A KYC check or a receipt's OCR takes a minute and more
   * on a loaded machine, longer than a shutdown may take: its job fails and runs again
   * (BullMQ's retry or the reconciler). Resolves once every read has settled.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.abortRead?.(closedError());
    await this.endWorker();
    await this.queue;
  }
}
