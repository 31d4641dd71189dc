import { randomInt } from 'node:crypto';
import { inflateSync } from 'node:zlib';
import { Adler32, countCopy, DeflateCode, DeflateWriter } from './deflate';

/** Adler-32 from the bytes, as RFC 1950 defines it. */
function adlerOf(data: Uint8Array): number {
  let a = 1;
  let b = 0;
  for (const x of data) {
    a = (a + x) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/** The weighted sum Adler32.add takes: Σ(length − i)·x_i. */
const weightedOf = (block: Uint8Array) => block.reduce((w, x, i) => w + (block.length - i) * x, 0);

/** A stream's tokens: a byte, or a copy as [length, distance]. */
type Token = number | [number, number];

/** The zlib stream of `tokens`, with codes made for their own counts; and how many bytes they stand for. */
function zlibOf(tokens: Token[], adler32: number): { z: Buffer; length: number } {
  const lit = new Uint32Array(286);
  const dist = new Uint32Array(30);
  for (const t of tokens) {
    if (typeof t === 'number') lit[t]!++;
    else countCopy(lit, dist, t[0], t[1]);
  }
  const out = new DeflateWriter(new DeflateCode(lit, dist));
  for (const t of tokens) {
    if (typeof t === 'number') out.byte(t);
    else out.copy(t[0], t[1]);
  }
  return { length: out.length, z: out.zlib(adler32) };
}

/** Tokens and the bytes they stand for, built side by side: a random mix of bytes and copies. */
function randomStream(ops: number, alphabet: number[]): { tokens: Token[]; data: Uint8Array } {
  const tokens: Token[] = [];
  const data: number[] = [];
  for (let i = 0; i < ops; i++) {
    if (data.length >= 3 && randomInt(3) === 0) {
      const distance = 1 + randomInt(Math.min(data.length, 32_768));
      const length = 3 + randomInt(600); // past 258: split into pieces
      tokens.push([length, distance]);
      for (let k = 0; k < length; k++) data.push(data[data.length - distance]!);
    } else {
      const b = alphabet[randomInt(alphabet.length)]!;
      tokens.push(b);
      data.push(b);
    }
  }
  return { tokens, data: Uint8Array.from(data) };
}

describe('DeflateCode and DeflateWriter', () => {
  it('writes zlib streams that zlib inflates to the bytes its tokens stand for', () => {
    const alphabets = [[0, 0xff, 0x0f, 0xf0, 2], Array.from({ length: 256 }, (_, i) => i), [7]];
    for (let round = 0; round < 300; round++) {
      const { tokens, data } = randomStream(1 + randomInt(400), alphabets[round % alphabets.length]!);
      const { z, length } = zlibOf(tokens, adlerOf(data));
      expect(length).toBe(data.length);
      // inflateSync checks the header and the Adler-32 too.
      expect(Buffer.compare(inflateSync(z), Buffer.from(data))).toBe(0);
    }
  });

  it('writes streams of no copies, of one byte value, and of nothing', () => {
    for (const data of [Uint8Array.of(), Uint8Array.of(42), Uint8Array.from({ length: 1000 }, (_, i) => i % 256)]) {
      expect(Buffer.compare(inflateSync(zlibOf([...data], adlerOf(data)).z), Buffer.from(data))).toBe(0);
    }
    // A run: each piece copies the byte before.
    expect(inflateSync(zlibOf([9, [70_000, 1]], adlerOf(new Uint8Array(70_001).fill(9))).z)).toEqual(Buffer.alloc(70_001, 9));
  });

  it('writes, with codes made beforehand from expected counts, streams zlib inflates; a token they have no code for throws', () => {
    // The codes of a QR-like alphabet: five byte values, copies of 66 from 88 back and of 3 from 1 back.
    const lit = new Uint32Array(286);
    const dist = new Uint32Array(30);
    for (const b of [0, 2, 0x0f, 0xf0, 0xff]) lit[b] = 10 + b;
    countCopy(lit, dist, 66, 88, 5);
    countCopy(lit, dist, 600, 1); // pieces of 258, 258 and 84
    const code = new DeflateCode(lit, dist);
    for (let round = 0; round < 100; round++) {
      const out = new DeflateWriter(code, 16); // a small start: the buffer grows
      const data: number[] = [];
      for (let i = 0; i < 1 + randomInt(60); i++) {
        const line = Uint8Array.from({ length: 88 }, () => [0, 2, 0x0f, 0xf0, 0xff][randomInt(5)]!);
        out.bytes(line);
        data.push(...line);
        if (randomInt(2)) {
          out.copy(66, 88);
          for (let k = 0; k < 66; k++) data.push(data[data.length - 88]!);
        } else {
          out.byte(0xff);
          out.copy(600, 1);
          data.push(...new Array(601).fill(0xff));
        }
      }
      expect(out.length).toBe(data.length);
      expect(Buffer.compare(inflateSync(out.zlib(adlerOf(Uint8Array.from(data)))), Buffer.from(data))).toBe(0);
    }
    const out = new DeflateWriter(code);
    out.bytes(new Uint8Array(100));
    expect(() => out.byte(7)).toThrow(/symbol 7 has no code/);
    expect(() => out.bytes(Uint8Array.of(0, 9))).toThrow(/byte 9 has no code/);
    expect(() => out.copy(66, 50)).toThrow(/distance 50 has no code/);
    expect(() => out.copy(10, 1)).toThrow(/symbol 264 has no code/); // length 10's code
    expect(() => new DeflateCode(new Uint32Array(10), dist)).toThrow(/286 literal/);
  });

  it('refuses a copy from before the start, from past deflate’s 32 KB window, or shorter than 3 bytes', () => {
    const lit = new Uint32Array(286);
    const dist = new Uint32Array(30);
    lit[0] = 1;
    countCopy(lit, dist, 3, 32_768);
    countCopy(lit, dist, 3, 1);
    const code = new DeflateCode(lit, dist);
    const out = new DeflateWriter(code);
    out.bytes(new Uint8Array(40_000));
    expect(() => new DeflateWriter(code).copy(3, 1)).toThrow(/with 0 written/);
    expect(() => out.copy(3, 32_769)).toThrow(/at most 32768/);
    expect(() => out.copy(2, 1)).toThrow(/at least 3/);
    out.copy(3, 32_768);
  });
});

describe('Adler32', () => {
  it('sums block by block what RFC 1950 sums byte by byte, a block added twice from the same sums', () => {
    for (let round = 0; round < 50; round++) {
      const blocks = Array.from({ length: 1 + randomInt(20) }, () => Uint8Array.from({ length: randomInt(2000) }, () => randomInt(256)));
      const adler = new Adler32();
      const all: Uint8Array[] = [];
      for (const block of blocks) {
        const sum = block.reduce((s, x) => s + x, 0);
        const weighted = weightedOf(block);
        adler.add(block.length, sum, weighted);
        all.push(block);
        if (randomInt(2) === 0) {
          adler.add(block.length, sum, weighted);
          all.push(block);
        }
      }
      expect(adler.value).toBe(adlerOf(Buffer.concat(all)));
    }
  });
});
