import { createHmac } from 'node:crypto';
import { hmacKey } from './hmac-key';

describe('hmacKey', () => {
  it('signs exactly as createHmac with the secret text does: ASCII, UTF-8 and empty secrets', () => {
    for (const secret of ['whsec_0123456789abcdef', 'ключ-секрет ✓', '']) {
      const payload = `1764297000000.POST./api/v2/invoices{"amount":1}`;
      expect(createHmac('sha256', hmacKey(secret)).update(payload).digest('hex')).toBe(createHmac('sha256', secret).update(payload).digest('hex'));
    }
  });

  it('makes one key per secret, and a different one for a different secret', () => {
    expect(hmacKey('a')).toBe(hmacKey('a'));
    expect(hmacKey('a')).not.toBe(hmacKey('b'));
    expect(hmacKey('a').equals(hmacKey('b'))).toBe(false);
  });
});
