import { randomBytes, randomUUID } from 'node:crypto';
import { deflateSync, inflateSync } from 'node:zlib';
import { PNG } from 'pngjs';
import QRCode from 'qrcode';
import { decodeQrDataUri } from '@pay/testing';
import { qrPngDataUri } from './qr';

const pngOf = (uri: string) => PNG.sync.read(Buffer.from(uri.replace(/^data:image\/png;base64,/, ''), 'base64'));

describe('QR codes', () => {
  it('are real PNGs that decode back to their payload', () => {
    for (const payload of ['http://127.0.0.1:3001/pay/3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f/sbp', 'https://pay.example.ru/p/x', 'A']) {
      const uri = qrPngDataUri(payload);
      expect(uri).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
      expect(decodeQrDataUri(uri)).toBe(payload);
    }
  });

  it('are square, with a quiet zone, 4 pixels per module', () => {
    const png = pngOf(qrPngDataUri('https://pay.example.ru/p/x'));
    expect(png.width).toBe(png.height);
    expect(png.width % 4).toBe(0);
    // The corner (margin) is white; the finder pattern's first module is black.
    expect(png.data[0]).toBe(255);
    expect(png.data[(8 * png.width + 8) * 4]).toBe(0);
  });

  it('draw each module as a whole 4×4 block, every scanline as drawn (most are written as Up-filtered repeats of the one above)', () => {
    for (const payload of ['http://127.0.0.1:3001/pay/3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f/sbp', 'A', 'x'.repeat(2331)]) {
      const png = pngOf(qrPngDataUri(payload));
      const dark = (x: number, y: number) => png.data[(y * png.width + x) * 4] === 0;
      let blocks = 0;
      for (let by = 0; by < png.height; by += 4)
        for (let bx = 0; bx < png.width; bx += 4) {
          const first = dark(bx, by);
          for (let y = by; y < by + 4; y++) for (let x = bx; x < bx + 4; x++) if (dark(x, y) !== first) throw new Error(`pixel (${x}, ${y}) differs from its module's`);
          // The quiet zone (2 modules each side) is white.
          if (first && (bx < 8 || by < 8 || bx >= png.width - 8 || by >= png.height - 8)) throw new Error(`a dark module in the quiet zone at (${bx}, ${by})`);
          blocks += first ? 1 : 0;
        }
      expect(blocks).toBeGreaterThan(0);
    }
  });

  it('show, module for module, the symbol the qrcode library draws (its mask choice too), whatever the rows repeat', () => {
    // Payment links, and payloads of other lengths (versions 1 to 40: rows of many widths). The
    // library's own mask choice is slow on large symbols, so a few of those; qr-mask.test.ts has more.
    const payloads = [
      ...Array.from({ length: 60 }, () => `https://pay.example.ru/pay/${randomUUID()}/sbp`),
      ...[1, 17, 100, 400].map((n) => randomBytes(n).toString('latin1')),
      'x'.repeat(2331),
      'A',
    ];
    for (const payload of payloads) {
      const theirs = QRCode.create([{ data: Buffer.from(payload, 'utf8'), mode: 'byte' }], { errorCorrectionLevel: 'M' }).modules;
      const png = pngOf(qrPngDataUri(payload));
      expect(png.width).toBe((theirs.size + 4) * 4);
      for (let row = 0; row < theirs.size; row++)
        for (let col = 0; col < theirs.size; col++) {
          // The module's middle pixel; the test above holds every pixel of a module alike.
          const dark = png.data[(((row + 2) * 4 + 2) * png.width + (col + 2) * 4 + 2) * 4] === 0;
          if (dark !== Boolean(theirs.get(row, col))) throw new Error(`module (${row}, ${col}) differs for a payload of ${Buffer.byteLength(payload)} bytes`);
        }
    }
  });

  it('compress payment links within 5% of what zlib at its best (level 9) makes of the same scanlines', () => {
    // The codes are made once per size from expected counts (pngLayout), not from the image's own:
    // about 3% longer than codes of its own counts, and as often a byte shorter as longer than zlib's.
    // (Deflate's fixed codes, zlib's Z_FIXED, are 40% longer.)
    for (let i = 0; i < 50; i++) {
      const png = Buffer.from(qrPngDataUri(`https://qr.nspk.ru/AS1000${randomUUID().replace(/-/g, '').toUpperCase()}?type=02&bank=100000000111&sum=150050&cur=RUB`).split(',')[1]!, 'base64');
      const idat: Buffer[] = [];
      for (let at = 8; at < png.length; at += 12 + png.readUInt32BE(at)) {
        if (png.toString('ascii', at + 4, at + 8) === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + png.readUInt32BE(at)));
      }
      const ours = Buffer.concat(idat);
      expect(ours.length).toBeLessThanOrEqual(1.05 * deflateSync(inflateSync(ours), { level: 9 }).length);
    }
  });
});
