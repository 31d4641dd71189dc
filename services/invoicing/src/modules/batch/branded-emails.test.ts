import request from 'supertest';
import { merchantBrand } from '@pay/accounts';
import { assertNoEnglish, eventually, startMaildev, type MaildevEmail } from '@pay/testing';
import { smtpMailer } from './mailer';
import { newMerchant, startInvoicingApp, v1Request, v2Request, type TestMerchant } from '../../../test/test-support';

// maildev is the mailbox (the dev mailbox scripts/stack.sh runs): the service's own mailer sends
// to it over SMTP, and the test reads what arrived through maildev's REST API, as maildev parsed
// it (From, Reply-To, headers, text and HTML), never as the test would like to parse it.
let maildev: Awaited<ReturnType<typeof startMaildev>>;
let ctx: Awaited<ReturnType<typeof startInvoicingApp>>;

beforeAll(async () => {
  maildev = await startMaildev();
  ctx = await startInvoicingApp({ background: true, env: { SMTP_PORT: String(maildev.smtpPort), OUTBOX_INTERVAL_MS: '50' }, poolSize: 6 });
}, 60_000);
afterAll(async () => {
  await ctx?.close();
  await maildev?.close();
});

/** A live merchant that takes RUB, with its brand set through the API. */
async function merchant(brand: { displayName: string; defaultLanguage: 'ru' | 'en' | 'kk' }): Promise<TestMerchant & { email: string }> {
  const m = await newMerchant(ctx.deps);
  expect((await v1Request(ctx.app, { apiKey: m.liveKey }, 'put', '/api/v1/settings/currencies', { enabledCurrencies: ['RUB', 'KZT'] })).status).toBe(200);
  expect((await v2Request(ctx.app, m, 'patch', '/api/v2/merchant/brand', brand)).status).toBe(200);
  return { ...m, email: (await merchantBrand(ctx.deps.db, m.merchantId)).email };
}

/** A batch with sendEmails, and the e-mails maildev received for its addresses. */
async function batchMails(m: TestMerchant, rows: string[]): Promise<MaildevEmail[]> {
  const csv = `amount,currency,description,email\n${rows.join('\n')}\n`;
  const res = await request(ctx.app).post('/api/v1/batch/invoices').set('x-api-key', m.apiKey).field('sendEmails', 'true').attach('file', Buffer.from(csv), 'invoices.csv');
  expect(res.status).toBe(201);
  const to = rows.map((r) => r.split(',').at(-1)!);
  return eventually(
    async () => {
      const mine = (await maildev.emails()).filter((e) => e.to.some((t) => to.includes(t.address)));
      expect(mine).toHaveLength(to.length);
      return mine;
    },
    60_000,
    200,
  );
}

/** Intl writes the group separator as a no-break space (U+00A0 or U+202F): compared as a plain space. */
const spaced = (s: string | undefined) => (s ?? '').replace(/[\u00a0\u202f]/g, ' ');

