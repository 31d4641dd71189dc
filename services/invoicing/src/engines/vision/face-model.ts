import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { ShutdownAbort, type Logger } from '@pay/runtime';
import { PROJECT_MANIFEST, projectRequire } from '../../project-require';

/** One face found by the model: its 128-number descriptor and the detector's confidence. */
export interface Face {
  descriptor: Float32Array;
  /** SSD MobileNet v1 confidence, 0.5..1 (lower ones are not faces). */
  confidence: number;
}

export interface FaceModelOptions {
  /** The worker (and its ~350 MB) is ended after this long without a request; the next one starts it again. */
  idleMs: number;
  /** Bound on starting the worker: loading the WASM backend, the three nets and the warm-up (2–3 s on an idle machine). */
  startTimeoutMs?: number;
  /** Bound on describing the pictures of one check (~0.3–0.5 s each on an idle machine). */
  requestTimeoutMs?: number;
  /** Told when the model loads and unloads. */
  logger?: Pick<Logger, 'info'>;
}

const START_TIMEOUT_MS = 120_000;
const REQUEST_TIMEOUT_MS = 60_000;

/**
 * The worker's source (CommonJS, loaded with `eval`, as the PDF reader's is). It holds the
 * whole model: @vladmandic/face-api's Node WASM build (not the package main, which needs the
 * native tfjs-node) on TensorFlow.js's WASM backend, whose .wasm files are read from the
 * @tensorflow/tfjs-backend-wasm package on disk, and the weights that ship in face-api's
 * `model/` folder. Nothing is fetched. The backend's Emscripten runtime installs process-wide
 * handlers for uncaught exceptions and unhandled rejections that end the process: in a
 * worker thread they can end only the worker.
 *
 * Per picture: decoded by sharp (EXIF orientation applied, at most 640 px a side, RGB), the
 * face with the highest confidence found by SSD MobileNet v1 (confidence ≥ 0.5), its 68
 * landmarks aligned, and its descriptor computed by the recognition net (a ResNet-34 ported
 * from dlib's face recognition model). A tight crop of a face gives SSD too little context, so a picture without a face is
 * tried again inside a 100 px border.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const load = require('node:module').createRequire(workerData.manifest);
const sharp = load('sharp');
const faceapi = load('@vladmandic/face-api/dist/face-api.node-wasm.js');
const tf = faceapi.tf;
const detector = new faceapi.SsdMobilenetv1Options({ minConfidence: 0.5 });

async function start() {
  await tf.setBackend('wasm');
  await tf.ready();
  for (const net of [faceapi.nets.ssdMobilenetv1, faceapi.nets.faceLandmark68Net, faceapi.nets.faceRecognitionNet]) {
    await net.loadFromDisk(workerData.modelDir);
  }
  // The first run of each net prepares its kernels (2-3 s): done here, not in a customer's check.
  const blank = tf.zeros([160, 160, 3], 'int32');
  try {
    await faceapi.detectSingleFace(blank, detector);
    await faceapi.nets.faceLandmark68Net.detectLandmarks(blank);
    await faceapi.nets.faceRecognitionNet.computeFaceDescriptor(blank);
  } finally {
    blank.dispose();
  }
}

async function describe(bytes, pad) {
  const { data, info } = await sharp(bytes, { limitInputPixels: workerData.maxPixels, failOn: 'error' })
    .rotate()
    .resize(workerData.maxSide, workerData.maxSide, { fit: 'inside', withoutEnlargement: true })
    .extend({ top: pad, bottom: pad, left: pad, right: pad, background: { r: 128, g: 128, b: 128 } })
    .removeAlpha()
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  const input = tf.tensor3d(data, [info.height, info.width, 3], 'int32');
  try {
    const found = await faceapi.detectSingleFace(input, detector).withFaceLandmarks().withFaceDescriptor();
    return found ? { descriptor: found.descriptor, confidence: found.detection.score } : null;
  } finally {
    input.dispose();
  }
}

const started = start();
started.then(() => parentPort.postMessage({ ready: true }), (err) => parentPort.postMessage({ ready: false, error: String((err && err.stack) || err) }));

parentPort.on('message', async ({ id, images }) => {
  try {
    await started;
    const faces = [];
    for (const bytes of images) faces.push((await describe(bytes, 0)) || (await describe(bytes, workerData.pad)));
    parentPort.postMessage({ id, faces });
  } catch (err) {
    parentPort.postMessage({ id, error: String((err && err.message) || err) });
  }
});
`;

type Reply = { id: number; faces?: (Face | null)[]; error?: string };

const closedError = () => new ShutdownAbort('the face model is closed: the process is shutting down');

/**
 * The face model, run in a worker thread of its own: started with the first KYC check (an
 * invoicing process that checks none never loads TensorFlow.js), kept warm while checks come,
 * and ended after `idleMs` without one, so its memory (~350 MB) goes back to the system.
 * Pictures are described one request at a time (the model uses a core fully).
 */
