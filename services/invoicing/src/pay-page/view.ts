import { html, type SafeHtml } from '@pay/kit';
import type { ErrorDetail } from '@pay/schemas';
import type { PaymentPageModel } from './presenter';

import { ASSETS_PATH } from '../page-assets';

/** The page frame: own CSS and JS only (the CSP allows nothing else), phone-width first. */
export function layout(title: string, body: SafeHtml, attrs: { status?: string; id?: string; receipt?: string } = {}): SafeHtml {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><link rel="icon" href="data:,"><link rel="stylesheet" href="${ASSETS_PATH}/pay.css"><script src="${ASSETS_PATH}/pay.js" defer></script></head>
<body data-status="${attrs.status ?? ''}" data-invoice="${attrs.id ?? ''}" data-receipt="${attrs.receipt ?? ''}"><main class="sheet">${body}</main></body></html>`;
}

function countdown(m: PaymentPageModel): SafeHtml {
  const s = Math.ceil(m.remainingMs / 1000);
  const text = `${Math.floor(s / 3600) > 0 ? `${Math.floor(s / 3600)}:` : ''}${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
  return html`<p class="expiry">Expires in <time data-testid="countdown" data-remaining-ms="${m.remainingMs}" datetime="${m.expiresAt}">${text}</time></p>`;
}

export interface FormProblem {
  message: string;
  details?: ErrorDetail[];
}

function problemBox(problem: FormProblem | undefined): SafeHtml {
  if (!problem) return html``;
  return html`<div class="problem" role="alert" data-testid="error"><p>${problem.message}</p>${
    problem.details?.length ? html`<ul>${problem.details.map((d) => html`<li>${d.field}: ${d.message}</li>`)}</ul>` : ''
  }</div>`;
}

function cardForm(m: PaymentPageModel): SafeHtml {
  // No `value` is ever written back: a refused number is typed again, never echoed.
  return html`<form class="card-form" method="post" action="/pay/${m.id}/card" data-card-form novalidate>
<label>Card number<input name="number" inputmode="numeric" autocomplete="cc-number" maxlength="23" placeholder="0000 0000 0000 0000" required data-testid="card-number"></label>
<div class="row"><label>Expiry<input name="expiry" autocomplete="cc-exp" maxlength="7" placeholder="MM/YY" required data-testid="card-expiry"></label>
<label>CVC<input name="cvc" inputmode="numeric" autocomplete="cc-csc" maxlength="4" placeholder="123" required data-testid="card-cvc"></label></div>
<p class="client-problem" data-client-problem hidden></p>
<button type="submit" data-testid="pay">Pay ${m.amountText}</button>
</form>`;
}

/** Live card payments: the card is typed on the acquirer's own form, never on this page. */
function acquirerCardLink(url: string, m: PaymentPageModel): SafeHtml {
  return html`<p>You pay on the bank’s secure card form.</p><a class="button" data-testid="pay-by-card" href="${url}">Pay ${m.amountText} by card</a>`;
}

function sbpBlock(m: PaymentPageModel): SafeHtml {
  return html`<div class="sbp"><img class="qr" data-testid="qr" src="${m.qrCode}" alt="SBP QR code: scan it with your bank app" width="246" height="246">
<p>Scan with your bank app, or on this phone:</p><a class="button" data-testid="open-bank" href="${m.qrPayload}">Pay in bank app</a></div>`;
}

function stateBlock(m: PaymentPageModel): SafeHtml {
  switch (m.state) {
    case 'paid':
      return html`<p class="state paid" data-testid="status">PAID</p><p>Payment received${m.paidAt ? html` on <time datetime="${m.paidAt}">${m.paidAt.slice(0, 16).replace('T', ' ')} UTC</time>` : ''}.${
        m.redirectUrl ? '' : ' You can close this page.'
      }</p>${m.redirectUrl ? html`<p><a class="button" data-testid="return" data-return-after-ms="5000" href="${m.redirectUrl}">Back to the shop</a></p>` : ''}`;
    case 'expired':
      return html`<p class="state expired" data-testid="status">EXPIRED</p><p>This invoice has expired. Ask the merchant for a new one.</p>`;
    case 'cancelled':
      return html`<p class="state cancelled" data-testid="status">CANCELLED</p><p>The merchant cancelled this invoice.</p>`;
    case 'pending':
      return html`<p class="state pending" data-testid="status">Awaiting payment</p>`;
  }
}

/**
 * For a receiptRequired invoice: after paying, the payer uploads the bank's receipt (a
 * screenshot or PDF); the newest one's state is shown, with the reason when rejected, so a
 * rejected payer can upload another until the invoice expires.
 */
function receiptBlock(m: PaymentPageModel): SafeHtml {
  const r = m.receipt;
  const status = !r
    ? html`<p data-testid="receipt-status" data-state="none">After paying, upload the receipt from your bank app (a screenshot or PDF): the payment counts once it is checked.</p>`
    : r.state === 'pending'
      ? html`<p class="state pending" data-testid="receipt-status" data-state="pending">Your receipt is being checked…</p>`
      : r.state === 'rejected'
        ? html`<div class="problem" data-testid="receipt-status" data-state="rejected"><p>Your receipt was not accepted: ${r.reason}</p><p>Upload another one.</p></div>`
        : html`<p class="state paid" data-testid="receipt-status" data-state="approved">Your receipt was accepted.</p>`;
  return html`<section class="receipt"><h2>Payment receipt</h2>${status}
<form method="post" action="/pay/${m.id}/receipt" enctype="multipart/form-data" data-receipt-form>
<label>Receipt (PNG, JPEG or PDF)<input type="file" name="file" accept="image/png,image/jpeg,application/pdf" capture="environment" required data-testid="receipt-file"></label>
<button type="submit" data-testid="upload-receipt">Upload receipt</button></form></section>`;
}

/** The hosted payment page (`paymentLink`), and the card form alone (`originalPaymentUrl`). */
export function paymentPage(m: PaymentPageModel, problem?: FormProblem): SafeHtml {
  let action: SafeHtml = html``;
  if (m.state === 'pending') {
    action = m.needsKyc
      ? html`<p class="problem" data-testid="kyc-required">Identity verification (KYC) is required before this invoice can be paid.</p>
<form method="post" action="/pay/${m.id}/kyc"><button type="submit" data-testid="start-kyc">Verify your identity</button></form>`
      : m.method === 'sbp'
        ? sbpBlock(m)
        : m.acquirerCardUrl
          ? acquirerCardLink(m.acquirerCardUrl, m)
          : cardForm(m);
  }
  return layout(
    `Pay ${m.amountText}`,
    html`<header><p class="number">${m.invoiceNumber}${m.isTest ? html` <span class="badge" data-testid="test-mode">TEST MODE</span>` : ''}</p>
<h1 class="amount" data-testid="amount">${m.amountText}</h1>
${m.description ? html`<p class="description" data-testid="description">${m.description}</p>` : ''}</header>
${stateBlock(m)}${m.state === 'pending' ? countdown(m) : ''}${problemBox(problem)}${action}${m.state === 'pending' && m.receiptRequired && !m.needsKyc ? receiptBlock(m) : ''}`,
    { status: m.state, id: m.id, receipt: m.receipt?.state ?? 'none' },
  );
}

/** The sandbox provider's "bank app": what the SBP QR opens. */
export function sandboxBankPage(m: PaymentPageModel, banks: readonly string[], problem?: FormProblem): SafeHtml {
  const open = m.state === 'pending' && !m.needsKyc;
  return layout(
    `Sandbox bank: ${m.amountText}`,
    html`<header><p class="number">Sandbox bank app (SBP) <span class="badge">NO REAL MONEY</span></p>
<h1 class="amount" data-testid="amount">${m.amountText}</h1>
${m.description ? html`<p class="description">${m.description}</p>` : ''}</header>
${stateBlock(m)}${problemBox(problem)}${
      open
        ? html`<form method="post" action="/pay/${m.id}/sbp"><label>Your bank<select name="payerBank" data-testid="bank">${banks.map((b) => html`<option>${b}</option>`)}</select></label>
<button type="submit" data-testid="confirm">Confirm transfer</button></form>`
        : html`<p><a class="button" href="/pay/${m.id}">Back to the invoice</a></p>`
    }`,
    { status: m.state, id: m.id },
  );
}

/** Refusals of the page routes (bad link, unknown invoice), in the same frame. */
export function errorPage(message: string, notFound: boolean): SafeHtml {
  return layout(notFound ? 'Not found' : 'Cannot continue', html`<h1>${notFound ? 'Not found' : 'Cannot continue'}</h1><p data-testid="error">${message}</p>`);
}
