import request from 'supertest';
import { invoicingAppForSuite, newMerchant, v1Request, v2Request } from '../../../test/test-support';
import { kycSessionById } from './store';

// The verification page's language: ?lang=, else the language the merchant named on the
// session, else the customer's browser (Accept-Language), else the session's default (ru).
const ctx = invoicingAppForSuite();

const TITLES = { ru: 'Проверка личности', en: 'Identity verification', kk: 'Жеке басты растау' } as Record<string, string>;

/** The page's `lang`; its title names the merchant (its display name, by default the company name) in that language. */
const pageLanguage = async (url: string, acceptLanguage?: string) => {
  const req = request(ctx.app).get(new URL(url).pathname + new URL(url).search);
  const res = await (acceptLanguage ? req.set('Accept-Language', acceptLanguage) : req);
  expect(res.status).toBe(200);
  const lang = /<html lang="([a-z]+)">/.exec(res.text)?.[1];
  expect(/<title>(.*)<\/title>/.exec(res.text)?.[1]).toBe(`${TITLES[lang!]} — Acme Ltd`);
  return lang;
};

describe('the KYC page’s language', () => {
  it('a session created without a language follows the browser, then ru; the API still says ru', async () => {
    const m = await newMerchant(ctx.deps);
    const created = await v2Request(ctx.app, m, 'post', '/api/v2/kyc/sessions', {});
    expect(created.status).toBe(201);
    const url: string = created.body.session.verificationUrl;
    expect(await pageLanguage(url, 'en-GB,en;q=0.9')).toBe('en');
    expect(await pageLanguage(url, 'de-DE,kk;q=0.5')).toBe('kk');
    expect(await pageLanguage(url, 'de-DE')).toBe('ru');
    expect(await pageLanguage(url)).toBe('ru');
    expect(await pageLanguage(`${url}?lang=kk`, 'en')).toBe('kk');
    // The session's (API) language keeps the spec's default; only the page knows none was named.
    expect(await kycSessionById(ctx.deps.db, created.body.session.id)).toMatchObject({ language: 'ru', chosenLanguage: null });
  });

  it('a language the merchant named wins over the browser (ru included), ?lang= over both', async () => {
    const m = await newMerchant(ctx.deps);
    for (const language of ['ru', 'en', 'kk'] as const) {
      const created = await v2Request(ctx.app, m, 'post', '/api/v2/kyc/sessions', { language });
      const url: string = created.body.session.verificationUrl;
      const other = language === 'en' ? 'kk' : 'en';
      expect(await pageLanguage(url, `${other},${other}-XX;q=0.9`)).toBe(language);
      expect(await pageLanguage(url)).toBe(language);
      expect(await pageLanguage(`${url}?lang=${other}`, language)).toBe(other);
      expect(await kycSessionById(ctx.deps.db, created.body.session.id)).toMatchObject({ language, chosenLanguage: language });
    }
  });

  it('v1: a `locale` (kz is Kazakh) wins over the browser; none follows the browser', async () => {
    const m = await newMerchant(ctx.deps);
    const named = await v1Request(ctx.app, m, 'post', '/api/v1/kyc/sessions', { level: 'basic', redirectUrl: 'https://shop.example/kyc-done', locale: 'kz' });
    expect(named.status).toBe(201);
    expect(await pageLanguage(named.body.verificationUrl, 'en')).toBe('kk');
    const unnamed = await v1Request(ctx.app, m, 'post', '/api/v1/kyc/sessions', { level: 'basic', redirectUrl: 'https://shop.example/kyc-done' });
    expect(await pageLanguage(unnamed.body.verificationUrl, 'en')).toBe('en');
    expect(await pageLanguage(unnamed.body.verificationUrl)).toBe('ru');
  });
});
