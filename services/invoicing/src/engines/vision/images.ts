import type { Sharp, SharpOptions } from 'sharp';

type SharpFactory = (input?: Buffer, options?: SharpOptions) => Sharp;
let sharpLoaded: Promise<SharpFactory> | undefined;

/**
 * sharp (libvips), loaded with the first picture a process reads: it adds about 20 MB to a
 * process, and an invoicing process that checks no KYC session and shows no review page never
 * needs it.
 */
export function loadSharp(): Promise<SharpFactory> {
  sharpLoaded ??= import('sharp').then((m) => m.default as SharpFactory);
  return sharpLoaded;
}

/** Smaller pictures cannot show a face or a document's print legibly. */
export const MIN_IMAGE_SIDE = 320;
/** A phone photo is ~12 MP; refuse decompression bombs long before memory runs out. */
const MAX_PIXELS = 40_000_000;
/** The grey copy the measures are taken on: enough detail, bounded cost (~5 ms). */
const MEASURE_SIDE = 512;
/**
 * Laplacian variance at which a picture counts as fully sharp (a focused phone photo is well
 * above), and at or below which it counts as not sharp at all; between them the measure is
 * read on a log scale, as blur shrinks the variance geometrically.
 */
const SHARP_VARIANCE = 120;
const BLURRED_VARIANCE = 5;

export interface ImageFacts {
  width: number;
  height: number;
  /** 64-bit difference hash (dHash) as 16 hex digits: near-identical pictures have near-identical hashes. */
  dhash: string;
  /** Variance of the Laplacian of the grey picture: low when blurred. */
  sharpness: number;
  /** Mean grey level, 0..255. */
  brightness: number;
}

export type ImageReading = { ok: true; facts: ImageFacts } | { ok: false; problem: string };

/**
 * Decodes a picture (PNG, JPEG, WebP) and measures it. Decoding is the check: bytes that only
 * start like an image fail here. EXIF orientation is applied first, as the customer saw it.
 */
export async function readImage(bytes: Buffer): Promise<ImageReading> {
  const sharp = await loadSharp();
  try {
    const base = () => sharp(bytes, { limitInputPixels: MAX_PIXELS, failOn: 'error' }).rotate();
    const meta = await sharp(bytes, { limitInputPixels: MAX_PIXELS, failOn: 'error' }).metadata();
    if (!meta.width || !meta.height) return { ok: false, problem: 'has no dimensions' };
    const swap = (meta.orientation ?? 1) >= 5;
    const width = swap ? meta.height : meta.width;
    const height = swap ? meta.width : meta.height;
    const grey = await base().greyscale().resize(MEASURE_SIDE, MEASURE_SIDE, { fit: 'inside', withoutEnlargement: true }).raw().toBuffer({ resolveWithObject: true });
    const tiny = await base().greyscale().resize(9, 8, { fit: 'fill' }).raw().toBuffer();
    return { ok: true, facts: { width, height, dhash: dhashOf(tiny), ...measure(grey.data, grey.info.width, grey.info.height, grey.info.channels) } };
  } catch (err) {
    return { ok: false, problem: `cannot be decoded as an image (${(err as Error).message.split('\n')[0]})` };
  }
}

/** dHash: for each of 8 rows, whether each of 8 pixels is brighter than its right neighbour. */
function dhashOf(px: Buffer): string {
  let bits = 0n;
  for (let y = 0; y < 8; y++) {
    for (let x = 0; x < 8; x++) bits = (bits << 1n) | (px[y * 9 + x]! > px[y * 9 + x + 1]! ? 1n : 0n);
  }
  return bits.toString(16).padStart(16, '0');
}

/** Bits that differ between two dHashes: 0 for the same picture (re-encoded, resized), ~32 for unrelated ones. */
export function hashDistance(a: string, b: string): number {
  let x = BigInt(`0x${a}`) ^ BigInt(`0x${b}`);
  let n = 0;
  while (x > 0n) {
    n += Number(x & 1n);
    x >>= 1n;
  }
  return n;
}

function measure(px: Buffer, w: number, h: number, channels: number): { sharpness: number; brightness: number } {
  const at = (x: number, y: number) => px[(y * w + x) * channels]!;
  let sum = 0;
  for (let i = 0; i < w * h; i++) sum += px[i * channels]!;
  let n = 0;
  let mean = 0;
  let m2 = 0;
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const lap = at(x - 1, y) + at(x + 1, y) + at(x, y - 1) + at(x, y + 1) - 4 * at(x, y);
      n++;
      const d = lap - mean;
      mean += d / n;
      m2 += d * (lap - mean);
    }
  }
  return { sharpness: n > 1 ? m2 / (n - 1) : 0, brightness: sum / (w * h) };
}

/**
 * Capture quality, 0..1: sharpness (0 at BLURRED_VARIANCE, 1 at SHARP_VARIANCE, log scale in
 * between) times exposure (1 for a mean grey from 50 to 205, falling linearly to 0 at black or white).
 */
export function captureQuality(f: ImageFacts): number {
  const sharp = Math.max(0, Math.min(1, Math.log(Math.max(f.sharpness, 1e-9) / BLURRED_VARIANCE) / Math.log(SHARP_VARIANCE / BLURRED_VARIANCE)));
  const exposure = f.brightness < 50 ? f.brightness / 50 : f.brightness > 205 ? (255 - f.brightness) / 50 : 1;
  return Math.max(0, Math.min(1, sharp * exposure));
}
