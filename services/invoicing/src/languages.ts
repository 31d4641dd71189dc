import { html, LANGUAGE_NAMES, negotiateLanguage, type LanguageRequest, type SafeHtml } from '@pay/http';
import { money } from '@pay/money';
import { LANGUAGES, type Language } from './modules/kyc/schemas';

/**
 * The hosted pages' languages (ru, en, kk: the KYC API's `language`), how a request picks one,
 * and the switch between them. Each page keeps its texts in a catalogue of its own, one record
 * per language (channels/pay-page/i18n.ts, modules/kyc/i18n.ts).
 */

/** The locale amounts are formatted in (Intl.NumberFormat), per page language. */
export const LOCALES: Record<Language, string> = { ru: 'ru-RU', en: 'en-US', kk: 'kk-KZ' };

/** One formatter per language and currency: building one costs about 30 µs, using it 2 µs. */
const amountFormats = new Map<string, Intl.NumberFormat>();

/**
 * `1234567.5 USD` → `$1,234,567.50` (en), `1 234 567,50 $` (ru), for pages and e-mails:
 * Intl.NumberFormat for the language's locale, given the exact decimal as a string (never a
 * float), so no digit is rounded away.
 */
export function formatAmount(amount: { toString(): string }, currency: string, language: Language): string {
  const key = `${language} ${currency}`;
  let format = amountFormats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(LOCALES[language], { style: 'currency', currency, minimumFractionDigits: 2, maximumFractionDigits: 2 });
    amountFormats.set(key, format);
  }
  return format.format(money(amount).toFixed(2) as `${number}`);
}

/**
 * The language of a page request (@pay/http's negotiation, which crypto's payment page
 * shares), and the `?lang=` its forms and links keep when the payer chose it: `?lang=`, else
 * `preferred` (what the page's owner named explicitly: the language a merchant set on a KYC
 * session), else Accept-Language, else `fallback` (English unless the page has its own
 * default, as a KYC session has `ru`).
 */
export function requestLanguage(
  req: LanguageRequest,
  page: { preferred?: Language; fallback?: Language } = {},
): { language: Language; langQuery: string } {
  const { language, chosen } = negotiateLanguage(LANGUAGES, req, { preferred: page.preferred, fallback: page.fallback ?? 'en' });
  return { language, langQuery: chosen ? `?lang=${chosen}` : '' };
}

/** The language switch: links to the same page (`path`) in each language, the current one marked. */
export function languageSwitch(current: Language, path: string, label: string): SafeHtml {
  return html`<nav class="languages" aria-label="${label}" data-testid="languages">${LANGUAGES.map((l) =>
    l === current ? html`<strong lang="${l}">${LANGUAGE_NAMES[l]}</strong>` : html`<a lang="${l}" hreflang="${l}" href="${path}?lang=${l}" data-lang="${l}">${LANGUAGE_NAMES[l]}</a>`,
  )}</nav>`;
}
