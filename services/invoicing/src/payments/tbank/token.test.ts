import { hasValidToken, tbankToken } from './token';

/** The two worked examples of the documentation (the Token page and the notifications page). */
describe('T-Bank Token', () => {
  it('signs an Init as the documentation’s example: root scalars and Password, by key, SHA-256 (DATA and Receipt left out)', () => {
    const init = {
      TerminalKey: 'MerchantTerminalKey',
      Amount: 19200,
      OrderId: '21090',
      Description: 'Подарочная карта на 1000 рублей',
      DATA: { Phone: '+71234567890', Email: 'a@test.com' },
      Receipt: { Email: 'a@test.ru', Items: [{ Name: 'x', Price: 10000 }] },
    };
    expect(tbankToken(init, 'usaf8fw8fsw21g')).toBe('0024a00af7c350a3a67ca168ce06502aa72772456662e38696d48b56ee9c97d9');
  });

  it('verifies the documentation’s notification example (booleans as `true`), and nothing altered', () => {
    const notification = {
      TerminalKey: '1321054611234DEMO',
      OrderId: '201709',
      Success: true,
      Status: 'AUTHORIZED',
      PaymentId: 8742591,
      ErrorCode: '0',
      Amount: 9855,
      CardId: 322264,
      Pan: '430000******0777',
      ExpDate: '1122',
      RebillId: 101709,
      Token: 'b906d28e76c6428e37b25fcf86c0adc52c63d503013fdd632e300593d165766b',
    };
    expect(hasValidToken(notification, 'Dfsfh56dgKl')).toBe(true);
    expect(hasValidToken({ ...notification, Token: notification.Token.toUpperCase() }, 'Dfsfh56dgKl')).toBe(true);
    expect(hasValidToken(notification, 'Dfsfh56dgKm')).toBe(false);
    expect(hasValidToken({ ...notification, Amount: 9856 }, 'Dfsfh56dgKl')).toBe(false);
    expect(hasValidToken({ ...notification, Success: false }, 'Dfsfh56dgKl')).toBe(false);
    expect(hasValidToken({ ...notification, Token: 'short' }, 'Dfsfh56dgKl')).toBe(false);
    expect(hasValidToken({ ...notification, Token: undefined }, 'Dfsfh56dgKl')).toBe(false);
  });

  it('takes a number’s digits as sent: a PaymentId past a double’s precision', () => {
    const body = { TerminalKey: 'T', PaymentId: 12345678901234567890, Status: 'CONFIRMED' };
    const sentDigits = (key: string) => (key === 'PaymentId' ? '12345678901234567890' : undefined);
    const token = tbankToken({ TerminalKey: 'T', PaymentId: '12345678901234567890', Status: 'CONFIRMED' }, 'p');
    expect(hasValidToken({ ...body, Token: token }, 'p', sentDigits)).toBe(true);
    expect(hasValidToken({ ...body, Token: token }, 'p')).toBe(false);
  });
});
