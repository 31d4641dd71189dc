/**
 * A zlib stream (RFC 1950) of one deflate block (RFC 1951) with dynamic Huffman codes, written
 * from tokens the caller chooses: bytes, and copies of bytes written earlier (a length and how
 * far back). The caller knows where its data repeats, so no search is made.
 *
 * Why: drawing an SBP invoice's QR is the largest part of `POST /api/v2/invoices`, and
 * `deflateSync` was a fifth of the drawing: about 0.02 ms of each call is Node setting up a
 * zlib stream, and zlib searches 4 KB of scanlines for repeats that the drawing knows. A QR's
 * PNG is module rows drawn SCALE scanlines high, which qr.ts writes as one scanline and a copy;
 * its few byte values get codes of 1-3 bits here.
 *
 * The codes are made from symbol counts (DeflateCode): those a writer expects, made once and
 * used for many streams alike, each written at once by DeflateWriter without a count or a tree
 * of its own (qr.ts: one code per symbol size; countCopy counts a copy's symbols). Measured on 2,000 payment links (2026-11-28): the PNG part of a QR 60-70 µs ->
 * 15 µs, its deflate data 3% longer (478 against 464 bytes on average; zlib's best, level 9,
 * 508). Any inflater reads either (deflate.test.ts inflates them with zlib's `inflateSync`).
 */

const MIN_MATCH = 3;
const MAX_MATCH = 258;
const MAX_DISTANCE = 32_768;
/** Longest code deflate allows for literals, lengths and distances; for the code-length code. */
const MAX_BITS = 15;
const MAX_CL_BITS = 7;

/** Length codes 257-285: the first length of each and its extra bits (RFC 1951 §3.2.5). */
const LENGTH_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
/** Distance codes 0-29: the first distance of each and its extra bits. */
const DIST_BASE = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577];
const DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
/** The order in which the code-length code's lengths are sent. */
const CL_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

/** The code (index into LENGTH_BASE) of each match length 3-258. 258 has its own (285), though 227 + 31 would reach it. */
const LENGTH_CODE = new Uint8Array(MAX_MATCH + 1);
for (let c = 0; c < LENGTH_BASE.length - 1; c++) for (let l = LENGTH_BASE[c]!; l < LENGTH_BASE[c + 1]!; l++) LENGTH_CODE[l] = c;
LENGTH_CODE[MAX_MATCH] = LENGTH_BASE.length - 1;

/**
 * The code of each distance, as zlib keeps it: distances 1-256 directly, larger ones by
 * (d − 1) >> 7 (their codes cover whole multiples of 128 from 257 on).
 */
const DIST_CODE = new Uint8Array(512);
for (let c = 0; c < DIST_BASE.length; c++) {
  const last = c + 1 < DIST_BASE.length ? DIST_BASE[c + 1]! - 1 : MAX_DISTANCE;
  for (let d = DIST_BASE[c]!; d <= last; d++) DIST_CODE[d <= 256 ? d - 1 : 256 + ((d - 1) >> 7)] = c;
}
const distanceCode = (d: number) => DIST_CODE[d <= 256 ? d - 1 : 256 + ((d - 1) >> 7)]!;

/** The next piece of a copy of `length`: at most 258, and none left shorter than 3. */
const pieceOf = (length: number) => (length <= MAX_MATCH ? length : length - MAX_MATCH < MIN_MATCH ? length - MIN_MATCH : MAX_MATCH);

/** A copy deflate can write after `written` bytes, else a RangeError saying why not. */
function checkCopy(length: number, distance: number, written: number): void {
  if (!Number.isInteger(distance) || distance < 1 || distance > Math.min(MAX_DISTANCE, written)) {
    throw new RangeError(`a copy from ${distance} bytes back, with ${written} written (at most ${MAX_DISTANCE})`);
  }
  if (!Number.isInteger(length) || length < MIN_MATCH) throw new RangeError(`a copy of ${length} bytes (at least ${MIN_MATCH})`);
}

/**
 * Code lengths of a Huffman code for `counts` (0: the symbol is not used), none longer than
 * `limit`: the two lightest subtrees merged until one is left (two queues: the leaves sorted,
 * and the merged nodes, which come out in order). When the deepest is too deep, the counts are
 * flattened (halved, kept ≥ 1) and the code made again, as simple encoders do; rare here,
 * since an image of a few KB has few symbols.
 */
