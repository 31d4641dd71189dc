import { money } from '../../shared/money';
import { fromUnits, toUnits } from './amounts';

describe('token amounts', () => {
  it('convert exactly both ways at 6 and 18 decimals, however large', () => {
    expect(toUnits(money('123.456789'), 6)).toBe(123456789n);
    expect(toUnits(money('123.456789'), 18)).toBe(123456789000000000000n);
    expect(toUnits(money('999999999.999999'), 18)).toBe(999999999999999000000000000n);
    expect(fromUnits(123456789n, 6).toFixed()).toBe('123.456789');
    expect(fromUnits(999999999999999000000000000n, 18).toFixed()).toBe('999999999.999999');
    // 0.1 + 0.2 in floats is 0.30000000000000004; here it is what the chain moved.
    expect(fromUnits(toUnits(money('0.1'), 18) + toUnits(money('0.2'), 18), 18).toFixed()).toBe('0.3');
  });

  it('never credit digits the ledger cannot hold: an 18-decimal amount is cut to 6 places, down', () => {
    expect(fromUnits(1_999_999_999_999_999_999n, 18).toFixed()).toBe('1.999999');
    expect(fromUnits(999_999_999_999n, 18).isZero()).toBe(true);
  });
});
