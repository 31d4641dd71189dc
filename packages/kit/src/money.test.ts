import { ApiError } from '@pay/schemas';
import { stringifyExact } from './http/exact-json';
import { money, parseMoney, toJsonNumber } from './money';
import { readableNumber } from './readable-number';

describe('parseMoney', () => {
  it('keeps kopecks exactly as the client wrote them', () => {
    expect(parseMoney(100.1, { decimals: 2 }).toString()).toBe('100.1');
    expect(parseMoney(999999999.99, { decimals: 2 }).toString()).toBe('999999999.99');
    expect(stringifyExact({ a: toJsonNumber(money('0.1').add('0.2')) })).toBe('{"a":0.3}');
    expect(stringifyExact({ a: toJsonNumber('1234.50') })).toBe('{"a":1234.5}');
  });

  it.each([
    [0.001, 'must have at most 2 decimal places'],
    [0.1 + 0.2, 'must have at most 2 decimal places'],
    [0, 'must be greater than 0'],
    [1e9, 'must be less than 1000000000'],
  ])('refuses %p with the field named', (value, message) => {
    try {
      parseMoney(value, { decimals: 2, field: 'amount' });
      throw new Error('accepted');
    } catch (e) {
      expect(e).toBeInstanceOf(ApiError);
      expect((e as ApiError).details).toEqual([{ field: 'amount', message }]);
    }
  });
});

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