function codeLengths(counts: Uint32Array, limit: number): Uint8Array {
  const lengths = new Uint8Array(counts.length);
  const used: number[] = [];
  for (let s = 0; s < counts.length; s++) if (counts[s]! > 0) used.push(s);
  const m = used.length;
  if (m === 1) {
    lengths[used[0]!] = 1;
    return lengths;
  }
  const weight = new Float64Array(2 * m - 1);
  const parent = new Int32Array(2 * m - 1);
  for (let shift = 0; ; shift++) {
    // Leaves 0..m-1 by weight; merged nodes m..2m-2 in the order they are made (their weights never decrease).
    used.sort((a, b) => counts[a]! - counts[b]! || a - b);
    for (let i = 0; i < m; i++) weight[i] = Math.max(1, counts[used[i]!]! >> shift);
    let leaf = 0;
    let merged = m;
    const lightest = (made: number) => (leaf < m && (merged >= made || weight[leaf]! <= weight[merged]!) ? leaf++ : merged++);
    for (let made = m; made < 2 * m - 1; made++) {
      const a = lightest(made);
      const b = lightest(made);
      weight[made] = weight[a]! + weight[b]!;
      parent[a] = made;
      parent[b] = made;
    }
    // Depths from the root (the last node made) down: a parent is always made after its children.
    const depth = new Uint8Array(2 * m - 1);
    let deepest = 0;
    for (let node = 2 * m - 3; node >= 0; node--) {
      depth[node] = depth[parent[node]!]! + 1;
      if (node < m && depth[node]! > deepest) deepest = depth[node]!;
    }
    if (deepest <= limit) {
      for (let i = 0; i < m; i++) lengths[used[i]!] = depth[i]!;
      return lengths;
    }
  }
}

/** Canonical codes for `lengths` (RFC 1951 §3.2.2), bit-reversed: deflate sends Huffman codes from their first bit. */
function canonicalCodes(lengths: Uint8Array): Uint16Array {
  const perLength = new Uint16Array(MAX_BITS + 1);
  for (const l of lengths) if (l) perLength[l]!++;
  const next = new Uint16Array(MAX_BITS + 1);
  for (let bits = 1, code = 0; bits <= MAX_BITS; bits++) {
    code = (code + perLength[bits - 1]!) << 1;
    next[bits] = code;
  }
  const codes = new Uint16Array(lengths.length);
  for (let s = 0; s < lengths.length; s++) {
    const l = lengths[s]!;
    if (!l) continue;
    let code = next[l]!++;
    let reversed = 0;
    for (let i = 0; i < l; i++, code >>= 1) reversed = (reversed << 1) | (code & 1);
    codes[s] = reversed;
  }
  return codes;
}

/**
 * The code lengths of both codes, run-length coded with the code-length alphabet (16: repeat
 * the previous 3-6 times, 17: 3-10 zeros, 18: 11-138 zeros), as [symbol, extra] pairs.
 */
function runLengths(lengths: Uint8Array): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < lengths.length; ) {
    const l = lengths[i]!;
    let run = 1;
    while (i + run < lengths.length && lengths[i + run] === l) run++;
    i += run;
    if (l === 0) {
      while (run >= 11) {
        const r = Math.min(run, 138);
        out.push([18, r - 11]);
        run -= r;
      }
      if (run >= 3) {
        out.push([17, run - 3]);
        run = 0;
      }
    } else {
      out.push([l, 0]);
      run--;
      while (run >= 3) {
        const r = Math.min(run, 6);
        out.push([16, r - 3]);
        run -= r;
      }
    }
    for (; run > 0; run--) out.push([l, 0]);
  }
  return out;
}

/** Gives unused symbols a count until two are used: deflate's inflaters take only complete codes, which need two. */
function atLeastTwo(counts: Uint32Array): void {
  let used = 0;
  for (const c of counts) if (c > 0) used++;
  for (let s = 0; used < 2; s++) {
    if (counts[s] === 0) {
      counts[s] = 1;
      used++;
    }
  }
}

/** Bits written least significant first, as deflate packs them, into a buffer that grows as needed. */
class BitWriter {
  out: Uint8Array;
  at: number;
  bits = 0;
  count = 0;

  constructor(capacity: number, at = 0) {
    this.out = new Uint8Array(Math.max(capacity, at + 16));
    this.at = at;
  }

