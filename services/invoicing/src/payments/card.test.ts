import { luhnValid, readCard } from './card';

const now = new Date('2026-11-23T10:00:00Z');
const card = (over: Partial<{ number: string; expiry: string; cvc: string }> = {}) => ({ number: '4242 4242 4242 4242', expiry: '12/30', cvc: '123', ...over });

describe('card checks', () => {
  it('Luhn: accepts real test numbers, refuses a changed digit', () => {
    for (const n of ['4242424242424242', '5555555555554444', '378282246310005', '2200000000000004', '4000000000000002']) expect(luhnValid(n)).toBe(true);
    for (const n of ['4242424242424241', '5555555555554440', '1234567812345678', '']) expect(luhnValid(n)).toBe(false);
  });

  it('reads a valid card, digits only', () => {
    expect(readCard(card(), now)).toEqual({ card: { number: '4242424242424242', expiryMonth: 12, expiryYear: 2030, cvc: '123' } });
    expect(readCard(card({ number: '4242-4242-4242-4242', expiry: '11/2026' }), now)).toMatchObject({ card: { expiryMonth: 11, expiryYear: 2026 } });
  });

  it.each([
    [{ number: '4242 4242 4242 4241' }, 'number', 'is not a valid card number (check the digits)', 'NUMBER'],
    [{ number: '4242' }, 'number', 'must be 12 to 19 digits', 'NUMBER'],
    [{ number: '4242abcd42424242' }, 'number', 'must be 12 to 19 digits', 'NUMBER'],
    [{ expiry: '10/26' }, 'expiry', 'the card has expired', 'EXPIRED'],
    [{ expiry: '13/30' }, 'expiry', 'month must be 01 to 12', 'EXPIRY_MONTH'],
    [{ expiry: '1230' }, 'expiry', 'must be MM/YY', 'EXPIRY_FORMAT'],
    [{ cvc: '12' }, 'cvc', 'must be 3 or 4 digits', 'CVC'],
  ])('refuses %p, naming the field (and the code the page words) and never the number', (over, field, message, code) => {
    const read = readCard(card(over), now);
    expect(read).toEqual({ problems: [{ field, message, code }] });
    expect(JSON.stringify(read)).not.toContain('4242');
  });

  it('takes a card expiring this month', () => {
    expect('card' in readCard(card({ expiry: '11/26' }), now)).toBe(true);
  });
});
