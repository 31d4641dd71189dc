/**
 * Picks a QR symbol's mask pattern the way the `qrcode` library does (the lowest of its four
 * penalty scores over the 8 patterns, the first on a tie), in about a tenth of its time.
 *
 * Why: the library scores each pattern by masking its own matrix in place and walking it
 * through `BitMatrix.get` calls, which made mask selection ~70% of an SBP invoice's QR and
 * the largest single CPU cost of `POST /api/v2/invoices`. Here the patterns are scored on a
 * flat copy with plain array reads. The library still draws the symbol once (with any
 * pattern), so nothing about the encoding is reimplemented; only the choice is, and
 * `qr-mask.test.ts` checks it matches the library's own on many payloads. `remask` then turns
 * that drawing into the one with the chosen pattern, which the test also checks against the
 * library's own drawing with that pattern.
 */
// The library's format-information encoder (BCH code of level and mask), version-pinned.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const FormatInfo: { getEncodedBits(level: { bit: number }, mask: number): number } = require('qrcode/lib/core/format-info');

/** What `QRCode.create(...).modules` is: module values and which modules are function patterns. */
export interface QrModules {
  size: number;
  data: Uint8Array;
  reservedBit: Uint8Array;
}

const PATTERNS = 8;

function maskAt(pattern: number, i: number, j: number): boolean {
  switch (pattern) {
    case 0: return (i + j) % 2 === 0;
    case 1: return i % 2 === 0;
    case 2: return j % 3 === 0;
    case 3: return (i + j) % 3 === 0;
    case 4: return (Math.floor(i / 2) + Math.floor(j / 3)) % 2 === 0;
    case 5: return ((i * j) % 2) + ((i * j) % 3) === 0;
    case 6: return (((i * j) % 2) + ((i * j) % 3)) % 2 === 0;
    default: return (((i * j) % 3) + ((i + j) % 2)) % 2 === 0;
  }
}

/** Writes the 15 format bits of `pattern` where the library's `setupFormatInfo` puts them. */
function writeFormat(m: Uint8Array, size: number, level: { bit: number }, pattern: number): void {
  const bits = FormatInfo.getEncodedBits(level, pattern);
  for (let i = 0; i < 15; i++) {
    const mod = (bits >> i) & 1;
    const row = i < 6 ? i : i < 8 ? i + 1 : size - 15 + i;
    m[row * size + 8] = mod;
    const col = i < 8 ? size - i - 1 : i < 9 ? 15 - i : 15 - i - 1;
    m[8 * size + col] = mod;
  }
  m[(size - 8) * size + 8] = 1;
}

/**
 * Per symbol size: the 8 flip tables (see `tablesFor`) and two scratch matrices, so a call
 * allocates nothing once a size has been seen (invoices use a handful of sizes). Reusing the
 * scratch is safe: scoring is synchronous and never re-entered.
 *
 * Every matrix here is a byte per module (0 or 1) in a buffer padded to whole 32-bit words,
 * with a `Uint32Array` view of the same bytes: masking is an XOR, and XOR does not carry
 * between bytes, so four modules are masked per operation (the padding stays 0).
 */
interface SizeTables {
  /** For each pattern, 1 where it flips a module: a data module (not reserved) where the pattern is dark. */
  flips: Uint32Array[];
  /** Scratch: the symbol unmasked (its data modules as encoded), as bytes and as words. */
  base: Uint8Array;
  base32: Uint32Array;
  /** Scratch: the symbol masked with the pattern being scored. */
  m: Uint8Array;
  m32: Uint32Array;
}

const bySize = new Map<number, SizeTables>();

/**
 * The tables of a size. Function patterns (the reserved modules) depend only on the symbol's
 * size (its version), so the flip tables, made with the slow per-module `maskAt` switch, are
 * made once per size.
 */
function tablesFor(size: number, reservedBit: Uint8Array): SizeTables {
  let tables = bySize.get(size);
  if (!tables) {
    const words = Math.ceil((size * size) / 4);
    const flips = Array.from({ length: PATTERNS }, (_, p) => {
      const t = new Uint8Array(words * 4);
      for (let r = 0; r < size; r++) for (let c = 0; c < size; c++) t[r * size + c] = !reservedBit[r * size + c] && maskAt(p, r, c) ? 1 : 0;
      return new Uint32Array(t.buffer);
    });
    const base32 = new Uint32Array(words);
    const m32 = new Uint32Array(words);
    tables = { flips, base: new Uint8Array(base32.buffer), base32, m: new Uint8Array(m32.buffer), m32 };
    bySize.set(size, tables);
  }
  return tables;
}

/*
 * The scans below are branch-free where the branch would follow the modules' colours: those are
 * close to random, so such branches are mispredicted about half the time, which cost more than
 * the rest of the scan. Runs and 2×2 blocks are counted with table lookups instead.
 */

/**
 * N1 as it accrues along a run, indexed by the run's length so far: a run of L ≥ 5 scores
 * 3 + (L − 5), i.e. 3 when it reaches 5 and 1 more for each module after. 256 > 177, the
 * largest symbol.
 */
const RUN_PENALTY = Uint8Array.from({ length: 256 }, (_, length) => (length === 5 ? 3 : length > 5 ? 1 : 0));

/** Whether a 2×2 block is of one colour (N2), indexed by its number of dark modules. */
const UNIFORM_BLOCK = Uint8Array.of(1, 0, 0, 0, 1);

