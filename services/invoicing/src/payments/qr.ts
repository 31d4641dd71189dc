import { crc32 } from 'node:zlib';
import { Adler32, countCopy, DeflateCode, DeflateWriter } from './deflate';
import { encodeQr, LEVEL_M } from './qr-encode';
import { bestMaskPattern, remask, type QrModules } from './qr-mask';

/** Pixels per module: two modules a byte (see qrPngDataUri). */
const SCALE = 4;
/** Modules of quiet zone: 8 pixels, one byte of each scanline. */
const MARGIN = 2;
/** The byte of two modules (first, second; 1 = dark), 1 bit a pixel with 1 = white. */
const TWO_MODULES = Uint8Array.of(0xff, 0xf0, 0x0f, 0x00);
const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Writes a PNG chunk (length, type, data, CRC of type and data) at `at` of `out`; returns where it ends. */
function writeChunk(out: Buffer, at: number, type: string, data: Uint8Array): number {
  out.writeUInt32BE(data.length, at);
  out.write(type, at + 4, 'ascii');
  out.set(data, at + 8);
  const end = at + 8 + data.length;
  out.writeUInt32BE(crc32(out.subarray(at + 4, end)) >>> 0, end);
  return end + 4;
}

/**
 * The symbol of `payload` (byte mode, error correction M) with the mask pattern the `qrcode`
 * library itself would choose: drawn once with pattern 0 (qr-encode.ts, the library's modules
 * from per-version templates), the best pattern chosen by `bestMaskPattern`, then `remask` turns
 * that drawing into the one with it (the same modules as the library's own drawing, which
 * qr-encode.test.ts and qr-mask.test.ts check).
 */
function qrSymbol(payload: string): QrModules {
  const modules = encodeQr(payload);
  remask(modules, 0, LEVEL_M, bestMaskPattern(modules, 0, LEVEL_M));
  return modules;
}

/**
 * Adds to `adler` the block of `line` followed by `repeats` Up-filtered copies of it (each a
 * filter byte of 2, then zeros): its sums computed from the one line, not from the block's bytes.
 */
function addScanlines(adler: Adler32, line: Uint8Array, repeats: number): void {
  const stride = line.length;
  const length = stride * (repeats + 1);
  let sum = 2 * repeats;
  let weighted = 0;
  for (let i = 0; i < stride; i++) {
    sum += line[i]!;
    weighted += (length - i) * line[i]!;
  }
  for (let r = 1; r <= repeats; r++) weighted += 2 * (length - r * stride);
  adler.add(length, sum, weighted);
}

/** What every image of one symbol size shares (pngLayout). */
interface PngLayout {
  /** Width and height in pixels. */
  px: number;
  /** Bytes a scanline: its filter byte, then 1 bit a pixel. */
  stride: number;
  /** A white scanline (filter 0): the margins, and each row before its modules are drawn. Never written to. */
  white: Uint8Array;
  /** The deflate codes its images are written with. */
  code: DeflateCode;
}

const layouts = new Map<number, PngLayout>();

/**
 * The scanline length of a symbol of `size` modules, and Huffman codes made once for all its
 * images: from the counts of the bytes and copies such an image is written with (qrPngDataUri),
 * its modules taken as dark or light alike and independently (masking keeps them close to
 * half dark). So an image is written without counting its own, and compresses within 5% of
 * zlib at its best (qr.test.ts); every symbol an image of this size can use is counted, so has
 * a code.
 */
function pngLayout(size: number): PngLayout {
  let layout = layouts.get(size);
  if (!layout) {
    const px = (size + 2 * MARGIN) * SCALE;
    const stride = Math.ceil(px / 8) + 1; // a filter byte, then 1 bit per pixel
    const pairs = Math.ceil(size / 2); // the bytes of a row that hold modules
    const lit = new Uint32Array(286);
    const dist = new Uint32Array(30);
    const margins = 2;
    // The margins: a white scanline (filter 0, then 0xFF), a filter byte 2 and a zero, and copies.
    lit[0]! += margins * 2;
    lit[2]! += margins;
    lit[0xff]! += margins * (stride - 1);
    countCopy(lit, dist, stride - 2, 1, margins);
    countCopy(lit, dist, (MARGIN * SCALE - 2) * stride, stride, margins);
    // Each module row: filter 0, white bytes around its module bytes (a quarter each of the four pairs), and its repeats.
    lit[0]! += size;
    lit[0xff]! += size * (stride - 1 - pairs);
    for (const pair of TWO_MODULES) lit[pair]! += Math.max(1, Math.round((size * pairs) / 4));
    countCopy(lit, dist, (SCALE - 1) * stride, SCALE * stride, size);
    const white = new Uint8Array(stride).fill(0xff);
    white[0] = 0;
    layout = { px, stride, white, code: new DeflateCode(lit, dist) };
    layouts.set(size, layout);
  }
  return layout;
}

