import { html, type SafeHtml } from '@pay/http';
import type { ErrorDetail } from '@pay/schemas';
import type { PaymentPageModel } from './presenter';
import { assetUrl } from '../../assets';
import { LANGUAGE_NAMES, PAY_TEXTS, type PayTexts } from './i18n';
import { LANGUAGES, type Language } from '../../modules/kyc/schemas';
import { brandBar } from '../../modules/brand/view';


/** The page frame: own CSS and JS only (the CSP allows nothing else), phone-width first. */
export function layout(title: string, body: SafeHtml, attrs: { status?: string; id?: string; receipt?: string; lang?: Language } = {}): SafeHtml {
  return html`<!doctype html>
<html lang="${attrs.lang ?? 'en'}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><link rel="icon" href="data:,"><link rel="stylesheet" href="${assetUrl('pay.css')}"><script src="${assetUrl('pay.js')}" defer></script></head>
<body data-status="${attrs.status ?? ''}" data-invoice="${attrs.id ?? ''}" data-receipt="${attrs.receipt ?? ''}"><main class="sheet">${body}</main></body></html>`;
}

const textsOf = (m: PaymentPageModel): PayTexts => PAY_TEXTS[m.language];
const langQuery = (language: Language): string => `?lang=${language}`;

/** The language switch: links to the same page in each language. */
function languageSwitch(m: PaymentPageModel, path: string): SafeHtml {
  return html`<nav class="languages" aria-label="${textsOf(m).language}" data-testid="languages">${LANGUAGES.map((l) =>
    l === m.language ? html`<strong lang="${l}">${LANGUAGE_NAMES[l]}</strong>` : html`<a lang="${l}" hreflang="${l}" href="${path}${langQuery(l)}" data-lang="${l}">${LANGUAGE_NAMES[l]}</a>`,
  )}</nav>`;
}