/**
 * One scan of the rows of `m`: N1 (runs of 5 or more) and N3 (finder-like 1:1:3:1:1 with 4
 * light) along the rows, N2 (2×2 blocks of one colour, with the next row) and N4 (the share
 * of dark modules), all weighted as the library weighs them.
 */
function rowsPenalty(m: Uint8Array, size: number, budget: number): number {
  let n1 = 0;
  let n2 = 0;
  let n3 = 0;
  let dark = 0;
  for (let row = 0, start = 0; row < size; row++, start += size) {
    let last = m[start]!;
    let run = 1;
    let bits = last;
    dark += last;
    for (let at = start + 1, end = start + size, col = 1; at < end; at++, col++) {
      const v = m[at]!;
      dark += v;
      run = run * (1 - (v ^ last)) + 1; // one more if the colour is the same, else a new run of 1
      n1 += RUN_PENALTY[run]!;
      last = v;
      bits = ((bits << 1) & 0x7ff) | v;
      if (col >= 10 && (bits === 0x5d0 || bits === 0x05d)) n3++; // rare: predicted well
    }
    if (row === size - 1) break;
    // N2 with the row below: each column's pair sum serves the block on its left and on its right.
    let left = m[start]! + m[start + size]!;
    for (let at = start + 1, end = start + size; at < end; at++) {
      const right = m[at]! + m[at + size]!;
      n2 += UNIFORM_BLOCK[left + right]!;
      left = right;
    }
    // Scores only grow: a pattern already at its budget cannot win, and what it would total no longer matters.
    if (n1 + n2 * 3 + n3 * 40 >= budget) return budget;
  }
  // The library's own float arithmetic, in its order, so the rounding is the same.
  const n4 = Math.abs(Math.ceil((dark * 100) / (size * size) / 5) - 10);
  return n1 + n2 * 3 + n3 * 40 + n4 * 10;
}

/** N1 and N3 along the columns of `m`, read in place (a stride of `size`) rather than transposed. */
function columnsPenalty(m: Uint8Array, size: number, budget: number): number {
  let n1 = 0;
  let n3 = 0;
  const n = size * size;
  for (let col = 0; col < size; col++) {
    let last = m[col]!;
    let run = 1;
    let bits = last;
    for (let at = col + size, row = 1; at < n; at += size, row++) {
      const v = m[at]!;
      run = run * (1 - (v ^ last)) + 1;
      n1 += RUN_PENALTY[run]!;
      last = v;
      bits = ((bits << 1) & 0x7ff) | v;
      if (row >= 10 && (bits === 0x5d0 || bits === 0x05d)) n3++;
    }
    if (n1 + n3 * 40 >= budget) return budget;
  }
  return n1 + n3 * 40;
}

/**
 * The pattern the library would choose for a symbol, given that symbol drawn with any known
 * pattern `drawnWith` (its data modules are unmasked first) and its error correction level.
 */
export function bestMaskPattern(modules: QrModules, drawnWith: number, level: { bit: number }): number {
  const { size, data, reservedBit } = modules;
  const { flips, base, base32, m, m32 } = tablesFor(size, reservedBit);
  const undo = flips[drawnWith]!;
  // The library's matrix is a bare Uint8Array (no padding, so no word view): unmask it byte by
  // byte once; each pattern is then masked a word at a time.
  base.set(data);
  const words = base32.length;
  for (let w = 0; w < words; w++) base32[w]! ^= undo[w]!;
  let best = 0;
  let lowest = Infinity;
  for (let p = 0; p < PATTERNS; p++) {
    const flip = flips[p]!;
    for (let w = 0; w < words; w++) m32[w] = base32[w]! ^ flip[w]!;
    writeFormat(m, size, level, p);
    // Every part of a score is ≥ 0 and a tie keeps the earlier pattern, so a pattern whose score
    // so far reaches the lowest total yet cannot win: each scan stops there, after a row or a
    // column, and the pattern's columns are not scanned once its rows reach it.
    let score = rowsPenalty(m, size, lowest);
    if (score >= lowest) continue;
    score += columnsPenalty(m, size, lowest - score);
    if (score < lowest) {
      lowest = score;
      best = p;
    }
  }
  return best;
}

/**
 * Turns `modules`, drawn with pattern `drawnWith`, into the symbol drawn with `pattern`, in
 * place: exactly what drawing it again with `pattern` would give, at a fraction of the cost.
 * The library's drawing with a given pattern is the unmasked symbol XOR the pattern on the
 * modules that are not reserved, then the format bits of the pattern; the reserved modules
 * (function patterns, version information — which does not depend on the mask) are the same
 * whatever the pattern. So: XOR the data modules with both patterns' flips, rewrite the format.
 */
export function remask(modules: QrModules, drawnWith: number, level: { bit: number }, pattern: number): void {
  if (pattern === drawnWith) return;
  const { size, data, reservedBit } = modules;
  const { flips } = tablesFor(size, reservedBit);
  // Byte views of the word tables (the library's matrix has no padding, so no word view).
  const undo = new Uint8Array(flips[drawnWith]!.buffer);
  const flip = new Uint8Array(flips[pattern]!.buffer);
  for (let i = 0, n = size * size; i < n; i++) data[i]! ^= undo[i]! ^ flip[i]!;
  writeFormat(data, size, level, pattern);
}