/**
 * The QR code of `payload` as a `data:image/png;base64,…` URI: 1-bit greyscale, 4 pixels a
 * module, a quiet zone of 2 modules. Encoded by qr-encode.ts, the mask chosen and applied by
 * qr-mask.ts, and its pixels compressed by deflate.ts from the rows' structure with the codes of
 * its size (pngLayout), a symbol costs ≈78 µs on a slow day (version 6: encoding 18, choosing
 * the mask 45, the PNG 15) against ≈3.2 ms for the library's own `toDataURL` (RGBA PNG) of the
 * same image.
 * Invoices store the result once (at create, or at the first view of one written without it:
 * withQrCodes), so later reads never draw it again.
 *
 * The image data: each module row is SCALE scanlines. The first is written as it is (filter
 * 0, 1 bit a pixel, 1 = white); the other SCALE − 1 repeat it, Up-filtered (type 2), so they
 * are zeros, which deflate copies from the row above (it ends in the same zeros). The quiet
 * zone at the top and bottom is a white scanline and Up-filtered repeats. (Two module rows
 * alike are too rare to look for: 1 in 130,000 rows of payment links and random payloads.)
 */
export function qrPngDataUri(payload: string): string {
  const { size, data } = qrSymbol(payload);
  const { px, stride, white, code } = pngLayout(size);
  const tokens = new DeflateWriter(code, (stride * (size + 2)) >> 1);
  const adler = new Adler32();
  const writeMargin = () => {
    tokens.bytes(white);
    tokens.byte(2); // the first repeat: its filter byte, then zeros (a run: copies of the byte before)
    tokens.byte(0);
    tokens.copy(stride - 2, 1);
    tokens.copy((MARGIN * SCALE - 2) * stride, stride);
    addScanlines(adler, white, MARGIN * SCALE - 1);
  };
  writeMargin();
  // A byte is two modules (4 pixels each), the margin one byte: each byte of a row is looked
  // up from its two modules, with no branch on their colours (close to random, so a branch
  // would be mispredicted half the time). Past the last module, the pixels stay white.
  const line = new Uint8Array(stride);
  for (let my = 0; my < size; my++) {
    line.set(white);
    for (let mx = 0, at = my * size, byte = 1 + (MARGIN * SCALE) / 8; mx < size; mx += 2, at += 2, byte++) {
      line[byte] = TWO_MODULES[data[at]! * 2 + (mx + 1 < size ? data[at + 1]! : 0)]!;
    }
    tokens.bytes(line);
    // The repeats: the zeros that end the block above (the margin's or a row's), SCALE·stride back.
    tokens.copy((SCALE - 1) * stride, SCALE * stride);
    addScanlines(adler, line, SCALE - 1);
  }
  writeMargin();
  const idat = tokens.zlib(adler.value);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(px, 0);
  header.writeUInt32BE(px, 4);
  header[8] = 1; // bit depth
  header[9] = 0; // greyscale
  // One buffer for the whole file: signature, then IHDR, IDAT and IEND (12 bytes each + data).
  const png = Buffer.allocUnsafe(SIGNATURE.length + 12 * 3 + header.length + idat.length);
  SIGNATURE.copy(png, 0);
  let at = writeChunk(png, SIGNATURE.length, 'IHDR', header);
  at = writeChunk(png, at, 'IDAT', idat);
  writeChunk(png, at, 'IEND', new Uint8Array(0));
  return `data:image/png;base64,${png.toString('base64')}`;
}
