import type { RequestHandler } from 'express';
import { ApiError, type ErrorDetail } from '@pay/schemas';
import { sniffType } from '@pay/http';
import type { Queries } from '@pay/db';
import { brandRowOf, upsertBrand, type BrandChanges } from './store/merchant-brands';

/** The languages payers are addressed in (pages and e-mails). */
export const BRAND_LANGUAGES = ['ru', 'en', 'kk'] as const;
export type BrandLanguage = (typeof BRAND_LANGUAGES)[number];
/** Where a merchant has set none: the spec's default locale (KYC sessions default to `ru`). */
export const DEFAULT_BRAND_LANGUAGE: BrandLanguage = 'ru';

/**
 * A logo is a small PNG or JPEG uploaded to us, never a URL of the merchant's: a remote image
 * would need the pages' CSP opened to other hosts, would tell the merchant's host every payer's
 * address, and could change after it was checked. It is shown inline as a `data:` URL (the pages'
 * CSP allows `img-src data:` already, on both services), so every page of any service shows it
 * with no route of its own. SVG is refused: it is a document that can carry script and links.
 * 64 KB keeps each page that carries it light on a phone.
 */
export const MAX_LOGO_BYTES = 64 * 1024;
export const LOGO_TYPES = ['image/png', 'image/jpeg'] as const;
export type LogoType = (typeof LOGO_TYPES)[number];
export const MAX_DISPLAY_NAME_LENGTH = 100;
export const BRAND_COLOR_PATTERN = '^#[0-9a-fA-F]{6}$';

/** How payers see a merchant: what every page and e-mail shows of it, read with `merchantBrand`. */
export interface MerchantBrand {
  /** The display name, or `companyName` when none is set. Plain text: escape it where it goes. */
  displayName: string;
  /** A `data:image/png;base64,…` (or jpeg) URL, for an `<img src>`; null when there is no logo. */
  logoUrl: string | null;
  /** `#rrggbb` (lower-case), or null: the page's own colours. */
  brandColor: string | null;
  /** `#000000` or `#ffffff`, whichever contrasts more with `brandColor` (always ≥ 4.58:1, WCAG AA); null with it. */
  brandTextColor: string | null;
  /** The language of e-mails to payers (batch e-mails): the spec's CSV names no language a row could give. Pages follow the payer's browser. */
  defaultLanguage: BrandLanguage;
  /** The merchant's registered e-mail: the Reply-To of e-mails sent for it, so payers' answers reach the merchant. */
  email: string;
}

const isLanguage = (v: string | null): v is BrandLanguage => (BRAND_LANGUAGES as readonly string[]).includes(v ?? '');

/** The one read of a merchant's identity for pages and e-mails: one statement, NOT_FOUND when there is no such merchant. */
export async function merchantBrand(on: Queries, merchantId: string): Promise<MerchantBrand> {
  const r = await brandRowOf(on, merchantId);
  if (!r) throw new ApiError('NOT_FOUND', 'Merchant not found');
  return {
    displayName: r.displayName ?? r.companyName,
    logoUrl: r.logo && r.logoType ? `data:${r.logoType};base64,${r.logo.toString('base64')}` : null,
    brandColor: r.brandColor,
    brandTextColor: r.brandColor ? textColorOn(r.brandColor) : null,
    defaultLanguage: isLanguage(r.defaultLanguage) ? r.defaultLanguage : DEFAULT_BRAND_LANGUAGE,
    email: r.email,
  };
}