  /** Room for `n` more bytes (a write of up to 32 bits needs 4). */
  ensure(n: number): void {
    if (this.at + n <= this.out.length) return;
    const grown = new Uint8Array(Math.max(this.out.length * 2, this.at + n));
    grown.set(this.out.subarray(0, this.at));
    this.out = grown;
  }

  /** `n` ≤ 24 bits of `value`; the caller has ensured room. */
  write(value: number, n: number): void {
    this.bits |= value << this.count;
    this.count += n;
    while (this.count >= 8) {
      this.out[this.at++] = this.bits & 0xff;
      this.bits >>>= 8;
      this.count -= 8;
    }
  }

  /** Pads the last byte with zeros. */
  end(): void {
    if (this.count > 0) this.out[this.at++] = this.bits & 0xff;
    this.bits = 0;
    this.count = 0;
  }
}

/**
 * Huffman codes for deflate's two alphabets (literals and lengths; distances) and the header
 * of a block that declares them (RFC 1951 §3.2.7). Made from symbol counts: those a writer
 * expects, made once and used for many streams alike (qr.ts: every QR of one size), or a
 * stream's own. A symbol counted 0 has no code.
 */
export class DeflateCode {
  readonly litCodes: Uint16Array;
  readonly litLengths: Uint8Array;
  readonly distCodes: Uint16Array;
  readonly distLengths: Uint8Array;
  /** The block's header (final block, dynamic codes, the code lengths): whole bytes, then `tailBits` bits of `tail`. */
  readonly header: Uint8Array;
  readonly tail: number;
  readonly tailBits: number;

  constructor(litCounts: Uint32Array, distCounts: Uint32Array) {
    if (litCounts.length !== 286 || distCounts.length !== 30) throw new RangeError('counts for 286 literal/length and 30 distance symbols');
    const lit = Uint32Array.from(litCounts);
    const dist = Uint32Array.from(distCounts);
    lit[256] = Math.max(1, lit[256]!); // end of block
    atLeastTwo(lit);
    atLeastTwo(dist);
    this.litLengths = codeLengths(lit, MAX_BITS);
    this.distLengths = codeLengths(dist, MAX_BITS);
    this.litCodes = canonicalCodes(this.litLengths);
    this.distCodes = canonicalCodes(this.distLengths);
    let hlit = 286;
    while (hlit > 257 && !this.litLengths[hlit - 1]) hlit--;
    let hdist = 30;
    while (hdist > 1 && !this.distLengths[hdist - 1]) hdist--;
    const both = new Uint8Array(hlit + hdist);
    both.set(this.litLengths.subarray(0, hlit));
    both.set(this.distLengths.subarray(0, hdist), hlit);
    const lengthRuns = runLengths(both);
    const clCounts = new Uint32Array(19);
    for (const [s] of lengthRuns) clCounts[s!]!++;
    atLeastTwo(clCounts);
    const clLengths = codeLengths(clCounts, MAX_CL_BITS);
    const clCodes = canonicalCodes(clLengths);
    let hclen = 19;
    while (hclen > 4 && !clLengths[CL_ORDER[hclen - 1]!]) hclen--;
    const w = new BitWriter(4 + Math.ceil((17 + hclen * 3 + lengthRuns.length * 14) / 8));
    w.write(1, 1); // the final block
    w.write(2, 2); // with its own codes
    w.write(hlit - 257, 5);
    w.write(hdist - 1, 5);
    w.write(hclen - 4, 4);
    for (let i = 0; i < hclen; i++) w.write(clLengths[CL_ORDER[i]!]!, 3);
    for (const [s, extra] of lengthRuns) {
      w.write(clCodes[s!]!, clLengths[s!]!);
      if (s === 16) w.write(extra!, 2);
      else if (s === 17) w.write(extra!, 3);
      else if (s === 18) w.write(extra!, 7);
    }
    this.header = w.out.slice(0, w.at);
    this.tail = w.bits;
    this.tailBits = w.count;
  }
}

/**
 * A zlib stream of one block with the codes of a DeflateCode, written as the caller gives its
 * tokens: bytes, and copies of bytes written earlier. A token the code has no code for throws.
 */
export class DeflateWriter {
  private readonly w: BitWriter;
  /** How many bytes the tokens stand for so far. */
  length = 0;
  private ended = false;

