// The crypto payment page (paymentUrl) sits in a folder of its own: it reads invoices and their
// transfers, and neither domain depends on it.
import { Router } from 'express';
import QRCode from 'qrcode';
import { html, PAGE_CSP, staticAssets, type SafeHtml } from '@pay/http';
import type { CryptoDeps } from '../../deps';
import { currencyInfo } from '../../shared/currencies';
import { Money, money } from '../../shared/money';
import { awaitingConfirmation } from '../../modules/transactions/transfers';
import { ASSETS_PATH, assetUrl, PUBLIC_DIR } from '../../assets';
import { paymentUri } from './payment-uri';
import { invoiceById } from '../../modules/invoices/service';

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
 * CSS and JS only, PAGE_CSP), the look and the countdown are the fiat page's, from the same
 * files (see ../assets.ts).
 *
 * It asks for what is still due: the amount less what was received (confirmed) and what is on
 * its way (seen, awaiting confirmations), so a payer who follows it after a partial payment
 * never overpays. The QR and the wallet link name the token the deployment watches
 * (Chain.paymentToken); a test-mode invoice has none on any real network, and shows a notice
 * saying so instead of anything a wallet could act on.
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
    const amount = money(invoice.amount);
    const received = money(invoice.amountReceived);
    const remainingMs = Math.max(0, invoice.expiresAt.getTime() - deps.clock.now().getTime());
    const open = (invoice.status === 'Pending' || invoice.status === 'PartiallyPaid') && remainingMs > 0;
    const awaiting = open ? await awaitingConfirmation(deps, invoice) : money(0);
    const due = Money.max(0, amount.sub(received).sub(awaiting));
    const token = invoice.isTest ? null : (deps.chains.live.get(info.network)?.paymentToken(invoice.currency) ?? null);
    const uri = open && token && due.gt(0) ? paymentUri(token, invoice.address, due) : null;
    const qr = uri ? await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }) : null;
    const state =
      invoice.status === 'Paid' ? 'paid' : invoice.status === 'Pending' || invoice.status === 'PartiallyPaid' ? (remainingMs > 0 ? 'pending' : 'expired') : 'expired';
    const units = info.currencyName;
    const body = html`<header><p class="number">${info.networkName}${invoice.isTest ? html` <span class="badge" data-testid="test-mode">TEST MODE: no real funds</span>` : ''}</p>
<h1 class="amount" data-testid="amount">${amount.toString()} ${units}</h1>
${invoice.description ? html`<p class="description">${invoice.description}</p>` : ''}</header>
<p class="state ${state}">Status: <span data-testid="status">${invoice.status}</span></p>
<p class="description">Received: <span data-testid="received">${received.toString()}</span> ${units}${
      awaiting.gt(0) ? html`; on its way, awaiting confirmations: <span data-testid="awaiting">${awaiting.toString()}</span> ${units}` : ''
    }${open ? html`; due: <span data-testid="due">${due.toString()}</span> ${units}` : ''}</p>
${open ? html`<p class="expiry">Expires in <time data-testid="countdown" data-remaining-ms="${remainingMs}" datetime="${invoice.expiresAt.toISOString()}">${remainingText(remainingMs)}</time></p>` : ''}
${
  invoice.isTest
    ? html`<p class="problem" data-testid="test-mode-notice">Test mode: this invoice is on no real network, and nothing sent to this address on one would ever arrive. It is paid through the sandbox API (POST /api/v1/sandbox/transactions).</p>`
    : ''
}
${
  open && due.gt(0)
    ? html`<div class="sbp">${
        uri
          ? html`<img class="qr" data-testid="qr" data-uri="${uri}" src="data:image/svg+xml;base64,${Buffer.from(qr!).toString('base64')}" alt="QR code of the payment for your wallet app" width="246" height="246">`
          : ''
      }
<p>Send exactly ${due.toString()} ${units} on ${info.networkName} to:</p><p class="description"><code data-testid="address">${invoice.address}</code></p>
${uri ? html`<a class="button" data-testid="open-wallet" href="${uri}">Open in wallet</a>` : ''}</div>`
    : open
      ? html`<p class="description">Everything due is on its way; the invoice is paid once it is confirmed.</p><p class="description">Address: <code data-testid="address">${invoice.address}</code></p>`
      : html`<p class="description">Address: <code data-testid="address">${invoice.address}</code></p>`
}`;
    res.type('html').send(layout(`Pay ${amount.toString()} ${units}`, body, open));
  });
  return router;
}
