import { paymentLinkEmail, type EmailSender } from './emails';
import { headerText, senderOf } from './mailer';

describe('the payment link e-mail', () => {
  const id = '7b0c3e5a-4a59-4c1b-9a53-0e0f1d8f9a01';
  const sender = (over: Partial<EmailSender> = {}): EmailSender => ({ displayName: 'Acme Coffee', email: 'shop@acme.example', defaultLanguage: 'en', ...over });
  const email = (description: string | null, s: EmailSender = sender(), amount = '1490.9', currency = 'RUB') =>
    paymentLinkEmail({ invoiceId: id, toAddress: 'ann@example.ru', amount, currency, description, expiresAt: new Date('2026-11-27T00:10:00Z'), language: null }, 'https://pay.example.com', s);
  /** Intl's no-break spaces (U+00A0, U+202F) as plain ones. */
  const spaced = (s: string | undefined) => (s ?? '').replace(/[\u00a0\u202f]/g, ' ');

  it('comes from the merchant, replies go to it, and carries the link as text and as a link a reader clicks', () => {
    const m = email('Warm blanket');
    expect(m).toMatchObject({ to: 'ann@example.ru', fromName: 'Acme Coffee', replyTo: 'shop@acme.example', language: 'en' });
    expect(spaced(m.subject)).toBe('Invoice for RUB 1,490.90 from Acme Coffee');
    expect(m.text).toContain(`Pay the invoice: https://pay.example.com/pay/${id}`);
    expect(m.html).toContain(`<a href="https://pay.example.com/pay/${id}" target="_blank" rel="noopener">Pay the invoice</a>`);
    expect(spaced(m.html)).toContain('Acme Coffee has sent you an invoice for RUB 1,490.90 (Warm blanket).');
    expect(m.html).toContain('valid until November 27, 2026 at 12:10 AM UTC');
  });

  it('is written in the merchant’s language, the amount as that language writes it', () => {
    const ru = email(null, sender({ defaultLanguage: 'ru' }), '2500');
    expect(spaced(ru.subject)).toBe('Счёт на 2 500,00 ₽ от Acme Coffee');
    expect(spaced(ru.text)).toContain('Acme Coffee выставляет вам счёт на 2 500,00 ₽.');
    expect(ru.text).toContain('Ссылка действует до 27 ноября 2026 г. в 00:10 UTC.');
    expect(ru.html).toContain('<html lang="ru">');
    const kk = email(null, sender({ defaultLanguage: 'kk' }), '15000', 'KZT');
    expect(spaced(kk.subject)).toBe('Acme Coffee: 15 000,00 ₸ сомасына шот');
    expect(kk.text).toContain('Шотты төлеу: https://pay.example.com/pay/');
  });

  it('escapes the merchant’s name and description in the HTML: they can never become markup', () => {
    const m = email('<a href="https://evil.example">click</a> & "more"', sender({ displayName: '<script>x</script>' }));
    expect(m.html).toContain('(&lt;a href=&quot;https://evil.example&quot;&gt;click&lt;/a&gt; &amp; &quot;more&quot;)');
    expect(m.html).toContain('&lt;script&gt;x&lt;/script&gt; has sent you');
    expect(m.html).not.toContain('evil.example">');
    expect(m.html).not.toContain('<script>');
    expect(m.text).toContain('(<a href="https://evil.example">click</a> & "more")');
  });
});

describe('headers', () => {
  it('MAIL_FROM gives the platform’s name and address', () => {
    expect(senderOf('Payments <no-reply@payments.local>')).toEqual({ name: 'Payments', address: 'no-reply@payments.local' });
    expect(senderOf('"Pay Co" <no-reply@pay.example.com>')).toEqual({ name: 'Pay Co', address: 'no-reply@pay.example.com' });
    expect(senderOf('no-reply@pay.example.com')).toEqual({ name: 'no-reply@pay.example.com', address: 'no-reply@pay.example.com' });
  });

  it('header text has no line breaks or control characters', () => {
    expect(headerText('Evil\r\nBcc: x@example.com\u2028\u0000!')).toBe('Evil Bcc: x@example.com !');
  });
});
