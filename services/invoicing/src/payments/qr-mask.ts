/**
 * Picks a QR symbol's mask pattern the way the `qrcode` library does (the lowest of its four
 * penalty scores over the 8 patterns, the first on a tie), in about a tenth of its time.
 *
 * Why: the library scores each pattern by masking its own matrix in place and walking it
 * through `BitMatrix.get` calls, which made mask selection ~70% of an SBP invoice's QR and
 * the largest single CPU cost of `POST /api/v2/invoices`. Here the patterns are scored on
 * bit lines (see below). The library still draws the symbol once (with any pattern), so
 * nothing about the encoding is reimplemented; only the choice is, and `qr-mask.test.ts`
 * checks each score against the library's own penalty functions, and the choice against its
 * own, on many payloads. `remask` then turns that drawing into the one with the chosen
 * pattern, which the test also checks against the library's own drawing with that pattern.
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

/**
 * Where the library's `setupFormatInfo` puts the 15 format bits of a symbol of `size`: bit i
 * at [row, col] pairs i and i + 15, then the dark module (always 1) last, as a flat list.
 */
function formatPositions(size: number): Int32Array {
  const at = new Int32Array(31 * 2);
  for (let i = 0; i < 15; i++) {
    at.set([i < 6 ? i : i < 8 ? i + 1 : size - 15 + i, 8], i * 2);
    at.set([8, i < 8 ? size - i - 1 : i < 9 ? 15 - i : 15 - i - 1], (i + 15) * 2);
  }
  at.set([size - 8, 8], 60);
  return at;
}

const formatValuesOf = new Map<number, Uint8Array>();

/** The value of each module of `formatPositions` for a level and pattern (kept: 4 levels × 8 patterns). */
function formatValues(level: { bit: number }, pattern: number): Uint8Array {
  const key = level.bit * PATTERNS + pattern;
  let values = formatValuesOf.get(key);
  if (!values) {
    const bits = FormatInfo.getEncodedBits(level, pattern);
    values = Uint8Array.from({ length: 31 }, (_, k) => (k === 30 ? 1 : (bits >> k % 15) & 1));
    formatValuesOf.set(key, values);
  }
  return values;
}

/** Writes the format bits of `pattern` into a byte-per-module matrix; `at`: its size's `formatPositions`. */
function writeFormat(m: Uint8Array, size: number, at: Int32Array, level: { bit: number }, pattern: number): void {
  const values = formatValues(level, pattern);
  for (let k = 0; k < 31; k++) m[at[k * 2]! * size + at[k * 2 + 1]!] = values[k]!;
}

/*
 * Scoring works on bits: each row, and each column, is a line of words, module k at bit k % 32
 * of word k / 32 (one spare word at the end, so a 32-bit read at any offset stays inside).
 * Masking a line is an XOR of words, and the penalties of 21 to 31 positions of a line come
 * from a few shifts, ANDs and a popcount, where a scan module by module took about ten
 * operations a module: scoring was over half of a QR's time, the largest part of a v2 create.
 */

