/**
 * A zlib stream (RFC 1950) of one deflate block (RFC 1951) with Huffman codes made for its
 * content, written from tokens the caller chooses: bytes, and copies of bytes written earlier
 * (a length and how far back). The caller knows where its data repeats, so no search is made.
 *
 * Why: drawing an SBP invoice's QR is the largest part of `POST /api/v2/invoices`, and
 * `deflateSync` was a fifth of the drawing: about 0.02 ms of each call is Node setting up a
 * zlib stream, and zlib searches 4 KB of scanlines for repeats that the drawing knows. A QR's
 * PNG is module rows drawn SCALE scanlines high, which qr.ts writes as one scanline and a copy;
 * its few byte values get codes of 1-3 bits here. Measured against `deflateSync` on 2,000
 * payment links (2026-11-28, a loaded machine): the QR 3-5% cheaper, its data URI 5% shorter
 * (618 against 653 characters). The codes are deflate's own dynamic Huffman codes, so any
 * inflater reads the result (deflate.test.ts inflates it with zlib's `inflateSync`).
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

function distanceCode(d: number): number {
  let c = DIST_BASE.length - 1;
  while (DIST_BASE[c]! > d) c--;
  return c;
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

/** Bits written least significant first, as deflate packs them. */
class BitWriter {
  private bits = 0;
  private count = 0;
  at: number;

  constructor(
    readonly out: Uint8Array,
    at: number,
  ) {
    this.at = at;
  }

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

/**
 * Collects a stream's tokens (`byte`, `bytes`, `copy`), then `zlib` writes them as one block.
 * The caller gives the Adler-32 of the data, which it can compute from its structure (see qr.ts)
 * far faster than from the bytes.
 */
export class DeflateTokens {
  /** A literal byte (< 256), or a copy: 256 + its length code's index, its length, its distance, the distance's code. */
  private tokens: number[] = [];
  private readonly litCounts = new Uint32Array(286);
  private readonly distCounts = new Uint32Array(30);
  /** How many bytes the tokens stand for so far. */
  length = 0;
  private ended = false;

  byte(value: number): void {
    this.tokens.push(value);
    this.litCounts[value]!++;
    this.length++;
  }

  bytes(values: Uint8Array): void {
    for (const v of values) this.byte(v);
  }

  /** The `length` bytes that start `distance` bytes back (they may overlap what they write, as deflate allows). */
  copy(length: number, distance: number): void {
    if (!Number.isInteger(distance) || distance < 1 || distance > Math.min(MAX_DISTANCE, this.length)) {
      throw new RangeError(`a copy from ${distance} bytes back, with ${this.length} written (at most ${MAX_DISTANCE})`);
    }
    if (!Number.isInteger(length) || length < MIN_MATCH) throw new RangeError(`a copy of ${length} bytes (at least ${MIN_MATCH})`);
    const dc = distanceCode(distance);
    while (length > 0) {
      // Pieces of at most 258, none left shorter than 3.
      const piece = length <= MAX_MATCH ? length : length - MAX_MATCH < MIN_MATCH ? length - MIN_MATCH : MAX_MATCH;
      const lc = LENGTH_CODE[piece]!;
      this.tokens.push(256 + lc, piece, distance, dc);
      this.litCounts[257 + lc]!++;
      this.distCounts[dc]!++;
      this.length += piece;
      length -= piece;
    }
  }

  /** The zlib stream: its header, the block with its codes, and `adler32` (the data's checksum). Once: it ends the stream. */
  zlib(adler32: number): Buffer {
    if (this.ended) throw new Error('this stream was written already');
    this.ended = true;
    const { litCounts, distCounts } = this;
    litCounts[256] = 1; // end of block
    atLeastTwo(litCounts);
    atLeastTwo(distCounts);
    const litLengths = codeLengths(litCounts, MAX_BITS);
    const distLengths = codeLengths(distCounts, MAX_BITS);
    const litCodes = canonicalCodes(litLengths);
    const distCodes = canonicalCodes(distLengths);
    let hlit = 286;
    while (hlit > 257 && !litLengths[hlit - 1]) hlit--;
    let hdist = 30;
    while (hdist > 1 && !distLengths[hdist - 1]) hdist--;
    const both = new Uint8Array(hlit + hdist);
    both.set(litLengths.subarray(0, hlit));
    both.set(distLengths.subarray(0, hdist), hlit);
    const lengthRuns = runLengths(both);
    const clCounts = new Uint32Array(19);
    for (const [s] of lengthRuns) clCounts[s!]!++;
    atLeastTwo(clCounts);
    const clLengths = codeLengths(clCounts, MAX_CL_BITS);
    const clCodes = canonicalCodes(clLengths);
    let hclen = 19;
    while (hclen > 4 && !clLengths[CL_ORDER[hclen - 1]!]) hclen--;

    const tokens = this.tokens;
    // Room for the worst: every token a 15-bit code and 13 extra bits, the code lengths, zlib's 6 bytes.
    const out = new Uint8Array(2 + Math.ceil((tokens.length * (MAX_BITS + 13) + 17 + hclen * 3 + lengthRuns.length * 14 + MAX_BITS) / 8) + 4);
    out[0] = 0x78; // deflate, 32 KB window
    out[1] = 0x01; // no dictionary, "fastest" level; 0x7801 is a multiple of 31 as RFC 1950 requires
    const w = new BitWriter(out, 2);
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
    for (let at = 0; at < tokens.length; ) {
      const token = tokens[at++]!;
      if (token < 256) {
        w.write(litCodes[token]!, litLengths[token]!);
        continue;
      }
      const lc = token - 256;
      const length = tokens[at++]!;
      const distance = tokens[at++]!;
      const dc = tokens[at++]!;
      w.write(litCodes[257 + lc]!, litLengths[257 + lc]!);
      if (LENGTH_EXTRA[lc]) w.write(length - LENGTH_BASE[lc]!, LENGTH_EXTRA[lc]!);
      w.write(distCodes[dc]!, distLengths[dc]!);
      if (DIST_EXTRA[dc]) w.write(distance - DIST_BASE[dc]!, DIST_EXTRA[dc]!);
    }
    w.write(litCodes[256]!, litLengths[256]!);
    w.end();
    out[w.at++] = adler32 >>> 24;
    out[w.at++] = (adler32 >>> 16) & 0xff;
    out[w.at++] = (adler32 >>> 8) & 0xff;
    out[w.at++] = adler32 & 0xff;
    return Buffer.from(out.buffer, out.byteOffset, w.at);
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
