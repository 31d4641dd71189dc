import { randomBytes, randomUUID } from 'node:crypto';
import QRCode from 'qrcode';
import type { QrModules } from './qr-mask';
import { encodeQr } from './qr-encode';

/** The library's own drawing of the same symbol: byte mode, level M, mask 0. */
const library = (payload: string) => QRCode.create([{ data: Buffer.from(payload, 'utf8'), mode: 'byte' }], { errorCorrectionLevel: 'M', maskPattern: 0 }).modules as unknown as QrModules;

describe('encodeQr', () => {
  it('draws exactly the modules the qrcode library draws, for payment links and payloads of every length up to version 40', () => {
    const links = Array.from({ length: 500 }, () => `https://pay.example.ru/pay/${randomUUID()}/sbp`);
    // Every byte length from 1 to 300 (versions 1 to 13, both count-indicator widths, one and two block groups), then some far longer.
    // (Characters of random bytes, so 1 to 2 UTF-8 bytes each; the largest symbol holds 2,331 bytes.)
    const lengths = [...Array.from({ length: 300 }, (_, i) => i + 1), 400, 700, 1000, 1400];
    const raw = [...lengths.map((n) => randomBytes(n).toString('latin1')), 'x'.repeat(2331)];
    const text = ['A', 'Ромашка: счёт №42', '€'.repeat(50), 'http://127.0.0.1:3001/pay/3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f/sbp'];
    for (const payload of [...links, ...raw, ...text]) {
      const mine = encodeQr(payload);
      const theirs = library(payload);
      expect(mine.size).toBe(theirs.size);
      if (!Buffer.from(mine.data).equals(Buffer.from(theirs.data))) throw new Error(`modules differ for a payload of ${Buffer.byteLength(payload)} bytes`);
      expect(Buffer.from(mine.reservedBit).equals(Buffer.from(theirs.reservedBit).map((b) => (b ? 1 : 0)))).toBe(true);
    }
  });

  it('refuses what no version holds, as the library does', () => {
    expect(() => encodeQr('x'.repeat(2332))).toThrow(/too big/);
  });
});
