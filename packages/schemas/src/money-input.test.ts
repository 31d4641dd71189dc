import { ApiError } from './errors';
import { parseMoney } from './money-input';

describe('parseMoney', () => {
  it('keeps kopecks exactly as the client wrote them', () => {
    expect(parseMoney(100.1, { decimals: 2 }).toString()).toBe('100.1');
    expect(parseMoney(999999999.99, { decimals: 2 }).toString()).toBe('999999999.99');
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
      expect((e as ApiError).message).toBe(`amount ${message}`);
      expect((e as ApiError).details).toEqual([{ field: 'amount', message }]);
    }
  });
});
