import { randomBytes } from 'node:crypto';
import QRCode from 'qrcode';
import { bestMaskPattern, maskPenalties, remask, type QrModules } from './qr-mask';

// The library's own scoring, version-pinned: the oracle for every score.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const MaskPattern: Record<'getPenaltyN1' | 'getPenaltyN2' | 'getPenaltyN3' | 'getPenaltyN4', (m: unknown) => number> = require('qrcode/lib/core/mask-pattern');
const libraryPenalty = (m: unknown) => MaskPattern.getPenaltyN1(m) + MaskPattern.getPenaltyN2(m) + MaskPattern.getPenaltyN3(m) + MaskPattern.getPenaltyN4(m);

describe('bestMaskPattern', () => {
  it("scores every pattern as the library does, at every version's size", () => {
    // Versions 1 to 40 (sizes 21 to 177: lines of 1 to 6 words), each drawn with some pattern.
    for (let version = 1; version <= 40; version++) {
      const segments = [{ data: randomBytes(Math.floor(version * version * 0.9) + 1), mode: 'byte' as const }];
      const drawnWith = version % 8;
      const probe = QRCode.create(segments, { errorCorrectionLevel: 'L', version, maskPattern: drawnWith as QRCode.QRCodeMaskPattern });
      const ours = maskPenalties(probe.modules as unknown as QrModules, drawnWith, probe.errorCorrectionLevel);
      const library = Array.from({ length: 8 }, (_, p) => libraryPenalty(QRCode.create(segments, { errorCorrectionLevel: 'L', version, maskPattern: p as QRCode.QRCodeMaskPattern }).modules));
      expect({ version, scores: ours }).toEqual({ version, scores: library });
    }
  });

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

  it("remask turns a symbol drawn with one pattern into the library's own drawing with another", () => {
    // Byte payloads from 15 to 213 bytes: versions 2 to 10 at level M (7 and up carry version information).
    const payloads = Array.from({ length: 199 }, (_, i) => `http://127.0.0.1:3001/pay/${randomBytes(4).toString('hex')}/${'y'.repeat(i)}`.slice(0, 15 + i));
    const versions = new Set<number>();
    for (const [k, payload] of payloads.entries()) {
      const segments = [{ data: Buffer.from(payload, 'utf8'), mode: 'byte' as const }];
      const drawnWith = k % 8;
      const best = QRCode.create(segments, { errorCorrectionLevel: 'M' }).maskPattern!;
      for (const pattern of new Set([best, (k * 3 + 1) % 8])) {
        const probe = QRCode.create(segments, { errorCorrectionLevel: 'M', maskPattern: drawnWith as QRCode.QRCodeMaskPattern });
        const modules = probe.modules as unknown as QrModules;
        remask(modules, drawnWith, probe.errorCorrectionLevel, pattern);
        const library = QRCode.create(segments, { errorCorrectionLevel: 'M', maskPattern: pattern as QRCode.QRCodeMaskPattern });
        const own = library.modules as unknown as QrModules;
        versions.add(library.version);
        expect(modules.size).toBe(own.size);
        expect(Buffer.from(modules.data).equals(Buffer.from(own.data))).toBe(true);
        expect(Buffer.from(modules.reservedBit).equals(Buffer.from(own.reservedBit))).toBe(true);
      }
    }
    expect([...versions].sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });
});
