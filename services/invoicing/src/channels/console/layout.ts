import type { Request } from 'express';
import { consoleSessionFrom, getMerchant } from '@pay/accounts';
import type { AuthContext } from '@pay/auth';
import { html, type SafeHtml } from '@pay/http';
import type { ConsoleDeps } from '../../deps';
import { assetUrl } from '../../assets';
import { isOperator, QUEUES_PATH } from './operators';

/**
 * One entry of the console's navigation. A section adds its entry to NAV (one line), and its
 * pages then show it as current for every path under `href`.
 */
interface NavEntry {
  href: string;
  label: string;
  /** Only merchants named in CONSOLE_OPERATORS see it (the queue dashboard). */
  operators?: true;
}

/** The console's sections, in the order the navigation shows them. */
export const NAV: readonly NavEntry[] = [
  { href: '/console/payments', label: 'Payments' },
  { href: '/console/webhooks', label: 'Webhooks' },
  { href: '/console/payment-reviews', label: 'Payment reviews' },
  { href: '/console/kyc', label: 'KYC review' },
  { href: '/console/crypto', label: 'Crypto' },
  { href: '/console/settings', label: 'Settings' },
  { href: QUEUES_PATH, label: 'Queues', operators: true },
];

/** Where sign-in, `/console` and the brand link go: the payments list, what a merchant opens the console for. */
export const HOME = '/console/payments';

/** `nav-<last path segment>`: the entry's test id (`nav-kyc`, `nav-payment-reviews`, `nav-queues`). */
const testIdOf = (e: NavEntry) => `nav-${e.href.split('/').pop()}`;

/** The entry whose section holds `path`: the longest `href` that is `path` or a folder of it. */
function currentEntry(path: string): NavEntry | undefined {
  return NAV.filter((e) => path === e.href || path.startsWith(`${e.href}/`)).sort((a, b) => b.href.length - a.href.length)[0];
}

export interface Frame {
  title: string;
  body: SafeHtml;
  /** Signed-in pages carry the CSRF token for console.js and show who is signed in. */
  session?: { csrfToken: string; merchant: string; mode: 'test' | 'live'; operator: boolean; path: string };
}

function navigation(s: NonNullable<Frame['session']>): SafeHtml {
  const current = currentEntry(s.path);
  return html`<nav aria-label="Console">${NAV.filter((e) => !e.operators || s.operator).map(
    (e) => html`<a href="${e.href}" data-testid="${testIdOf(e)}"${e === current ? html` aria-current="page"` : ''}>${e.label}</a>`,
  )}</nav>`;
}

export function layout(f: Frame): SafeHtml {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${f.title} · Console</title><link rel="icon" href="data:,">
${f.session ? html`<meta name="csrf-token" content="${f.session.csrfToken}">` : ''}
<link rel="stylesheet" href="${assetUrl('console.css')}"><script src="${assetUrl('console.js')}" defer></script></head>
<body>
<header class="top"><a class="brand" href="${HOME}">Payments console</a>
${f.session ? navigation(f.session) : ''}
${
  f.session
    ? html`<span class="who"><span class="badge ${f.session.mode}" data-testid="mode">${f.session.mode === 'test' ? 'Test mode' : 'Live mode'}</span> ${f.session.merchant}</span>
<form data-api="/console/api/session" data-method="DELETE" data-next="/console/sign-in"><button class="link">Sign out</button></form>`
    : ''
}</header>
<main>${f.body}</main></body></html>`;
}

/** What a signed-in page's frame shows: the CSRF token for console.js, the merchant, the mode and where the page is. */
export async function sessionFrame(deps: ConsoleDeps, req: Request, auth: AuthContext): Promise<NonNullable<Frame['session']>> {
  const s = consoleSessionFrom(req.res!);
  const merchant = await getMerchant(deps.db, auth.merchantId);
  return {
    csrfToken: s.csrfToken,
    merchant: merchant.companyName,
    mode: auth.isTestMode ? 'test' : 'live',
    operator: isOperator(deps, auth.merchantId),
    path: req.path,
  };
}
