import { paymentLinkEmail } from './emails';

describe('the payment link e-mail', () => {
  const email = (description: string | null) =>
    paymentLinkEmail(
      { invoice_id: '7b0c3e5a-4a59-4c1b-9a53-0e0f1d8f9a01', to_address: 'ann@example.ru', amount: '1490.9', currency: 'RUB', description, expires_at: new Date('2026-11-27T00:10:00Z') },
      'https://pay.example.com',
    );

  it('says the amount and carries the link as text, and as a link a reader clicks in its HTML part', () => {
    const m = email('Warm blanket');
    expect(m).toMatchObject({ to: 'ann@example.ru', subject: 'Invoice for 1490.90 RUB' });
    expect(m.text).toContain('Pay it here: https://pay.example.com/pay/7b0c3e5a-4a59-4c1b-9a53-0e0f1d8f9a01');
    expect(m.html).toContain('<a href="https://pay.example.com/pay/7b0c3e5a-4a59-4c1b-9a53-0e0f1d8f9a01" target="_blank" rel="noopener">Pay it here</a>');
    expect(m.html).toContain('invoice for 1490.90 RUB (Warm blanket)');
    expect(m.html).toContain('valid until 2026-11-27 00:10 UTC');
  });

  it('escapes the merchant’s description in the HTML: it can never become markup', () => {
    const m = email('<a href="https://evil.example">click</a> & "more"');
    expect(m.html).toContain('(&lt;a href=&quot;https://evil.example&quot;&gt;click&lt;/a&gt; &amp; &quot;more&quot;)');
    expect(m.html).not.toContain('evil.example">');
    expect(m.text).toContain('(<a href="https://evil.example">click</a> & "more")');
  });
});
