import { DEFAULT_LIVE_MINIMUMS, parseMinimums } from './minimums';

describe('WITHDRAWAL_MINIMUMS', () => {
  it('defaults every live EVM currency so the 1% fee pays the gas (README "Withdrawal minimums")', () => {
    const m = parseMinimums('');
    expect(Object.fromEntries([...m].map(([c, v]) => [c, v.toString()]))).toEqual({ USDT_ERC20: '100', USDC_ERC20: '100', USDT_BEP20: '10', USDC_BEP20: '10' });
    expect(DEFAULT_LIVE_MINIMUMS).toBe('USDT_ERC20=100,USDC_ERC20=100,USDT_BEP20=10,USDC_BEP20=10');
  });

  it('takes CURRENCY=amount pairs over the defaults', () => {
    const m = parseMinimums(' USDT_ERC20=20, USDT_BEP20=2.5 ');
    expect(m.get('USDT_ERC20')!.toString()).toBe('20');
    expect(m.get('USDT_BEP20')!.toString()).toBe('2.5');
    expect(m.get('USDC_ERC20')!.toString()).toBe('100');
  });

  it.each([
    ['USDT_ERC20:20', /"USDT_ERC20:20" is not CURRENCY=amount/],
    ['USDT_ERC20=1.1234567', /is not CURRENCY=amount/],
    ['DOGE=5', /DOGE is not a currency/],
  ])('refuses %s with a message naming the variable', (text, message) => {
    expect(() => parseMinimums(text)).toThrow(/^WITHDRAWAL_MINIMUMS: /);
    expect(() => parseMinimums(text)).toThrow(message);
  });
});