/** WCAG 2 relative luminance of `#rrggbb`. */
export function relativeLuminance(color: string): number {
  const linear = (i: number) => {
    const s = parseInt(color.slice(i, i + 2), 16) / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * linear(1) + 0.7152 * linear(3) + 0.0722 * linear(5);
}

/** WCAG 2 contrast ratio of two `#rrggbb` colours (1 to 21). */
export function contrastRatio(a: string, b: string): number {
  const [la, lb] = [relativeLuminance(a), relativeLuminance(b)];
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

/**
 * Black or white text, whichever reads better on the colour. One of the two always reaches
 * 4.58:1 (their ratios multiply to 21), above the 4.5:1 WCAG AA asks of body text, so any
 * colour a merchant picks keeps the pages readable (axe-core's color-contrast rule).
 */
export function textColorOn(color: string): '#000000' | '#ffffff' {
  return contrastRatio(color, '#ffffff') >= contrastRatio(color, '#000000') ? '#ffffff' : '#000000';
}

/** A change to the brand; a field left out keeps its value, null clears it. */
export interface BrandInput {
  displayName?: string | null;
  brandColor?: string | null;
  /** The file's bytes; its type is judged from them. */
  logo?: Buffer | null;
  defaultLanguage?: string;
}

/** Checks every field, refusing with VALIDATION_ERROR that names each bad one, then writes them in one statement. */
export async function setMerchantBrand(on: Queries, merchantId: string, input: BrandInput, now = new Date()): Promise<MerchantBrand> {
  const details: ErrorDetail[] = [];
  const changes: BrandChanges = {};
  if (input.displayName !== undefined) {
    const name = input.displayName === null ? null : input.displayName.trim();
    // A control character (a line break above all) would let a name forge e-mail headers or page
    // lines; a bidirectional override would let it show as another name ("moc.lapyap").
    // eslint-disable-next-line no-control-regex
    if (name !== null && (name.length === 0 || name.length > MAX_DISPLAY_NAME_LENGTH || /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/.test(name))) {
      details.push({ field: 'displayName', message: `must be 1 to ${MAX_DISPLAY_NAME_LENGTH} characters, with no line breaks, control characters or direction overrides` });
    } else changes.displayName = name;
  }
  if (input.brandColor !== undefined) {
    if (input.brandColor !== null && !new RegExp(BRAND_COLOR_PATTERN).test(input.brandColor)) details.push({ field: 'brandColor', message: 'must be a colour written #rrggbb' });
    else changes.brandColor = input.brandColor?.toLowerCase() ?? null;
  }
  if (input.defaultLanguage !== undefined) {
    if (!isLanguage(input.defaultLanguage)) details.push({ field: 'defaultLanguage', message: `must be one of ${BRAND_LANGUAGES.join(', ')}` });
    else changes.defaultLanguage = input.defaultLanguage;
  }
  if (input.logo !== undefined) {
    const type = input.logo && sniffType(input.logo);
    if (input.logo === null) changes.logo = null;
    else if (input.logo.length > MAX_LOGO_BYTES) details.push({ field: 'logo', message: `must be at most ${MAX_LOGO_BYTES} bytes` });
    else if (type !== 'image/png' && type !== 'image/jpeg') details.push({ field: 'logo', message: 'must be a PNG or JPEG image' });
    else changes.logo = { bytes: input.logo, type };
  }
  if (details.length > 0) throw new ApiError('VALIDATION_ERROR', details.map((d) => `${d.field} ${d.message}`).join('; '), details);
  // The merchant must exist before its row is written (the foreign key would refuse it as a 500 otherwise).
  await merchantBrand(on, merchantId);
  await upsertBrand(on, merchantId, changes, now);
  return merchantBrand(on, merchantId);
}

const STYLESHEET = /^\/brand\/([0-9a-f]{6})\.css$/;

/**
 * Where a page links the brand colour's stylesheet from (null without a colour). The pages' CSP
 * runs no inline style, so the colour comes as a stylesheet of the page's own origin; its URL
 * is the colour itself, so it is the same for every merchant of that colour and never changes.
 */
export const brandStylesheetPath = (brand: Pick<MerchantBrand, 'brandColor'>): string | null =>
  brand.brandColor ? `/brand/${brand.brandColor.slice(1).toLowerCase()}.css` : null;

/**
 * The stylesheet of a colour: `.brand` (the page's merchant bar) in the colour, its text in the
 * contrasting colour. Only what the URL names is written, so nothing of a merchant's ever
 * reaches the CSS.
 */
export function brandCss(color: string): string {
  const text = textColorOn(color);
  return `.brand{background-color:${color};color:${text};border-color:${color}}\n.brand *{color:${text}}\n`;
}

/** Serves `GET /brand/<rrggbb>.css` (mount it on a service whose pages show a brand). */
export function brandStylesheets(): RequestHandler {
  return (req, res, next) => {
    const m = req.method === 'GET' || req.method === 'HEAD' ? STYLESHEET.exec(req.path) : null;
    if (!m) return next();
    res.setHeader('Content-Type', 'text/css; charset=utf-8');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // The URL is the content: it never changes.
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    res.send(brandCss(`#${m[1]}`));
  };
}
