import { html, type SafeHtml } from '@pay/http';
import type { ApiError } from '@pay/schemas';
import type { PaymentPageModel } from './presenter';
import { assetUrl } from '../../assets';
import { PAY_TEXTS, type PayTexts } from './i18n';
import { languageSwitch as switchOf } from '../../languages';
import type { Language } from '../../modules/kyc/schemas';
import type { CardProblem } from '../../payments/card';
import { refusalOf } from './refusals';
import { brandBar, titleWithMerchant } from '@pay/accounts';


/** The page frame: own CSS and JS only (the CSP allows nothing else), phone-width first. */
export function layout(title: string, body: SafeHtml, attrs: { status?: string; id?: string; receipt?: string; lang?: Language } = {}): SafeHtml {
  return html`<!doctype html>
<html lang="${attrs.lang ?? 'en'}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><link rel="icon" href="data:,"><link rel="stylesheet" href="${assetUrl('pay.css')}"><script src="${assetUrl('pay.js')}" defer></script></head>
<body data-status="${attrs.status ?? ''}" data-invoice="${attrs.id ?? ''}" data-receipt="${attrs.receipt ?? ''}"><main class="sheet">${body}</main></body></html>`;
}

const textsOf = (m: PaymentPageModel): PayTexts => PAY_TEXTS[m.language];

/** The language switch: links to the same page in each language. */
function languageSwitch(m: PaymentPageModel, path: string): SafeHtml {
  return switchOf(m.language, path, textsOf(m).language);
}

