import { PNG } from 'pngjs';
import { decodeQrDataUri } from '@pay/testing';
import { qrPngDataUri } from './qr';

describe('QR codes', () => {
  it('are real PNGs that decode back to their payload', () => {
    for (const payload of ['http://127.0.0.1:3001/pay/3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f/sbp', 'https://pay.example.ru/p/x', 'A']) {
      const uri = qrPngDataUri(payload);
      expect(uri).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
      expect(decodeQrDataUri(uri)).toBe(payload);
    }
  });

  it('are square, with a quiet zone, 4 pixels per module', () => {
    const png = PNG.sync.read(Buffer.from(qrPngDataUri('https://pay.example.ru/p/x').replace(/^data:image\/png;base64,/, ''), 'base64'));
    expect(png.width).toBe(png.height);
    expect(png.width % 4).toBe(0);
    // The corner (margin) is white; the finder pattern's first module is black.
    expect(png.data[0]).toBe(255);
    expect(png.data[(8 * png.width + 8) * 4]).toBe(0);
  });

  it('draw each module as a whole 4×4 block, every scanline as drawn (most are written as Up-filtered repeats of the one above)', () => {
    for (const payload of ['http://127.0.0.1:3001/pay/3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f/sbp', 'A']) {
      const png = PNG.sync.read(Buffer.from(qrPngDataUri(payload).replace(/^data:image\/png;base64,/, ''), 'base64'));
      const dark = (x: number, y: number) => png.data[(y * png.width + x) * 4] === 0;
      let blocks = 0;
      for (let by = 0; by < png.height; by += 4)
        for (let bx = 0; bx < png.width; bx += 4) {
          const first = dark(bx, by);
          for (let y = by; y < by + 4; y++) for (let x = bx; x < bx + 4; x++) expect(dark(x, y)).toBe(first);
          // The quiet zone (2 modules each side) is white.
          if (bx < 8 || by < 8 || bx >= png.width - 8 || by >= png.height - 8) expect(first).toBe(false);
          blocks += first ? 1 : 0;
        }
      expect(blocks).toBeGreaterThan(0);
    }
  });
});