/** Set bits of a 32-bit value. */
function popcount(v: number): number {
  v -= (v >>> 1) & 0x55555555;
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** 32 modules of the line at `base` (in words), from module `from` on. */
function read32(lines: Uint32Array, base: number, from: number): number {
  const word = base + (from >>> 5);
  const shift = from & 31;
  return shift === 0 ? lines[word]! : (lines[word]! >>> shift) | (lines[word + 1]! << (32 - shift));
}

/** The lowest `n` bits set (0 ≤ n ≤ 31). */
const lowBits = (n: number) => (n <= 0 ? 0 : (1 << n) - 1);

/** Positions of a line scored per 32-bit read: a window of 11 modules and the one before it fit in 32 bits. */
const STEP = 21;

/**
 * N1 (runs of 5 or more: 3, plus 1 per module over 5) and N3 (1:1:3:1:1 with 4 light on one
 * side, as the library's 11-bit windows 0x5D0 and 0x05D) of one line of `size` modules, as
 * N1 + 40 × N3. For positions p from `from`, x holds modules from − 1 … from + 30 (before the
 * first module, one of the other colour), so bit p + 1 + k of x is module from + p + k.
 */
function linePenalty(lines: Uint32Array, base: number, size: number): number {
  let n1 = 0;
  let n3 = 0;
  for (let from = 0; from < size; from += STEP) {
    const x = from === 0 ? (read32(lines, base, 0) << 1) | (~lines[base]! & 1) : read32(lines, base, from - 1);
    const change = x ^ (x >>> 1); // bit j: modules from − 1 + j and from + j differ
    const same = ~change;
    // Five alike from p: a run of L ≥ 5 has L − 4 such windows and one start (a change just
    // before it), so windows + 2 × starts is its 3 + (L − 5).
    const five = (same >>> 1) & (same >>> 2) & (same >>> 3) & (same >>> 4) & lowBits(Math.min(STEP, size - 4 - from));
    n1 += popcount(five) + 2 * popcount(five & change);
    // Module k of the window at p is bit p of xk. Modules 4-6 of both windows are dark, light, dark.
    const x1 = x >>> 1;
    const x2 = x >>> 2;
    const x3 = x >>> 3;
    const x4 = x >>> 4;
    const x8 = x >>> 8;
    const x9 = x >>> 9;
    const x10 = x >>> 10;
    const x11 = x >>> 11;
    const core = (x >>> 5) & ~(x >>> 6) & (x >>> 7);
    const a = x1 & ~x2 & x3 & x4 & ~(x8 | x9 | x10 | x11); // 1011101 0000
    const b = ~(x1 | x2 | x3 | x4 | x10) & x8 & x9 & x11; // 0000 1011101
    n3 += popcount(core & (a | b) & lowBits(Math.min(STEP, size - 10 - from)));
  }
  return n1 + n3 * 40;
}

/** N2 of rows r and r + 1 (at `base` and `base + stride`): 2×2 blocks of one colour, weighted 3. */
function blocksPenalty(lines: Uint32Array, base: number, stride: number, size: number): number {
  let blocks = 0;
  for (let from = 0; from < size - 1; from += 31) {
    const top = read32(lines, base, from);
    const below = read32(lines, base + stride, from);
    const columnAlike = ~(top ^ below);
    blocks += popcount(columnAlike & (columnAlike >>> 1) & ~(top ^ (top >>> 1)) & lowBits(Math.min(31, size - 1 - from)));
  }
  return blocks * 3;
}

/**
 * Per symbol size, what scoring needs beyond the symbol: the 8 patterns' flips (1 where a
 * pattern darkens a data module: not reserved, and the pattern's formula holds) as bit rows and
 * as bit columns, the format modules' places, and the scratch lines of the symbol (unmasked)
 * and of the pattern being scored. Made once per size (invoices use a handful of sizes), so
 * a call allocates nothing; reusing the scratch is safe: scoring is synchronous.
 */
interface SizeTables {
  words: number;
  /** For each pattern, its flips as a byte per module (for `remask`). */
  flipBytes: Uint8Array[];
  flipRows: Uint32Array[];
  flipColumns: Uint32Array[];
  format: Int32Array;
  baseRows: Uint32Array;
  baseColumns: Uint32Array;
  rows: Uint32Array;
  columns: Uint32Array;
}

const bySize = new Map<number, SizeTables>();

/** Rows and columns as bit lines of a byte-per-module matrix, XOR another (`xor`) if given. */
function packLines(bytes: Uint8Array, xor: Uint8Array | null, size: number, words: number, rows: Uint32Array, columns: Uint32Array): void {
  rows.fill(0);
  columns.fill(0);
  for (let r = 0, i = 0; r < size; r++) {
    for (let c = 0; c < size; c++, i++) {
      const v = xor ? bytes[i]! ^ xor[i]! : bytes[i]!;
      rows[r * words + (c >>> 5)]! |= v << (c & 31);
      columns[c * words + (r >>> 5)]! |= v << (r & 31);
    }
  }
}

function tablesFor(size: number, reservedBit: Uint8Array): SizeTables {
  let tables = bySize.get(size);
  if (!tables) {
    const words = (size >>> 5) + 2;
    const lines = () => new Uint32Array(size * words);
    const flipBytes: Uint8Array[] = [];
    const flipRows: Uint32Array[] = [];
    const flipColumns: Uint32Array[] = [];
    for (let p = 0; p < PATTERNS; p++) {
      const t = new Uint8Array(size * size);
      for (let r = 0; r < size; r++) for (let c = 0; c < size; c++) t[r * size + c] = !reservedBit[r * size + c] && maskAt(p, r, c) ? 1 : 0;
      const rows = lines();
      const columns = lines();
      packLines(t, null, size, words, rows, columns);
      flipBytes.push(t);
      flipRows.push(rows);
      flipColumns.push(columns);
    }
    tables = { words, flipBytes, flipRows, flipColumns, format: formatPositions(size), baseRows: lines(), baseColumns: lines(), rows: lines(), columns: lines() };
    bySize.set(size, tables);
  }
  return tables;
}

/** Sets module [row, col] of the bit rows and columns to `v`. */
function setModule(t: SizeTables, row: number, col: number, v: number): void {
  const r = row * t.words + (col >>> 5);
  t.rows[r] = (t.rows[r]! & ~(1 << (col & 31))) | (v << (col & 31));
  const c = col * t.words + (row >>> 5);
  t.columns[c] = (t.columns[c]! & ~(1 << (row & 31))) | (v << (row & 31));
}

/**
 * The library's penalty of the symbol whose unmasked lines are in `t.base*` masked with
 * `pattern`: N1 + N2 + N3 + N4, weighted as the library weighs them. Every part is ≥ 0, so
 * once the sum so far reaches `budget` the pattern cannot beat the one that set it: the scan
 * stops there and answers `budget`.
 */
function patternPenalty(t: SizeTables, size: number, level: { bit: number }, pattern: number, budget: number): number {
  const { words, rows, columns, baseRows, baseColumns } = t;
  const flipRows = t.flipRows[pattern]!;
  const flipColumns = t.flipColumns[pattern]!;
  for (let w = 0; w < rows.length; w++) {
    rows[w] = baseRows[w]! ^ flipRows[w]!;
    columns[w] = baseColumns[w]! ^ flipColumns[w]!;
  }
  const values = formatValues(level, pattern);
  for (let k = 0; k < 31; k++) setModule(t, t.format[k * 2]!, t.format[k * 2 + 1]!, values[k]!);
  let score = 0;
  let dark = 0;
  for (let r = 0, base = 0; r < size; r++, base += words) {
    score += linePenalty(rows, base, size);
    if (r < size - 1) score += blocksPenalty(rows, base, words, size);
    for (let w = base, end = base + words; w < end; w++) dark += popcount(rows[w]!);
    if (score >= budget) return budget;
  }
  for (let c = 0, base = 0; c < size; c++, base += words) {
    score += linePenalty(columns, base, size);
    if (score >= budget) return budget;
  }
  // The library's own float arithmetic, in its order, so the rounding is the same.
  return score + Math.abs(Math.ceil((dark * 100) / (size * size) / 5) - 10) * 10;
}

/**
 * The library's penalty of a symbol (drawn with pattern `drawnWith`) for each of the 8
 * patterns, in order: what it compares to choose one (for tests: `bestMaskPattern` stops early).
 */
export function maskPenalties(modules: QrModules, drawnWith: number, level: { bit: number }): number[] {
  const t = unmasked(modules, drawnWith);
  return Array.from({ length: PATTERNS }, (_, p) => patternPenalty(t, modules.size, level, p, Infinity));
}

/** The tables of the symbol's size, with its unmasked lines in `baseRows`/`baseColumns`. */
function unmasked(modules: QrModules, drawnWith: number): SizeTables {
  const { size, data, reservedBit } = modules;
  const t = tablesFor(size, reservedBit);
  packLines(data, t.flipBytes[drawnWith]!, size, t.words, t.baseRows, t.baseColumns);
  return t;
}

/**
 * The pattern the library would choose for a symbol, given that symbol drawn with any known
 * pattern `drawnWith` (its data modules are unmasked first) and its error correction level:
 * the lowest penalty, the first on a tie. A pattern whose score so far reaches the lowest yet
 * cannot win, so its scan stops there.
 */
export function bestMaskPattern(modules: QrModules, drawnWith: number, level: { bit: number }): number {
  const t = unmasked(modules, drawnWith);
  let best = 0;
  let lowest = Infinity;
  for (let p = 0; p < PATTERNS; p++) {
    const score = patternPenalty(t, modules.size, level, p, lowest);
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
  const { flipBytes, format } = tablesFor(size, reservedBit);
  const undo = flipBytes[drawnWith]!;
  const flip = flipBytes[pattern]!;
  for (let i = 0, n = size * size; i < n; i++) data[i]! ^= undo[i]! ^ flip[i]!;
  writeFormat(data, size, format, level, pattern);
}
