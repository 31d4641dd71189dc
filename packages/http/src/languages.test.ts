import { acceptedLanguage, chosenLanguage, negotiateLanguage } from './languages';

const OURS = ['ru', 'en', 'kk'] as const;

describe('page language negotiation', () => {
  it('?lang= names one of ours in any case, a region or kz (Kazakh); anything else names none', () => {
    expect(chosenLanguage(OURS, 'KK')).toBe('kk');
    expect(chosenLanguage(OURS, 'kk-KZ')).toBe('kk');
    expect(chosenLanguage(OURS, 'kz')).toBe('kk');
    expect(chosenLanguage(OURS, 'de')).toBeUndefined();
    expect(chosenLanguage(OURS, ['ru'])).toBeUndefined();
    expect(chosenLanguage(['en'] as const, 'ru')).toBeUndefined();
  });

  it('Accept-Language: the first we speak by q, then order; q=0 refuses', () => {
    expect(acceptedLanguage(OURS, 'de-DE,de;q=0.9,en;q=0.5,ru;q=0.7')).toBe('ru');
    expect(acceptedLanguage(OURS, 'kk-KZ, ru;q=1')).toBe('kk');
    expect(acceptedLanguage(OURS, 'ru;q=0, en;q=0.1')).toBe('en');
    expect(acceptedLanguage(OURS, 'de')).toBeUndefined();
    expect(acceptedLanguage(OURS, undefined)).toBeUndefined();
  });

  it('?lang=, then the page owner’s explicit language, then Accept-Language, then the fallback', () => {
    const req = (lang: string | undefined, acceptLanguage?: string) => ({ query: lang ? { lang } : {}, headers: { 'accept-language': acceptLanguage } });
    expect(negotiateLanguage(OURS, req('en', 'ru'), { preferred: 'kk', fallback: 'ru' })).toEqual({ language: 'en', chosen: 'en' });
    expect(negotiateLanguage(OURS, req(undefined, 'en'), { preferred: 'kk', fallback: 'ru' })).toEqual({ language: 'kk', chosen: undefined });
    expect(negotiateLanguage(OURS, req('xx', 'en'), { fallback: 'ru' })).toEqual({ language: 'en', chosen: undefined });
    expect(negotiateLanguage(OURS, req(undefined, 'de'), { fallback: 'kk' })).toEqual({ language: 'kk', chosen: undefined });
  });
});
