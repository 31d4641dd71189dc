import { ApiError } from '@pay/schemas';
import { stringifyExact } from '@pay/http';
import { Money, parseAmount, percentOf, toJsonNumber, withdrawalFee } from './money';

describe('withdrawal fee', () => {
  it('is 1% of the amount: 100 → fee 1, net 99', () => {
    const { fee, netAmount } = withdrawalFee(new Money(100));
    expect([fee.toString(), netAmount.toString()]).toEqual(['1', '99']);
  });

  it('rounds half-up to six places, and fee + net is always the amount', () => {
    expect(withdrawalFee(new Money('1.00005')).fee.toString()).toBe('0.010001'); // 0.0100005 → up
    expect(withdrawalFee(new Money('1.00004')).fee.toString()).toBe('0.01'); // 0.0100004 → down
    for (const a of ['1', '1.000001', '33.333333', '999999999.999999', '12.5']) {
      const { fee, netAmount } = withdrawalFee(new Money(a));
      expect(fee.add(netAmount).toString()).toBe(new Money(a).toString());
      expect(fee.decimalPlaces()).toBeLessThanOrEqual(6);
    }
  });

  it('uses the same rounding for payment fees', () => {
    expect(percentOf(new Money('10.5'), '1.5').toString()).toBe('0.1575');
    expect(percentOf(new Money('0.000033'), 1).toString()).toBe('0');
  });
});

describe('amounts at the JSON edge', () => {
  it('keeps what the client wrote', () => {
    expect(parseAmount(100.1).toString()).toBe('100.1');
    expect(parseAmount(0.3).toString()).toBe('0.3');
    expect(parseAmount(999999999.999999).toString()).toBe('999999999.999999');
  });

  it.each([
    [0, 'must be greater than 0'],
    [-5, 'must be greater than 0'],
    [0.1 + 0.2, 'must have at most 6 decimal places'],
    [1e9, 'must be less than 1000000000'],
  ])('refuses %p', (value, message) => {
    try {
      parseAmount(value);
      throw new Error('accepted');
    } catch (e) {
      expect(e).toBeInstanceOf(ApiError);
      expect((e as ApiError).details).toEqual([{ field: 'amount', message }]);
    }
  });

  it('prints exact decimals, never binary noise, even past what a double holds', () => {
    const sum = new Money('0.1').add('0.2');
    expect(stringifyExact({ a: toJsonNumber(sum) })).toBe('{"a":0.3}');
    expect(stringifyExact({ a: toJsonNumber('123456789.123456') })).toBe('{"a":123456789.123456}');
    expect(stringifyExact({ a: toJsonNumber('8910000000.296992') })).toBe('{"a":8910000000.296992}');
    expect(stringifyExact({ a: toJsonNumber('99.000000') })).toBe('{"a":99}');
  });
});
