import { Router } from 'express';
import QRCode from 'qrcode';
import { html, PAGE_CSP, staticAssets, type SafeHtml } from '@pay/kit';
import type { CryptoDeps } from '../deps';
import { currencyInfo } from '../currencies';
import { money } from '../money';
import { ASSETS_PATH, assetUrl, PUBLIC_DIR } from '../assets';
import { paymentUri } from './payment-uri';
import { invoiceById } from './invoices';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `m:ss` or `h:mm:ss` left, as pay.js then counts it down. */
function remainingText(ms: number): string {
  const s = Math.ceil(ms / 1000);
  const h = Math.floor(s / 3600);
  return `${h > 0 ? `${h}:` : ''}${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

function layout(title: string, body: SafeHtml, open: boolean): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>${open ? html`<meta http-equiv="refresh" content="10">` : ''}<link rel="icon" href="data:,"><link rel="stylesheet" href="${assetUrl('pay.css')}"><script src="${assetUrl('pay.js')}" defer></script></head>
<body data-status="${open ? 'pending' : 'settled'}"><main class="sheet">${body}</main></body></html>`.value;
}

/**
 * The invoice's `paymentUrl`: what the payer needs to send the transfer (amount, network,
 * address, and a QR code of the payment URI a wallet reads), a countdown to expiry, and the
 * invoice's state; it reloads itself every 10 s until the invoice is settled. The frame (own
 * CSS and JS only, PAGE_CSP), the look and the countdown are the fiat payment page's, from
 * the same files (see ../assets.ts).
 */
export function paymentPage(deps: CryptoDeps): Router {
  const router = Router();
  router.use(staticAssets(ASSETS_PATH, PUBLIC_DIR));
  router.get('/pay/:invoiceId', async (req, res) => {
    const id = req.params.invoiceId;
    const invoice = UUID.test(id) ? await invoiceById(deps, id) : null;
    res.setHeader('Content-Security-Policy', PAGE_CSP);
    res.setHeader('Cache-Control', 'no-store');
    if (!invoice) {
      res.status(404).type('html').send(layout('Invoice not found', html`<h1>Not found</h1><p data-testid="error">This invoice does not exist.</p>`, false));
      return;
    }
    const info = currencyInfo(invoice.currency);
    const amount = money(invoice.amount).toString();
    const remainingMs = Math.max(0, invoice.expiresAt.getTime() - deps.clock.now().getTime());
    const open = (invoice.status === 'Pending' || invoice.status === 'PartiallyPaid') && remainingMs > 0;
    const uri = paymentUri(invoice);
    const qr = open ? await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }) : null;
    const state =
      invoice.status === 'Paid' ? 'paid' : invoice.status === 'Pending' || invoice.status === 'PartiallyPaid' ? (remainingMs > 0 ? 'pending' : 'expired') : 'expired';
    const body = html`<header><p class="number">${info.networkName}${invoice.isTest ? html` <span class="badge" data-testid="test-mode">TEST MODE: no real funds</span>` : ''}</p>
<h1 class="amount" data-testid="amount">${amount} ${info.currencyName}</h1>
${invoice.description ? html`<p class="description">${invoice.description}</p>` : ''}</header>
<p class="state ${state}">Status: <span data-testid="status">${invoice.status}</span>; received ${money(invoice.amountReceived).toString()}</p>
${open ? html`<p class="expiry">Expires in <time data-testid="countdown" data-remaining-ms="${remainingMs}" datetime="${invoice.expiresAt.toISOString()}">${remainingText(remainingMs)}</time></p>` : ''}
${
  open
    ? html`<div class="sbp"><img class="qr" data-testid="qr" data-uri="${uri}" src="data:image/svg+xml;base64,${Buffer.from(qr!).toString('base64')}" alt="QR code of the payment for your wallet app" width="246" height="246">
<p>Send exactly ${amount} ${info.currencyName} on ${info.networkName} to:</p><p class="description"><code data-testid="address">${invoice.address}</code></p>
<a class="button" data-testid="open-wallet" href="${uri}">Open in wallet</a></div>`
    : html`<p class="description">Address: <code data-testid="address">${invoice.address}</code></p>`
}`;
    res.type('html').send(layout(`Pay ${amount} ${info.currencyName}`, body, open));
  });
  return router;
}
