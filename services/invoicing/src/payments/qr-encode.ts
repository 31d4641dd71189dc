/**
 * The QR symbol of a payload in byte mode at error correction level M, drawn with mask
 * pattern 0: exactly the modules `QRCode.create([{ data, mode: 'byte' }], { errorCorrectionLevel:
 * 'M', maskPattern: 0 })` gives (qr-encode.test.ts compares them on thousands of payloads), at
 * about a third of its cost (0.018 against 0.057 ms for a payment link, median of 17 rounds).
 *
 * Why: an SBP invoice's QR is drawn in `POST /api/v2/invoices`, and the library rebuilds for
 * each symbol what depends only on its version: the function patterns, which modules are
 * reserved, and the zigzag order in which data bits are placed (a `BitMatrix.isReserved` call
 * per module). Here that is made once per version (`templateOf`, from the library's own drawing
 * of any payload of that version), and a payload costs its codewords (the library's tables, a
 * Reed-Solomon remainder per block) and one pass over the data modules. Nothing of the standard
 * is reimplemented that the test does not hold against the library.
 */
import QRCode from 'qrcode';
import type { QrModules } from './qr-mask';

/* eslint-disable @typescript-eslint/no-require-imports -- the library's own tables, version-pinned */
const ECLevel: { M: { bit: number } } = require('qrcode/lib/core/error-correction-level');
const ECCode: { getBlocksCount(v: number, l: object): number; getTotalCodewordsCount(v: number, l: object): number } = require('qrcode/lib/core/error-correction-code');
const Version: { getCapacity(v: number, l: object, mode: object): number } = require('qrcode/lib/core/version');
const Mode: { BYTE: object; getCharCountIndicator(mode: object, v: number): number } = require('qrcode/lib/core/mode');
const Utils: { getSymbolTotalCodewords(v: number): number } = require('qrcode/lib/core/utils');
const GF: { mul(x: number, y: number): number } = require('qrcode/lib/core/galois-field');
const Polynomial: { generateECPolynomial(degree: number): Uint8Array } = require('qrcode/lib/core/polynomial');
/* eslint-enable @typescript-eslint/no-require-imports */

export const LEVEL_M = ECLevel.M;

/** What does not depend on the payload, per version. */
interface Template {
  size: number;
  /** The symbol's function patterns and format bits (mask 0), as the library draws them. */
  modules: Uint8Array;
  reservedBit: Uint8Array;
  /** The data modules in the order the codeword bits fill them. */
  order: Int32Array;
  /** Mask pattern 0 at each of those modules ((row + column) even): XORed into its bit. */
  mask0: Uint8Array;
  dataCodewords: number;
  /** Data codewords per block, in block order; then the EC codewords per block. */
  blockSizes: number[];
  ecCount: number;
  /** The generator's coefficients after the leading 1, as GF(256) multiplication rows. */
  generator: Uint8Array[];
  countBits: number;
}

const templates = new Map<number, Template>();

function templateOf(version: number): Template {
  let t = templates.get(version);
  if (t) return t;
  const capacity = Version.getCapacity(version, LEVEL_M, Mode.BYTE);
  const probe = QRCode.create([{ data: Buffer.alloc(capacity, 0x41), mode: 'byte' }], { errorCorrectionLevel: 'M', maskPattern: 0, version });
  const { size, data, reservedBit } = probe.modules as unknown as QrModules;
  // The zigzag the library's setupData walks: column pairs from the right, up then down,
  // skipping the vertical timing column (6) and every reserved module.
  const order: number[] = [];
  let inc = -1;
  let row = size - 1;
  for (let col = size - 1; col > 0; col -= 2) {
    if (col === 6) col--;
    for (;;) {
      for (let c = 0; c < 2; c++) if (!reservedBit[row * size + col - c]) order.push(row * size + col - c);
      row += inc;
      if (row < 0 || size <= row) {
        row -= inc;
        inc = -inc;
        break;
      }
    }
  }
  const totalCodewords = Utils.getSymbolTotalCodewords(version);
  const ecTotal = ECCode.getTotalCodewordsCount(version, LEVEL_M);
  const dataCodewords = totalCodewords - ecTotal;
  const blocks = ECCode.getBlocksCount(version, LEVEL_M);
  const inGroup2 = totalCodewords % blocks;
  const dataInGroup1 = Math.floor(dataCodewords / blocks);
  const ecCount = Math.floor(totalCodewords / blocks) - dataInGroup1;
  const poly = Polynomial.generateECPolynomial(ecCount);
  const generator = Array.from(poly.subarray(1), (g) => Uint8Array.from({ length: 256 }, (_, f) => GF.mul(g, f)));
  t = {
    size,
    modules: Uint8Array.from(data),
    reservedBit: Uint8Array.from(reservedBit),
    order: Int32Array.from(order),
    mask0: Uint8Array.from(order, (at) => ((Math.floor(at / size) + (at % size)) % 2 === 0 ? 1 : 0)),
    dataCodewords,
    blockSizes: Array.from({ length: blocks }, (_, b) => (b < blocks - inGroup2 ? dataInGroup1 : dataInGroup1 + 1)),
    ecCount,
    generator,
    countBits: Mode.getCharCountIndicator(Mode.BYTE, version),
  };
  templates.set(version, t);
  return t;
}