function countdown(m: PaymentPageModel): SafeHtml {
  const s = Math.ceil(m.remainingMs / 1000);
  const text = `${Math.floor(s / 3600) > 0 ? `${Math.floor(s / 3600)}:` : ''}${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
  return html`<p class="expiry">${textsOf(m).expiresIn} <time data-testid="countdown" data-remaining-ms="${m.remainingMs}" datetime="${m.expiresAt}">${text}</time></p>`;
}

/** A refusal shown on the page, already in the payer's words. */
export interface FormProblem {
  message: string;
  details?: string[];
  /** The refusal's kind (data-refusal), for tests and support. */
  kind: string;
}

/** A refusal (by its code) in the page's language; `chargeCancelled` when a card charge was given back. */
export function formProblemOf(t: PayTexts, err: ApiError, method: string, chargeCancelled = false): FormProblem {
  const kind = refusalOf(err, method);
  return { message: chargeCancelled ? `${t.refusals[kind]} ${t.chargeCancelled}` : t.refusals[kind], kind };
}

/** The typed card's problems, each once, in the page's language. */
export function cardProblemOf(t: PayTexts, problems: CardProblem[]): FormProblem {
  const [first, ...rest] = [...new Set(problems.map((p) => p.code))].map((code) => t.card[code]);
  return { message: first ?? t.refusals.badForm, details: rest, kind: 'card' };
}

function problemBox(problem: FormProblem | undefined): SafeHtml {
  if (!problem) return html``;
  return html`<div class="problem" role="alert" data-testid="error" data-refusal="${problem.kind}"><p>${problem.message}</p>${
    problem.details?.length ? html`<ul>${problem.details.map((d) => html`<li>${d}</li>`)}</ul>` : ''
  }</div>`;
}

function cardForm(m: PaymentPageModel): SafeHtml {
  const t = textsOf(m);
  // No `value` is ever written back: a refused number is typed again, never echoed.
  // The page's script checks the card before it is sent, and says so in these words.
  return html`<form class="card-form" method="post" action="/pay/${m.id}/card${m.langQuery}" data-card-form novalidate
 data-problem-number="${t.card.NUMBER}" data-problem-expiry="${t.card.EXPIRY_FORMAT}" data-problem-expired="${t.card.EXPIRED}" data-problem-cvc="${t.card.CVC}">
<label>${t.cardNumber}<input name="number" inputmode="numeric" autocomplete="cc-number" maxlength="23" placeholder="0000 0000 0000 0000" required data-testid="card-number"></label>
<div class="row"><label>${t.expiry}<input name="expiry" autocomplete="cc-exp" maxlength="7" placeholder="${t.expiryPlaceholder}" required data-testid="card-expiry"></label>
<label>${t.cvc}<input name="cvc" inputmode="numeric" autocomplete="cc-csc" maxlength="4" placeholder="123" required data-testid="card-cvc"></label></div>
<p class="client-problem" data-client-problem hidden></p>
<button type="submit" data-testid="pay">${t.pay(m.amountText)}</button>
</form>`;
}

/** Live card payments: the card is typed on the acquirer's own form, never on this page. */
function acquirerCardLink(url: string, m: PaymentPageModel): SafeHtml {
  const t = textsOf(m);
  return html`<p>${t.acquirerCardForm}</p><a class="button" data-testid="pay-by-card" href="${url}">${t.payByCard(m.amountText)}</a>`;
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
        m.paidAt ? html`${t.paidOn ? ` ${t.paidOn}` : ':'} <time datetime="${m.paidAt}">${t.paidTime(m.paidAt.slice(0, 16).replace('T', ' '))}</time>` : ''
      }.${m.redirectUrl ? '' : ` ${t.closePage}`}</p>${
        m.redirectUrl ? html`<p><a class="button" data-testid="return" data-return-after-ms="5000" href="${m.redirectUrl}">${t.backToShop}</a></p>` : ''
      }`;
    case 'refunded':
      return html`<p class="state refunded" data-testid="status">${t.refunded}</p><p>${t.refundedText}</p>`;
    case 'partly_refunded':
      return html`<p class="state partly_refunded" data-testid="status">${t.partlyRefunded}</p><p>${t.paidText}.</p><p data-testid="refunded">${t.partlyRefundedText(m.refundedText ?? '', m.amountText)}</p>`;
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
        ? html`<div class="problem" data-testid="receipt-status" data-state="rejected" data-rejection="${r.rejection ?? ''}"><p>${
            // A row rejected before codes were kept has no reason to word: the sentence ends there.
            r.rejection ? html`${t.receiptRejected} ${t.receiptReasons[r.rejection](r)}` : t.receiptRejected.replace(/:$/, '.')
          }</p><p>${t.receiptAnother}</p></div>`
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
<form method="post" action="/pay/${m.id}/kyc${m.langQuery}"><button type="submit" data-testid="start-kyc">${t.verifyIdentity}</button></form>`
      : m.method === 'sbp'
        ? sbpBlock(m)
        : m.acquirerCardUrl
          ? acquirerCardLink(m.acquirerCardUrl, m)
          : cardForm(m);
  }
  return layout(
    titleWithMerchant(t.pay(m.amountText), m.brand),
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
        ? html`<form method="post" action="/pay/${m.id}/sbp${m.langQuery}"><label>${t.yourBank}<select name="payerBank" data-testid="bank">${banks.map((b) => html`<option value="${b}">${t.sandboxBanks[b] ?? b}</option>`)}</select></label>
<button type="submit" data-testid="confirm">${t.confirmTransfer}</button></form>`
        : html`<p><a class="button" href="/pay/${m.id}${m.langQuery}">${t.backToInvoice}</a></p>`
    }`,
    { status: m.state, id: m.id, lang: m.language },
  );
}

/**
 * A refusal no page of its own shows (a bad or unknown link, a path that leads nowhere, too
 * many requests), in the same frame and the payer's language, with its kind in data-refusal.
 */
export function errorPage(err: ApiError, method: string, language: Language): SafeHtml {
  const t = PAY_TEXTS[language];
  const kind = refusalOf(err, method);
  const title = kind === 'notFound' ? t.notFoundTitle : t.cannotContinueTitle;
  return layout(title, html`<h1>${title}</h1><p data-testid="error" data-refusal="${kind}">${t.refusals[kind]}</p>`, { lang: language });
}