export class FaceModel {
  private worker: Worker | null = null;
  private ready: Promise<void> | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private seq = 0;
  private idleTimer: NodeJS.Timeout | null = null;
  private closed = false;
  /** Workers started so far (tests and logs: a start is the expensive part). */
  starts = 0;

  constructor(private readonly opts: FaceModelOptions) {}

  /** Whether the model is loaded now (its worker thread is running). */
  get loaded(): boolean {
    return this.worker !== null;
  }

  /** Loads the model now, so that the next check does not wait for it. */
  async warm(): Promise<void> {
    await this.describe([]);
  }

  /** The face in each picture (null where none is found), in order. */
  describe(images: Buffer[]): Promise<(Face | null)[]> {
    const run = this.queue.then(() => this.describeNow(images));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private start(): { worker: Worker; ready: Promise<void> } {
    if (this.worker && this.ready) return { worker: this.worker, ready: this.ready };
    const modelDir = join(projectRequire.resolve('@vladmandic/face-api/package.json'), '..', 'model');
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { manifest: PROJECT_MANIFEST, modelDir, maxSide: 640, pad: 100, maxPixels: 40_000_000 },
    });
    worker.unref();
    this.starts++;
    const startedAt = performance.now();
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => fail(new Error(`loading the face model took longer than ${this.opts.startTimeoutMs ?? START_TIMEOUT_MS} ms`)), this.opts.startTimeoutMs ?? START_TIMEOUT_MS);
      const fail = (err: Error) => {
        clearTimeout(timer);
        void this.stop(worker);
        reject(err);
      };
      const onExit = (code: number) => fail(this.closed ? closedError() : new Error(`the face model's worker stopped while loading (exit code ${code})`));
      const onReady = (msg: { ready?: boolean; error?: string }) => {
        if (msg.ready === undefined) return;
        worker.off('message', onReady);
        worker.off('exit', onExit);
        clearTimeout(timer);
        if (msg.ready) {
          this.opts.logger?.info({ ms: Math.round(performance.now() - startedAt) }, 'face model loaded');
          resolve();
        } else fail(new Error(`the face model did not load: ${msg.error}`));
      };
      worker.on('message', onReady);
      worker.once('exit', onExit);
    });
    ready.catch(() => undefined);
    worker.on('error', () => undefined);
    worker.on('exit', () => {
      if (this.worker === worker) {
        this.worker = null;
        this.ready = null;
      }
    });
    this.worker = worker;
    this.ready = ready;
    return { worker, ready };
  }

  private async describeNow(images: Buffer[]): Promise<(Face | null)[]> {
    if (this.closed) throw closedError();
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    try {
      const { worker, ready } = this.start();
      await ready;
      return await this.request(worker, images);
    } finally {
      if (!this.closed) {
        this.idleTimer = setTimeout(() => void this.idle(), this.opts.idleMs);
        this.idleTimer.unref();
      }
    }
  }

  private request(worker: Worker, images: Buffer[]): Promise<(Face | null)[]> {
    const id = ++this.seq;
    const ms = this.opts.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('exit', onExit);
      };
      const onMessage = (msg: Reply) => {
        if (msg.id !== id) return;
        done();
        if (msg.error !== undefined) reject(new Error(`the face model failed: ${msg.error}`));
        else resolve(msg.faces!);
      };
      const onExit = (code: number) => {
        done();
        reject(this.closed ? closedError() : new Error(`the face model's worker stopped (exit code ${code})`));
      };
      // A worker that hung is not trusted with the next check: it is ended, the next starts anew.
      const timer = setTimeout(() => {
        done();
        void this.stop(worker);
        reject(new Error(`the face model took longer than ${ms} ms`));
      }, ms);
      worker.on('message', onMessage);
      worker.on('exit', onExit);
      worker.postMessage({ id, images });
    });
  }

  /** Ends the worker when nothing is waiting (a request queued meanwhile restarts the timer). */
  private async idle(): Promise<void> {
    this.idleTimer = null;
    if (!this.worker) return;
    await this.stop(this.worker);
    this.opts.logger?.info({ idleMs: this.opts.idleMs }, 'face model unloaded after being idle');
  }

  private async stop(worker: Worker): Promise<void> {
    if (this.worker === worker) {
      this.worker = null;
      this.ready = null;
    }
    await worker.terminate();
  }

  /**
   * Aborts rather than waits: the worker is ended at once, so a request in flight (or a model
   * still loading) rejects, and so does every request queued or made after. A check takes a
   * minute and more on a loaded machine, longer than a shutdown may take; its job fails and
   * runs again (BullMQ's retry, or the reconciler's re-add), and nothing was decided, since a
   * decision is one transaction at the end of a check. Resolves once every request has settled.
   */
  async close(): Promise<void> {
    this.closed = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    if (this.worker) await this.stop(this.worker);
    await this.queue;
  }
}

/** Euclidean distance between two descriptors: about 0–0.55 for two pictures of one person, 0.65 and more for two people. */
export function descriptorDistance(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i]! - b[i]!) ** 2;
  return Math.sqrt(sum);
}
