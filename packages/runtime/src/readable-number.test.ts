import { readableNumber } from './readable-number';

describe('readableNumber', () => {
  it('is PREFIX-yyyymmdd-8 chars without I or O', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const n = readableNumber('INV', new Date('2026-11-23T23:59:59Z'));
      expect(n).toMatch(/^INV-20261123-[0-9A-HJ-NP-Z]{8}$/);
      seen.add(n);
    }
    expect(seen.size).toBe(2000);
  });
});