describe('batch e-mails come from the merchant, in its language, with the amount as the payer reads it', () => {
  it('ru: "<name> via Payments", Reply-To the merchant, 2 500,00 ₽, Russian text and HTML', async () => {
    const m = await merchant({ displayName: 'Кофейня «Ромашка»', defaultLanguage: 'ru' });
    const [mail] = await batchMails(m, [`2500,RUB,Капучино,anna-${m.merchantId}@example.ru`]);
    expect(mail!.from).toEqual([{ address: 'no-reply@payments.local', name: 'Кофейня «Ромашка» via Payments' }]);
    expect(mail!.replyTo).toEqual([{ address: m.email, name: '' }]);
    expect(spaced(mail!.subject)).toBe('Счёт на 2 500,00 ₽ от Кофейня «Ромашка»');
    expect(spaced(mail!.text)).toContain('Кофейня «Ромашка» выставляет вам счёт на 2 500,00 ₽ (Капучино).');
    expect(mail!.text).toContain('Оплатить счёт: http');
    expect(mail!.html).toContain('<html lang="ru">');
    expect(mail!.html).toMatch(/<a href="http[^"]+\/pay\/[0-9a-f-]{36}" target="_blank" rel="noopener">Оплатить счёт<\/a>/);
    expect(mail!.headers['content-language']).toBe('ru');
    expect(mail!.text).not.toMatch(/\b(Hello|Invoice|Pay it)\b/);
  });

  it('en: English, the amount as English writes it', async () => {
    const m = await merchant({ displayName: 'Acme Coffee', defaultLanguage: 'en' });
    const [mail] = await batchMails(m, [`2500,RUB,Cappuccino,ann-${m.merchantId}@example.com`]);
    expect(mail!.from).toEqual([{ address: 'no-reply@payments.local', name: 'Acme Coffee via Payments' }]);
    expect(mail!.replyTo).toEqual([{ address: m.email, name: '' }]);
    expect(spaced(mail!.subject)).toBe('Invoice for RUB 2,500.00 from Acme Coffee');
    expect(spaced(mail!.text)).toContain('Acme Coffee has sent you an invoice for RUB 2,500.00 (Cappuccino).');
    expect(mail!.headers['content-language']).toBe('en');
  });

  it('kk: Kazakh, tenge as Kazakh writes it', async () => {
    const m = await merchant({ displayName: 'Qazaq Travel', defaultLanguage: 'kk' });
    const [mail] = await batchMails(m, [`15000,KZT,Тур,aigerim-${m.merchantId}@example.kz`]);
    expect(mail!.from).toEqual([{ address: 'no-reply@payments.local', name: 'Qazaq Travel via Payments' }]);
    expect(mail!.replyTo).toEqual([{ address: m.email, name: '' }]);
    expect(spaced(mail!.subject)).toBe('Qazaq Travel: 15 000,00 ₸ сомасына шот');
    expect(spaced(mail!.text)).toContain('Qazaq Travel сізге 15 000,00 ₸ сомасына шот жіберді (Тур).');
    expect(mail!.text).toContain('Шотты төлеу: http');
    expect(mail!.headers['content-language']).toBe('kk');
  });

  it('a name with quotes, commas and markup stays one sender’s name in From, and text in the HTML', async () => {
    const m = await merchant({ displayName: '"Acme, Inc." <b>&</b> <evil@example.com>', defaultLanguage: 'en' });
    const [mail] = await batchMails(m, [`10,RUB,<img src=x onerror=alert(1)>,bob-${m.merchantId}@example.com`]);
    expect(mail!.from).toEqual([{ address: 'no-reply@payments.local', name: '"Acme, Inc." <b>&</b> <evil@example.com> via Payments' }]);
    // maildev gives the HTML as it parsed it: quotes in text need no escaping there; markup characters do.
    expect(mail!.html).toContain('"Acme, Inc." &lt;b&gt;&amp;&lt;/b&gt; &lt;evil@example.com&gt; has sent you');
    expect(mail!.html).toContain('(&lt;img src=x onerror=alert(1)&gt;)');
    expect(mail!.html).not.toContain('<img');
    expect(mail!.html).not.toContain('<b>');
  });
});