function countdown(m: PaymentPageModel): SafeHtml {
  const s = Math.ceil(m.remainingMs / 1000);
  const text = `${Math.floor(s / 3600) > 0 ? `${Math.floor(s / 3600)}:` : ''}${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
  return html`<p class="expiry">${textsOf(m).expiresIn} <time data-testid="countdown" data-remaining-ms="${m.remainingMs}" datetime="${m.expiresAt}">${text}</time></p>`;
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
  const t = textsOf(m);
  // No `value` is ever written back: a refused number is typed again, never echoed.
  return html`<form class="card-form" method="post" action="/pay/${m.id}/card${m.langQuery}" data-card-form novalidate>
<label>${t.cardNumber}<input name="number" inputmode="numeric" autocomplete="cc-number" maxlength="23" placeholder="0000 0000 0000 0000" required data-testid="card-number"></label>
<div class="row"><label>${t.expiry}<input name="expiry" autocomplete="cc-exp" maxlength="7" placeholder="MM/YY" required data-testid="card-expiry"></label>
<label>${t.cvc}<input name="cvc" inputmode="numeric" autocomplete="cc-csc" maxlength="4" placeholder="123" required data-testid="card-cvc"></label></div>
<p class="client-problem" data-client-problem hidden></p>
<button type="submit" data-testid="pay">${t.pay(m.amountText)}</button>
</form>`;
}

/** Live card payments: the card is typed on the acquirer's own form, never on this page. */
function acquirerCardLink(url: string, m: PaymentPageModel): SafeHtml {
  return html`<p>You pay on the bank’s secure card form.</p><a class="button" data-testid="pay-by-card" href="${url}">Pay ${m.amountText} by card</a>`;
}

function sbpBlock(m: PaymentPageModel): SafeHtml {
  const t = textsOf(m);
  return html`<div class="sbp"><img class="qr" data-testid="qr" src="${m.qrCode}" alt="${t.qrAlt}" width="246" height="246">
<p>${t.scanHint}</p><a class="button" data-testid="open-bank" href="${m.qrPayload}">${t.openBank}</a></div>`;
}

function stateBlock(m: PaymentPageModel): SafeHtml {
  const t = textsOf(m);
  switch (m.state) {
    case 'paid':
      return html`<p class="state paid" data-testid="status">${t.paid}</p><p>${t.paidText}${
        m.paidAt ? html`${t.paidOn ? ` ${t.paidOn}` : ':'} <time datetime="${m.paidAt}">${m.paidAt.slice(0, 16).replace('T', ' ')} UTC</time>` : ''
      }.${m.redirectUrl ? '' : ` ${t.closePage}`}</p>${
        m.redirectUrl ? html`<p><a class="button" data-testid="return" data-return-after-ms="5000" href="${m.redirectUrl}">${t.backToShop}</a></p>` : ''
      }`;
    case 'refunded':
      return html`<p class="state refunded" data-testid="status">${t.refunded}</p><p>${t.refundedText}</p>`;
    case 'partly_refunded':
      return html`<p class="state partly_refunded" data-testid="status">${t.partlyRefunded}</p><p>${t.paidText}. ${t.partlyRefundedText(m.refundedText ?? '')}</p>`;
    case 'review':
      return html`<p class="state review" data-testid="status">${t.underReview}</p><p data-testid="under-review">${t.underReviewText}</p>`;
    case 'declined':
      return html`<p class="state expired" data-testid="status">${t.awaiting}</p><p class="notice" data-testid="declined">${t.declinedText}</p>
<form method="post" action="/pay/${m.id}/retry${m.langQuery}"><button type="submit" data-testid="retry">${t.tryAgain}</button></form>`;
    case 'expired':
      return html`<p class="state expired" data-testid="status">${t.expired}</p><p>${t.expiredText}</p>`;
    case 'cancelled':
      return html`<p class="state cancelled" data-testid="status">${t.cancelled}</p><p>${t.cancelledText}</p>`;
    case 'receipt_needed':
      return html`<p class="state pending" data-testid="status">${t.paymentReceived}</p><p class="notice" data-testid="payment-received">${t.paymentReceivedText}</p>`;
    case 'pending':
      return html`<p class="state pending" data-testid="status">${t.awaiting}</p>${m.declinedBefore ? html`<p class="notice" data-testid="declined">${t.declinedText}</p>` : ''}`;
  }
}

/**
 * For a receiptRequired invoice: after paying, the payer uploads the bank's receipt (a
 * screenshot or PDF); the newest one's state is shown, with the reason when rejected, so a
 * rejected payer can upload another until the invoice expires.
 */
function receiptBlock(m: PaymentPageModel): SafeHtml {
  const t = textsOf(m);
  const r = m.receipt;
  const status = !r
    ? html`<p data-testid="receipt-status" data-state="none">${m.state === 'receipt_needed' ? t.receiptAskPaid : t.receiptAsk}</p>`
    : r.state === 'pending'
      ? html`<p class="state pending" data-testid="receipt-status" data-state="pending">${t.receiptChecking}</p>`
      : r.state === 'rejected'
        ? html`<div class="problem" data-testid="receipt-status" data-state="rejected"><p>${t.receiptRejected} ${r.reason}</p><p>${t.receiptAnother}</p></div>`
        : html`<p class="state paid" data-testid="receipt-status" data-state="approved">${t.receiptAccepted}</p>`;
  return html`<section class="receipt"><h2>${t.receiptTitle}</h2>${status}
<form method="post" action="/pay/${m.id}/receipt${m.langQuery}" enctype="multipart/form-data" data-receipt-form>
<label>${t.receiptFile}<input type="file" name="file" accept="image/png,image/jpeg,application/pdf" capture="environment" required data-testid="receipt-file"></label>
<button type="submit" data-testid="upload-receipt">${t.uploadReceipt}</button></form></section>`;
}

/** The hosted payment page (`paymentLink`), and the card form alone (`originalPaymentUrl`). */
export function paymentPage(m: PaymentPageModel, problem?: FormProblem): SafeHtml {
  const t = textsOf(m);
  let action: SafeHtml = html``;
  if (m.state === 'pending') {
    action = m.needsKyc
      ? html`<p class="problem" data-testid="kyc-required">${t.kycRequired}</p>
<form method="post" action="/pay/${m.id}/kyc"><button type="submit" data-testid="start-kyc">${t.verifyIdentity}</button></form>`
      : m.method === 'sbp'
        ? sbpBlock(m)
        : m.acquirerCardUrl
          ? acquirerCardLink(m.acquirerCardUrl, m)
          : cardForm(m);
  }
  return layout(
    t.pay(m.amountText),
    html`${brandBar(m.brand)}${languageSwitch(m, `/pay/${m.id}`)}<header><p class="number">${m.invoiceNumber}${m.isTest ? html` <span class="badge" data-testid="test-mode">${t.testMode}</span>` : ''}</p>
<h1 class="amount" data-testid="amount">${m.amountText}</h1>
${m.description ? html`<p class="description" data-testid="description">${m.description}</p>` : ''}</header>
${stateBlock(m)}${m.state === 'pending' || m.state === 'receipt_needed' ? countdown(m) : ''}${problemBox(problem)}${action}${
      (m.state === 'pending' || m.state === 'receipt_needed') && m.receiptRequired && !m.needsKyc ? receiptBlock(m) : ''
    }`,
    { status: m.state, id: m.id, receipt: m.receipt?.state ?? 'none', lang: m.language },
  );
}

/** The sandbox provider's "bank app": what the SBP QR opens. */
export function sandboxBankPage(m: PaymentPageModel, banks: readonly string[], problem?: FormProblem): SafeHtml {
  const t = textsOf(m);
  const open = m.state === 'pending' && !m.needsKyc;
  return layout(
    t.sandboxTitle(m.amountText),
    html`${languageSwitch(m, `/pay/${m.id}/sbp`)}<header><p class="number">${t.sandboxBank} <span class="badge">${t.noRealMoney}</span></p>
<h1 class="amount" data-testid="amount">${m.amountText}</h1>
${m.description ? html`<p class="description">${m.description}</p>` : ''}</header>
${stateBlock(m)}${problemBox(problem)}${
      open
        ? html`<form method="post" action="/pay/${m.id}/sbp${m.langQuery}"><label>${t.yourBank}<select name="payerBank" data-testid="bank">${banks.map((b) => html`<option>${b}</option>`)}</select></label>
<button type="submit" data-testid="confirm">${t.confirmTransfer}</button></form>`
        : html`<p><a class="button" href="/pay/${m.id}${m.langQuery}">${t.backToInvoice}</a></p>`
    }`,
    { status: m.state, id: m.id, lang: m.language },
  );
}

/** Refusals of the page routes (bad link, unknown invoice), in the same frame. */
export function errorPage(message: string, notFound: boolean): SafeHtml {
  return layout(notFound ? 'Not found' : 'Cannot continue', html`<h1>${notFound ? 'Not found' : 'Cannot continue'}</h1><p data-testid="error">${message}</p>`);
}
