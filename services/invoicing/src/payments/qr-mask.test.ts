import { randomBytes } from 'node:crypto';
import QRCode from 'qrcode';
import { bestMaskPattern, type QrModules } from './qr-mask';

describe('bestMaskPattern', () => {
  it("chooses the library's own mask pattern, from a symbol drawn with any pattern", () => {
    const payloads = [
      'A',
      'https://pay.example.ru/p/x',
      ...Array.from({ length: 150 }, (_, i) => `http://127.0.0.1:3001/pay/${randomBytes(16).toString('hex')}/sbp?n=${'x'.repeat(i)}`),
    ];
    const chosen = new Set<number>();
    for (const [k, payload] of payloads.entries()) {
      const segments = [{ data: Buffer.from(payload, 'utf8'), mode: 'byte' as const }];
      const auto = QRCode.create(segments, { errorCorrectionLevel: 'M' });
      const drawnWith = k % 8;
      const probe = QRCode.create(segments, { errorCorrectionLevel: 'M', maskPattern: drawnWith as QRCode.QRCodeMaskPattern });
      expect(bestMaskPattern(probe.modules as unknown as QrModules, drawnWith, probe.errorCorrectionLevel)).toBe(auto.maskPattern);
      chosen.add(auto.maskPattern!);
    }
    // The payloads exercise several patterns, so a chooser that always answered one could not pass.
    expect(chosen.size).toBeGreaterThanOrEqual(4);
  });
});