describe('the batch row’s language column', () => {
  it('writes each row’s e-mail in its language (ru, kk, and v1’s kz as Kazakh), a row without one in the merchant’s default; an unknown language is that row’s error', async () => {
    const m = await merchant({ displayName: 'Acme Coffee', defaultLanguage: 'en' });
    const to = (who: string) => `${who}-${m.merchantId}@example.com`;
    const csv = [
      'amount,currency,description,email,language',
      `2500,RUB,Капучино,${to('ru')},ru`,
      `15000,KZT,Тур,${to('kk')},kk`,
      `900,RUB,Латте,${to('kz')},KZ`,
      `100,RUB,Tea,${to('default')},`,
      `5,RUB,Water,${to('fr')},fr`,
    ].join('\n');
    const res = await request(ctx.app).post('/api/v1/batch/invoices').set('x-api-key', m.apiKey).field('sendEmails', 'true').attach('file', Buffer.from(csv), 'invoices.csv');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ total: 5, created: 4, failed: 1, errors: [{ row: 5, externalId: null, error: 'language "fr" is not one of ru, en, kk (or kz)' }] });
    const mails = await eventually(
      async () => {
        const mine = (await maildev.emails()).filter((e) => e.to.some((t) => t.address.endsWith(`-${m.merchantId}@example.com`)));
        expect(mine).toHaveLength(4);
        return new Map(mine.map((e) => [e.to[0]!.address.split('-')[0]!, e]));
      },
      60_000,
      200,
    );
    const ru = mails.get('ru')!;
    expect(spaced(ru.subject)).toBe('Счёт на 2 500,00 ₽ от Acme Coffee');
    expect(ru.headers['content-language']).toBe('ru');
    await assertNoEnglish(ru.html!, 'ru', { allow: ['Acme Coffee'] });
    expect(ru.text).not.toMatch(/\b(Hello|Invoice|Pay the invoice|valid until)\b/);
    for (const who of ['kk', 'kz']) {
      const kk = mails.get(who)!;
      expect([who, kk.headers['content-language']]).toEqual([who, 'kk']);
      expect(kk.html).toContain('<html lang="kk">');
      await assertNoEnglish(kk.html!, 'kk', { allow: ['Acme Coffee'] });
    }
    expect(spaced(mails.get('kk')!.subject)).toBe('Acme Coffee: 15 000,00 ₸ сомасына шот');
    const plain = mails.get('default')!;
    expect([plain.headers['content-language'], spaced(plain.subject)]).toEqual(['en', 'Invoice for RUB 100.00 from Acme Coffee']);
    expect(mails.has('fr')).toBe(false);
  });

  it('is optional: the spec’s columns alone still read, and a header naming an unknown column is still refused, now listing language', async () => {
    const m = await merchant({ displayName: 'Acme Coffee', defaultLanguage: 'ru' });
    const plain = await request(ctx.app).post('/api/v1/batch/invoices').set('x-api-key', m.apiKey).attach('file', Buffer.from('amount,currency,description,email,externalId,redirectUrl\n10,RUB,Tea,,,\n'), 'invoices.csv');
    expect([plain.status, plain.body.created]).toEqual([201, 1]);
    const unknown = await request(ctx.app).post('/api/v1/batch/invoices').set('x-api-key', m.apiKey).attach('file', Buffer.from('amount,currency,locale\n10,RUB,ru\n'), 'invoices.csv');
    expect([unknown.status, unknown.body.error.details]).toEqual([400, [{ field: 'file', message: 'has unknown columns: locale (known: amount, currency, description, email, externalId, redirectUrl, language)' }]]);
  });
});

describe('the mailer', () => {
  it('never lets a line break in a name or subject start a header of its own', async () => {
    const mailer = smtpMailer({ ...ctx.deps.config, SMTP_PORT: maildev.smtpPort });
    try {
      const to = `carol-${Date.now()}@example.com`;
      await mailer.send({ to, fromName: 'Evil\r\nBcc: victim@example.com\r\nX-Injected: 1', replyTo: 'shop@example.com', subject: 'Hi\r\nBcc: victim2@example.com', text: 'x' });
      const mail = await eventually(async () => {
        const found = (await maildev.emails()).find((e) => e.to.some((t) => t.address === to));
        expect(found).toBeDefined();
        return found!;
      });
      expect(mail.from).toEqual([{ address: 'no-reply@payments.local', name: 'Evil Bcc: victim@example.com X-Injected: 1 via Payments' }]);
      expect(mail.subject).toBe('Hi Bcc: victim2@example.com');
      expect(mail.headers['x-injected']).toBeUndefined();
      expect(mail.headers.bcc).toBeUndefined();
      expect((await maildev.emails()).some((e) => e.to.some((t) => t.address.startsWith('victim')))).toBe(false);
    } finally {
      mailer.close();
    }
  });
});
