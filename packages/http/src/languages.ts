/**
 * Which of a page's languages a request asks for: the page's language switch (`?lang=`) and the
 * browser's Accept-Language. One negotiation for every hosted page (invoicing's payment and KYC
 * pages, crypto's payment page); each page keeps its own catalogue of texts and passes the
 * languages it has them in, and what it falls back to.
 */

/** A tag's primary language, lower-case; `kz` (the country, which v1 KYC and some links use) means Kazakh. */
function primaryOf(tag: string): string {
  const primary = tag.trim().toLowerCase().split('-')[0]!;
  return primary === 'kz' ? 'kk' : primary;
}

const among = <L extends string>(supported: readonly L[], s: string): s is L => (supported as readonly string[]).includes(s);

/** A `?lang=` value that names one of `supported` (`KK`, `kk-KZ` and `kz` name `kk`); undefined otherwise. */
export function chosenLanguage<L extends string>(supported: readonly L[], lang: unknown): L | undefined {
  if (typeof lang !== 'string') return undefined;
  const primary = primaryOf(lang);
  return among(supported, primary) ? primary : undefined;
}

/** The first of Accept-Language's languages (by q, then order; q=0 refuses one) that is one of `supported`. */
export function acceptedLanguage<L extends string>(supported: readonly L[], acceptLanguage: string | undefined): L | undefined {
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((part, order) => {
      const [tag, ...params] = part.split(';');
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)).find(Boolean);
      return { language: primaryOf(tag ?? ''), q: q ? Number(q[1]) : 1, order };
    })
    .filter((l) => l.q > 0 && among(supported, l.language))
    .sort((a, b) => b.q - a.q || a.order - b.order);
  return ranked[0]?.language as L | undefined;
}

/** Each language the hosted pages speak, named in itself: for language switches and pickers. */
export const LANGUAGE_NAMES = { ru: 'Русский', en: 'English', kk: 'Қазақша' } as const;

/** What a page request carries that names a language. */
export interface LanguageRequest {
  query: unknown;
  headers: { 'accept-language'?: string };
}

/**
 * The page's language, in this order: `?lang=` (the payer chose it on the page); `preferred`
 * (what the page's owner set explicitly for this page, e.g. a KYC session's `language`); the
 * browser's Accept-Language; `fallback`. `chosen` is the `?lang=` value when it named one, for
 * the links and forms that keep the choice.
 */
export function negotiateLanguage<L extends string>(
  supported: readonly L[],
  req: LanguageRequest,
  opts: { preferred?: L; fallback: L },
): { language: L; chosen: L | undefined } {
  const chosen = chosenLanguage(supported, (req.query as Record<string, unknown> | undefined)?.lang);
  return { language: chosen ?? opts.preferred ?? acceptedLanguage(supported, req.headers['accept-language']) ?? opts.fallback, chosen };
}
