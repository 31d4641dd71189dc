import type { Page } from 'playwright-core';

/**
 * "No English on a Russian (or Kazakh) page", as a test can check it: every word in Latin
 * letters that the payer reads (visible text, the document's title) or that a screen reader
 * says (aria-label, alt, title, placeholder, a button's value) is English unless it is on an
 * explicit allow-list. Text an element declares to be in another language (`lang="en"` on the
 * language switch's "English") is not the page's own and is skipped. Words inside a token
 * holding a digit, `@` or `://` are identifiers (amounts, invoice numbers, e-mail addresses,
 * links), not language.
 */

/** A page language this check applies to: the Cyrillic ones. */
export type CyrillicLanguage = 'ru' | 'kk';

/**
 * Latin-letter words any page may show: the payment system's and file formats' own names, and
 * UTC (a time's offset is written so in Russian and Kazakh too).
 * Currency codes (ISO 4217, upper case) are allowed besides. Anything page-specific (the
 * merchant's name, a description the merchant wrote, a country code a hint names) is the
 * caller's `allow`.
 */
export const ALLOWED_LATIN_WORDS: readonly string[] = ['SBP', 'QR', 'PDF', 'PNG', 'JPEG', 'WebP', 'CVC', 'KYC', 'Visa', 'Mastercard', 'Mir', 'UTC'];

const CURRENCY_CODES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));

export interface NoEnglishOptions {
  /**
   * The page's own words besides ALLOWED_LATIN_WORDS (the merchant's name, an invoice's
   * description), each allowed where it stands whole, as written (spaces may differ): allowing
   * "Receipt required" does not allow "Receipt" or "required" elsewhere on the page.
   */
  allow?: readonly string[];
}

/** A piece of text the page shows or says, and where it came from (`text`, `title`, `aria-label`, `document title`, …). */
export interface PageText {
  text: string;
  where: string;
}

export interface EnglishFinding {
  word: string;
  where: string;
  /** The text the word stands in, for the failure message. */
  context: string;
}

const LATIN_WORD = /[A-Za-z]+(?:['’][A-Za-z]+)*/g;

/** The Latin words of `texts` that are not allowed, each with where it stands. */
export function englishIn(texts: readonly PageText[], options: NoEnglishOptions = {}): EnglishFinding[] {
  const allowed = new Set(ALLOWED_LATIN_WORDS.map((w) => w.toLowerCase()));
  const callers = (options.allow ?? []).map((phrase) => phrase.trim()).filter(Boolean);
  // Longest first, so a phrase inside another (a name in a description) does not cut it short.
  const ownWords = callers.length
    ? new RegExp(callers.sort((a, b) => b.length - a.length).map((phrase) => phrase.split(/\s+/).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\s+')).join('|'), 'g')
    : null;
  const findings: EnglishFinding[] = [];
  for (const { text, where } of texts) {
    for (const token of (ownWords ? text.replace(ownWords, ' ') : text).split(/\s+/)) {
      if (!token || /[\d@]|:\/\//.test(token)) continue;
      for (const word of token.match(LATIN_WORD) ?? []) {
        if (allowed.has(word.toLowerCase()) || CURRENCY_CODES.has(word)) continue;
        findings.push({ word, where, context: text.trim().replace(/\s+/g, ' ').slice(0, 120) });
      }
    }
  }
  return findings;
}

/**
 * Fails when `page` (a Playwright page, or a page's HTML as served) is not wholly in `lang`:
 * its `<html lang>` must be `lang`, its body must show some text in that (Cyrillic) language,
 * so that a blank page cannot pass, and no English word (see above) may show. The message
 * lists each word with where it stands.
 */
export async function assertNoEnglish(page: Page | string, lang: CyrillicLanguage, options: NoEnglishOptions = {}): Promise<void> {
  const { lang: declared, texts } = typeof page === 'string' ? textsOfHtml(page) : await textsOfPage(page);
  const problems: string[] = [];
  if (primaryTag(declared) !== lang) problems.push(`<html lang="${declared}">, expected "${lang}"`);
  // A blank or unrendered page has no English either: it must say something in its language.
  if (!texts.some((t) => t.where !== 'document title' && CYRILLIC.test(t.text))) problems.push(`no text in "${lang}" on the page: blank, or not rendered`);
  const seen = new Set<string>();
  for (const f of englishIn(texts, options)) {
    const line = `"${f.word}" in ${f.where}: ${f.context}`;
    if (!seen.has(line)) problems.push(line);
    seen.add(line);
  }
  if (problems.length > 0) throw new Error(`English on a "${lang}" page:\n  ${problems.join('\n  ')}`);
}

const CYRILLIC = /\p{Script=Cyrillic}/u;

const primaryTag = (tag: string | null | undefined): string => (tag ?? '').trim().toLowerCase().split('-')[0]!;

/** Attributes that are read out or shown as text. */
const SPOKEN_ATTRIBUTES = ['aria-label', 'aria-description', 'alt', 'title', 'placeholder'] as const;

/**
 * What a rendered page shows and says, in the browser: text nodes of rendered elements
 * (checkVisibility: not display:none, visibility:hidden or transparent; a select's options
 * count when the select does), the spoken attributes of rendered elements, a button's value,
 * and the document's title. Text in form fields is the payer's own and is skipped.
 */
async function textsOfPage(page: Page): Promise<{ lang: string; texts: PageText[] }> {
  return page.evaluate(`(${PAGE_TEXTS})(${JSON.stringify(SPOKEN_ATTRIBUTES)})`);
}

/** The in-page half of textsOfPage, as source: the workspace's TypeScript has no DOM types. */
const PAGE_TEXTS = `(attributes) => {
  const pageLang = document.documentElement.lang;
  const primary = (tag) => (tag || '').trim().toLowerCase().split('-')[0];
  const own = (el) => primary(el.closest('[lang]')?.getAttribute('lang')) === primary(pageLang);
  const shown = (el) => {
    const target = el.tagName === 'OPTION' || el.tagName === 'OPTGROUP' ? el.closest('select') : el;
    return target !== null && target.checkVisibility({ visibilityProperty: true, opacityProperty: true });
  };
  const texts = [{ text: document.title, where: 'document title' }];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || ['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'TEXTAREA'].includes(parent.tagName)) continue;
    if (shown(parent) && own(parent) && node.textContent.trim()) texts.push({ text: node.textContent, where: '<' + parent.tagName.toLowerCase() + '> text' });
  }
  for (const el of Array.from(document.body.querySelectorAll('*'))) {
    if (!shown(el) || !own(el)) continue;
    for (const name of attributes) {
      const value = el.getAttribute(name);
      if (value && value.trim()) texts.push({ text: value, where: '<' + el.tagName.toLowerCase() + ' ' + name + '>' });
    }
    if (el.tagName === 'INPUT' && ['submit', 'button', 'reset'].includes(el.type) && el.value) texts.push({ text: el.value, where: '<input value>' });
  }
  return { lang: document.documentElement.lang, texts };
}`;

const VOID_ELEMENTS = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };
const decode = (s: string) =>
  s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (all, e: string) =>
    e[0] === '#' ? String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1))) : (ENTITIES[e.toLowerCase()] ?? all),
  );