  constructor(
    private readonly code: DeflateCode,
    /** Expected size in bytes (the buffer grows past it). */
    capacity = 256,
  ) {
    const w = new BitWriter(capacity + code.header.length + 8, 2);
    w.out[0] = 0x78; // deflate, 32 KB window
    w.out[1] = 0x01; // no dictionary, "fastest" level; 0x7801 is a multiple of 31 as RFC 1950 requires
    w.out.set(code.header, 2);
    w.at += code.header.length;
    w.bits = code.tail;
    w.count = code.tailBits;
    this.w = w;
  }

  private symbol(s: number): void {
    const n = this.code.litLengths[s]!;
    if (n === 0) throw new RangeError(`symbol ${s} has no code in this stream's code`);
    this.w.write(this.code.litCodes[s]!, n);
  }

  byte(value: number): void {
    this.w.ensure(4);
    this.symbol(value);
    this.length++;
  }

  bytes(values: Uint8Array): void {
    const w = this.w;
    const { litCodes, litLengths } = this.code;
    w.ensure(2 * values.length + 4); // at most 15 bits a byte
    for (let i = 0; i < values.length; i++) {
      const v = values[i]!;
      const n = litLengths[v]!;
      if (n === 0) throw new RangeError(`byte ${v} has no code in this stream's code`);
      w.write(litCodes[v]!, n);
    }
    this.length += values.length;
  }

  /** The `length` bytes that start `distance` bytes back (they may overlap what they write, as deflate allows). */
  copy(length: number, distance: number): void {
    checkCopy(length, distance, this.length);
    const w = this.w;
    const { distCodes, distLengths } = this.code;
    const dc = distanceCode(distance);
    if (distLengths[dc] === 0) throw new RangeError(`distance ${distance} has no code in this stream's code`);
    while (length > 0) {
      const piece = pieceOf(length);
      const lc = LENGTH_CODE[piece]!;
      w.ensure(8);
      this.symbol(257 + lc);
      if (LENGTH_EXTRA[lc]) w.write(piece - LENGTH_BASE[lc]!, LENGTH_EXTRA[lc]!);
      w.write(distCodes[dc]!, distLengths[dc]!);
      if (DIST_EXTRA[dc]) w.write(distance - DIST_BASE[dc]!, DIST_EXTRA[dc]!);
      this.length += piece;
      length -= piece;
    }
  }

  /** The zlib stream: the block ended, then `adler32` (the data's checksum). Once: it ends the stream. */
  zlib(adler32: number): Buffer {
    if (this.ended) throw new Error('this stream was written already');
    this.ended = true;
    const w = this.w;
    w.ensure(12);
    this.symbol(256);
    w.end();
    w.out[w.at++] = adler32 >>> 24;
    w.out[w.at++] = (adler32 >>> 16) & 0xff;
    w.out[w.at++] = (adler32 >>> 8) & 0xff;
    w.out[w.at++] = adler32 & 0xff;
    return Buffer.from(w.out.buffer, w.out.byteOffset, w.at);
  }
}

/** Counts in `litCounts` and `distCounts` the symbols a copy is written with (its pieces of at most 258). */
export function countCopy(litCounts: Uint32Array, distCounts: Uint32Array, length: number, distance: number, times = 1): void {
  const dc = distanceCode(distance);
  while (length > 0) {
    const piece = pieceOf(length);
    litCounts[257 + LENGTH_CODE[piece]!]! += times;
    distCounts[dc]! += times;
    length -= piece;
  }
}

const ADLER_MOD = 65521;

/**
 * RFC 1950's Adler-32 of data given block by block, each as its sums (`add`): a writer that
 * knows its data repeats adds a repeated block from the sums it already has, without reading
 * its bytes again. For a block x_0..x_(L-1): a grows by Σx_i and b by L·a + Σ(L−i)·x_i.
 */
export class Adler32 {
  private a = 1;
  private b = 0;

  /** A block of `length` bytes whose bytes sum to `sum` and weigh `weighted` = Σ(length − i)·x_i. */
  add(length: number, sum: number, weighted: number): void {
    this.b = (this.b + ((length % ADLER_MOD) * this.a) + (weighted % ADLER_MOD)) % ADLER_MOD;
    this.a = (this.a + sum) % ADLER_MOD;
  }

  get value(): number {
    return ((this.b << 16) | this.a) >>> 0;
  }
}
