import { JsonDecimal, stringifyExact } from './exact-json';

describe('stringifyExact', () => {
  it('writes decimals digit for digit, beyond what a double holds', () => {
    const body = { a: new JsonDecimal('8910000000.296992'), b: [new JsonDecimal('-0.000001')], c: 'text', d: 1.5 };
    expect(stringifyExact(body)).toBe('{"a":8910000000.296992,"b":[-0.000001],"c":"text","d":1.5}');
    expect(JSON.stringify({ a: Number('8910000000.296992') })).toBe('{"a":8910000000.296991}'); // why this exists
  });

  it('leaves strings that look like the marker alone', () => {
    expect(stringifyExact({ s: '@@decimal:00:1.5' })).toBe('{"s":"@@decimal:00:1.5"}');
  });

  it('refuses anything but a plain decimal', () => {
    expect(() => new JsonDecimal('1e5')).toThrow();
    expect(() => new JsonDecimal('NaN')).toThrow();
  });
});