/**
 * The same from a page's HTML as served (no browser): text outside `<head>` (but its title),
 * scripts, styles, templates and textareas, and outside elements marked `hidden`; the spoken
 * attributes and button values; `lang` as declared on each element. CSS is not applied, so a
 * stylesheet's `display: none` is not seen: a Chromium check of the rendered page sees it.
 */
export function textsOfHtml(source: string): { lang: string; texts: PageText[] } {
  const body = source.replace(/<!--[\s\S]*?-->|<![^>]*>/g, '').replace(/<(script|style|template|textarea)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, '');
  /** An open element: whether its text is unseen (hidden, in <head>) or in another language. */
  type Open = { tag: string; unseen: boolean; foreign: boolean };
  const stack: Open[] = [];
  const top = (): Open => stack.at(-1) ?? { tag: '', unseen: false, foreign: false };
  let pageLang = '';
  const texts: PageText[] = [];
  const token = /<\s*(\/?)\s*([a-zA-Z][a-zA-Z0-9-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>|([^<]+)|</g;
  for (let m = token.exec(body); m; m = token.exec(body)) {
    const [, closing, rawTag, rawAttrs, text] = m;
    if (rawTag === undefined) {
      const at = top();
      const content = decode(text ?? '<');
      if (at.tag === 'title') texts.push({ text: content, where: 'document title' });
      else if (content.trim() && !at.unseen && !at.foreign) texts.push({ text: content, where: `<${at.tag}> text` });
      continue;
    }
    const tag = rawTag.toLowerCase();
    if (closing) {
      const at = stack.map((o) => o.tag).lastIndexOf(tag);
      if (at >= 0) stack.length = at;
      continue;
    }
    const attrs = new Map<string, string>();
    for (const a of (rawAttrs ?? '').matchAll(/([^\s=/"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?/g)) attrs.set(a[1]!.toLowerCase(), decode(a[2] ?? a[3] ?? a[4] ?? ''));
    if (tag === 'html') pageLang = attrs.get('lang') ?? '';
    const parent = top();
    const open: Open = {
      tag,
      unseen: parent.unseen || tag === 'head' || attrs.has('hidden') || (tag === 'input' && attrs.get('type') === 'hidden'),
      foreign: attrs.has('lang') ? primaryTag(attrs.get('lang')) !== primaryTag(pageLang) : parent.foreign,
    };
    if (!open.unseen && !open.foreign) {
      for (const name of SPOKEN_ATTRIBUTES) {
        const value = attrs.get(name);
        if (value?.trim()) texts.push({ text: value, where: `<${tag} ${name}>` });
      }
      const value = attrs.get('value');
      if (tag === 'input' && ['submit', 'button', 'reset'].includes(attrs.get('type') ?? '') && value) texts.push({ text: value, where: '<input value>' });
    }
    if (!VOID_ELEMENTS.has(tag) && !/\/\s*$/.test(rawAttrs ?? '')) stack.push(open);
  }
  return { lang: pageLang, texts };
}
