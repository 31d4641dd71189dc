import { html, type SafeHtml } from '@pay/http';
import { brandStylesheetPath, type MerchantBrand } from './brand';

// The merchant as the payer's pages show it, here beside `merchantBrand` so that every service's
// pages (invoicing's payment and KYC pages, crypto's payment page) draw it the same way.

/** What a page shows of the merchant (`merchantBrand`'s fields a page reads). */
export type PageBrand = Pick<MerchantBrand, 'displayName' | 'logoUrl' | 'brandColor'>;

/** A page's `<title>` with the merchant's name ("Оплатить 2 500,00 ₽ — Acme Ltd"): a tab or a bookmark says who asks. */
export function titleWithMerchant(title: string, brand: PageBrand): string {
  return `${title} — ${brand.displayName}`;
}

/**
 * The merchant's bar at the top of a payer's page (payment, KYC, crypto payment): its logo and name, so the
 * payer sees at once who is asking. The colour comes from the colour's stylesheet (PAGE_CSP
 * runs no inline style), linked here rather than in the head: a stylesheet link is allowed in
 * the body, and the bar stays one fragment each page places. The logo is decorative (the name
 * beside it says the same), so its alt is empty; the name is text, escaped like all page text,
 * and a proper name a browser's translator must leave alone.
 */
export function brandBar(brand: PageBrand): SafeHtml {
  const css = brandStylesheetPath(brand);
  return html`${css ? html`<link rel="stylesheet" href="${css}">` : ''}<div class="brand" data-testid="merchant">${
    brand.logoUrl ? html`<img class="brand-logo" src="${brand.logoUrl}" alt="" height="40" data-testid="merchant-logo">` : ''
  }<p class="brand-name" data-testid="merchant-name" translate="no">${brand.displayName}</p></div>`;
}
