import { brandBar, titleWithMerchant, type PageBrand } from '@pay/accounts';
import { html, LANGUAGE_NAMES, type SafeHtml } from '@pay/http';
import { assetUrl, sharedAssetUrl } from '../../assets';
import type { CurrencyInfo } from '../../shared/currencies';
import { LANGUAGES, LOCALES, TEXTS, type CryptoPageTexts, type Language } from './i18n';
import type { PageFacts } from './presenter';
import { versionOf } from './presenter';

export interface PageModel {
  invoice: { id: string; address: string; description: string | null; isTest: boolean; expiresAt: Date; paidAt: Date | null };
  info: CurrencyInfo;
  facts: PageFacts;
  /** Who asks for the money: its bar first on the page (@pay/accounts' brandBar, as on the fiat and KYC pages) and its name in the title. */
  merchant: PageBrand;
  language: Language;
  /** The EIP-681 payment request (QR and wallet link), when a wallet could act on it. */
  uri: string | null;
  /** The QR code of `uri`, an SVG we generated. */
  qrSvg: string | null;
}

/** `m:ss` or `h:mm:ss` left, as the script then counts it down. */
export function remainingText(ms: number): string {
  const s = Math.ceil(ms / 1000);
  const h = Math.floor(s / 3600);
  return `${h > 0 ? `${h}:` : ''}${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

/**
 * A moment as the server can write it: in UTC, said so, in the page's language. The script
 * rewrites it in the payer's own time zone with its offset (the browser's Intl), so without
 * JavaScript the payer still reads a correct time.
 */
export function utcText(at: Date, language: Language): string {
  return new Intl.DateTimeFormat(LOCALES[language], { year: 'numeric', month: 'long', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZone: 'UTC', timeZoneName: 'short' }).format(at);
}

const moment = (at: Date, language: Language, testId: string) =>
  html`<time data-testid="${testId}" data-local-time datetime="${at.toISOString()}">${utcText(at, language)}</time>`;

/** A proper name or code: the same in every language, and not for a translator. */
const name = (text: string) => html`<span translate="no">${text}</span>`;

/** A value the payer copies: shown as text, with a button the script reveals (it needs the Clipboard API). */
function copyable(t: CryptoPageTexts, value: string, label: string, testId: string, unit: SafeHtml | '' = ''): SafeHtml {
  return html`<span class="copy-row"><span><code class="copy-value" translate="no" data-testid="${testId}">${value}</code>${unit ? html` ${unit}` : ''}</span><button type="button" class="copy" data-copy="${value}" data-testid="copy-${testId}" data-copied="${t.copied}" data-copy-failed="${t.copyFailed}" hidden>${label}</button></span><span class="copy-note" role="status" data-copy-note></span>`;
}

function languageSwitch(m: PageModel, t: CryptoPageTexts): SafeHtml {
  return html`<nav class="languages" aria-label="${t.language}" data-testid="languages">${LANGUAGES.map((l) =>
    l === m.language
      ? html`<span lang="${l}" aria-current="true"><b>${LANGUAGE_NAMES[l]}</b></span>`
      : html`<a lang="${l}" data-lang="${l}" href="/pay/${m.invoice.id}?lang=${l}">${LANGUAGE_NAMES[l]}</a>`,
  )}</nav>`;
}

/** The part of the page that changes with the invoice: the script swaps it in place when the status poll sees a change. */
export function liveSection(m: PageModel): SafeHtml {
  const t = TEXTS[m.language];
  const f = m.facts;
  const units = m.info.currencyName;
  const amounts = html`<dl class="figures">
<div><dt>${t.amount}</dt><dd><span data-testid="total">${f.amount.toString()}</span> ${name(units)}</dd></div>
<div><dt>${t.received}</dt><dd><span data-testid="received">${f.received.toString()}</span> ${name(units)}</dd></div>
${f.awaiting.gt(0) ? html`<div><dt>${t.awaiting}</dt><dd><span data-testid="awaiting">${f.awaiting.toString()}</span> ${name(units)}</dd></div>` : ''}
${f.open ? html`<div class="due"><dt>${t.due}</dt><dd><span data-testid="due">${f.due.toString()}</span> ${name(units)}</dd></div>` : ''}
</dl>`;
  const status = html`<p class="state ${f.state}">${t.status}: <span data-testid="status">${t.states[f.state]}</span></p>`;
  const testNotice = m.invoice.isTest ? html`<p class="problem" data-testid="test-mode-notice">${t.testModeNotice}</p>` : '';

  if (f.open) {
    const expiry = html`<p class="expiry">${t.expiresIn} <time data-testid="countdown" data-remaining-ms="${f.remainingMs}" datetime="${m.invoice.expiresAt.toISOString()}">${remainingText(f.remainingMs)}</time><br>${t.validUntil} ${moment(m.invoice.expiresAt, m.language, 'expires-at')}</p>`;
    const pay = f.due.gt(0)
      ? html`<section class="pay" data-testid="pay-box">
${m.uri && m.qrSvg ? html`<img class="qr" data-testid="qr" data-uri="${m.uri}" src="data:image/svg+xml;base64,${Buffer.from(m.qrSvg).toString('base64')}" alt="${t.qrAlt}" width="246" height="246">` : ''}
<p data-testid="instruction">${t.sendExactly(html`<b>${f.due.toString()} ${name(units)}</b>`, html`<b>${name(m.info.networkName)}</b>`)}</p>
<dl class="fields">
<div><dt>${t.amount}</dt><dd>${copyable(t, f.due.toString(), t.copyAmount, 'due-amount', name(units))}</dd></div>
<div><dt>${t.network}</dt><dd>${name(m.info.networkName)}</dd></div>
<div><dt>${t.address}</dt><dd>${copyable(t, m.invoice.address, t.copyAddress, 'address')}</dd></div>
</dl>
${m.uri ? html`<a class="button" data-testid="open-wallet" href="${m.uri}">${t.openWallet}</a>` : ''}
</section>`
      : html`<p class="notice" data-testid="on-its-way">${t.allOnItsWay}</p>`;
    return html`${status}${amounts}${expiry}${testNotice}${pay}`;
  }
  if (f.state === 'paid') {
    return html`${status}${amounts}<p class="notice" data-testid="paid">${t.paidText}${m.invoice.paidAt ? html` ${t.paidAt}: ${moment(m.invoice.paidAt, m.language, 'paid-at')}` : ''}</p><p>${t.closePage}</p>`;
  }
  // Expired (or partly paid and expired): no address, no QR, nothing to copy: a payment sent now is not credited.
  const merchantName = m.merchant.displayName;
  const explanation = f.awaiting.gt(0)
    ? html`<p>${t.expiredConfirming}</p>`
    : f.state === 'underpaid'
      ? html`<p>${t.underpaidText(merchantName)}</p>`
      : html`<p>${t.expiredText}</p><p>${t.alreadyPaid(merchantName)}</p>`;
  return html`${status}${amounts}<section class="stop" data-testid="do-not-pay"><h2>${t.doNotPay}</h2>${explanation}</section>${testNotice}`;
}

function layout(language: Language, title: string, main: SafeHtml, body: SafeHtml = html``): string {
  return html`<!doctype html>
<html lang="${language}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><link rel="icon" href="data:,"><link rel="stylesheet" href="${sharedAssetUrl('pay.css')}"><link rel="stylesheet" href="${assetUrl('crypto-pay.css')}"><script src="${assetUrl('crypto-pay.js')}" defer></script></head>
<body${body}><main class="sheet">${main}</main></body></html>`.value;
}

/**
 * The invoice's `paymentUrl`. The script (public/crypto-pay.js) polls `/pay/{id}/status` and,
 * when its `version` differs from the page's, fetches the page again and swaps the live
 * section in place: no reload, and the markup is rendered in one place (here).
 */
export function paymentPage(m: PageModel): string {
  const t = TEXTS[m.language];
  // Always the page's language: the poll's announcement must speak it even where the merchant's default chose it.
  const lang = `?lang=${m.language}`;
  const title = titleWithMerchant(t.pay(`${m.facts.amount.toString()} ${m.info.currencyName}`), m.merchant);
  const main = html`${brandBar(m.merchant)}${languageSwitch(m, t)}<header><p class="number">${name(m.info.networkName)}${
    m.invoice.isTest ? html` <span class="badge" data-testid="test-mode">${t.testModeBadge}</span>` : ''
  }</p>
<h1 class="amount" data-testid="amount">${m.facts.amount.toString()} ${name(m.info.currencyName)}</h1>
${m.invoice.description ? html`<p class="description" data-testid="description">${m.invoice.description}</p>` : ''}</header>
<div data-live data-testid="live">${liveSection(m)}</div>
<p class="visually-hidden" role="status" aria-live="polite" data-announce data-testid="announce"></p>`;
  const body = html` data-invoice="${m.invoice.id}" data-status-url="/pay/${m.invoice.id}/status${lang}" data-version="${versionOf(m.facts)}" data-final="${m.facts.final ? 'true' : 'false'}" data-locale="${LOCALES[m.language]}"`;
  return layout(m.language, title, main, body);
}

/** The page of a link that leads nowhere (unknown invoice, broken link, refused): in the payer's language, HTML. */
export function problemPage(language: Language, title: string, text: string): string {
  return layout(language, title, html`<h1>${title}</h1><p data-testid="error">${text}</p>`);
}