/** The smallest version whose level-M byte capacity holds `length` bytes (the library's choice). */
function versionFor(length: number): number {
  for (let v = 1; v <= 40; v++) if (length <= Version.getCapacity(v, LEVEL_M, Mode.BYTE)) return v;
  throw new Error('The amount of data is too big to be stored in a QR Code');
}

/** The data codewords: mode, count, the bytes, terminator, bit padding, then 0xEC 0x11 pad bytes. */
function dataCodewordsOf(bytes: Uint8Array, t: Template): Uint8Array {
  const out = new Uint8Array(t.dataCodewords);
  let bit = 0;
  const put = (value: number, length: number) => {
    for (let i = length - 1; i >= 0; i--, bit++) if ((value >>> i) & 1) out[bit >> 3]! |= 0x80 >> (bit & 7);
  };
  put(0b0100, 4);
  put(bytes.length, t.countBits);
  for (const b of bytes) put(b, 8);
  const capacityBits = t.dataCodewords * 8;
  if (bit + 4 <= capacityBits) bit += 4;
  bit = (bit + 7) & ~7;
  for (let i = 0; bit < capacityBits; i++, bit += 8) out[bit >> 3] = i % 2 ? 0x11 : 0xec;
  return out;
}

/** The Reed-Solomon remainder of one block (its EC codewords), by the generator's multiplication rows. */
function ecOf(block: Uint8Array, t: Template): Uint8Array {
  const n = t.ecCount;
  const ec = new Uint8Array(n);
  for (const d of block) {
    const factor = d ^ ec[0]!;
    ec.copyWithin(0, 1);
    ec[n - 1] = 0;
    if (factor !== 0) for (let i = 0; i < n; i++) ec[i]! ^= t.generator[i]![factor]!;
  }
  return ec;
}

/** The symbol of `payload` (UTF-8 bytes), level M, mask 0, as the library draws it. */
export function encodeQr(payload: string): QrModules {
  const bytes = Buffer.from(payload, 'utf8');
  const t = templateOf(versionFor(bytes.length));
  const codewords = dataCodewordsOf(bytes, t);
  // Split into blocks, each with its EC codewords; interleave data, then EC, a codeword of each block in turn.
  const blocks: Uint8Array[] = [];
  for (let b = 0, at = 0; b < t.blockSizes.length; at += t.blockSizes[b]!, b++) blocks.push(codewords.subarray(at, at + t.blockSizes[b]!));
  const ecs = blocks.map((b) => ecOf(b, t));
  const stream = new Uint8Array(codewords.length + ecs.length * t.ecCount);
  let k = 0;
  const longest = t.blockSizes[t.blockSizes.length - 1]!;
  for (let i = 0; i < longest; i++) for (const b of blocks) if (i < b.length) stream[k++] = b[i]!;
  for (let i = 0; i < t.ecCount; i++) for (const ec of ecs) stream[k++] = ec[i]!;
  // Place: the stream's bits in zigzag order, remainder bits light, each masked with pattern 0.
  const data = Uint8Array.from(t.modules);
  const { order, mask0 } = t;
  const bits = stream.length * 8;
  for (let i = 0; i < order.length; i++) {
    const bit = i < bits ? (stream[i >> 3]! >>> (7 - (i & 7))) & 1 : 0;
    data[order[i]!] = bit ^ mask0[i]!;
  }
  return { size: t.size, data, reservedBit: t.reservedBit };
}
