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
});
