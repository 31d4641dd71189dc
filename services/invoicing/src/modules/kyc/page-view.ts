import { html, type SafeHtml } from '@pay/http';
import type { ApiError } from '@pay/schemas';
import type { KycSession } from './store';
import { assetUrl } from '../../assets';
import { languageSwitch } from '../../languages';
import { KYC_TEXTS, type KycFormField, type KycTexts } from './i18n';
import type { Language } from './schemas';
import { attemptsRemainingOf, declineReasonOf } from './decline-reasons';
import type { KycDocumentFormValues } from './submission';
import { brandBar, titleWithMerchant, type PageBrand } from '@pay/accounts';

/** What the page shows: the form, a wait, a declined attempt to try again, or an outcome. */
export type KycPageState = 'form' | 'checking' | 'review' | 'retry' | 'approved' | 'declined' | 'expired';

export function kycPageStateOf(s: Pick<KycSession, 'status' | 'checkState' | 'expiresAt'>, now: Date): KycPageState {
  const past = s.expiresAt.getTime() <= now.getTime();
  switch (s.status) {
    case 'NOT_STARTED':
      return past ? 'expired' : 'form';
    case 'IN_PROGRESS':
      // Past its time a session waiting for a retry is declined (the kyc-expiry loop records it within a second).
      if (s.checkState === 'RETRY') return past ? 'declined' : 'retry';
      return s.checkState === 'MANUAL_REVIEW' ? 'review' : 'checking';
    case 'APPROVED':
      return 'approved';
    case 'DECLINED':
      return 'declined';
    case 'EXPIRED':
      return 'expired';
  }
}

/** A refusal of the form, in the customer's words. */
export interface KycPageProblem {
  message: string;
  details?: string[];
}

/** The field's label on the form (a file's too). */
const labelOf = (t: KycTexts, field: string): string =>
  field === 'document' ? t.documentPhoto : ((t as unknown as Record<string, unknown>)[field] as string | undefined) ?? t.problem;

/**
 * Why the form was refused, by the refusal's code and fields, never the API's English message:
 * each field named with its label and what it needs; a session no longer open says why.
 */
export function kycProblemOf(t: KycTexts, err: ApiError, s: Pick<KycSession, 'expiresAt'>, now: Date): KycPageProblem {
  if (err.code === 'INVALID_STATE') return { message: s.expiresAt.getTime() <= now.getTime() ? t.expired : t.alreadySent };
  const fields = [...new Set((err.details ?? []).map((d) => d.field))];
  return {
    message: t.problem,
    details: fields.map((f) => `${labelOf(t, f)}: ${t.fieldProblems[f as KycFormField] ?? t.problem}`),
  };
}

/** The frame: own CSS and JS only (PAGE_CSP), `lang` of the session, the return address for kyc.js. */
function layout(lang: Language, title: string, body: SafeHtml, data: { state: KycPageState; session: string; returnUrl: string | null }): SafeHtml {
  return html`<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><link rel="icon" href="data:,"><link rel="stylesheet" href="${assetUrl('pay.css')}"><link rel="stylesheet" href="${assetUrl('kyc.css')}">
<script src="${assetUrl('kyc.js')}" defer></script></head>
<body data-kyc-state="${data.state}" data-kyc-session="${data.session}" data-return-url="${data.returnUrl ?? ''}"><main class="sheet">${body}</main></body></html>`;
}

function problemBox(p: KycPageProblem | undefined): SafeHtml {
  if (!p) return html``;
  return html`<div class="problem" role="alert" data-testid="error"><p>${p.message}</p>${p.details?.length ? html`<ul>${p.details.map((d) => html`<li>${d}</li>`)}</ul>` : ''}</div>`;
}

const IMAGES = 'image/jpeg,image/png,image/webp';

function form(s: KycSession, t: KycTexts, values: Partial<KycDocumentFormValues>, langQuery: string): SafeHtml {
  const v = (k: keyof KycDocumentFormValues) => values[k] ?? '';
  const field = (name: keyof KycDocumentFormValues, label: string, attrs: SafeHtml = html``) =>
    html`<label>${label}<input name="${name}" value="${v(name)}" data-testid="${name}" ${attrs}></label>`;
  const type = values.documentType ?? 'passport';
  return html`<form class="kyc-form" method="post" action="/kyc/${s.sessionId}${langQuery}" enctype="multipart/form-data" data-kyc-form>
<fieldset><legend>${t.photos}</legend>
<label>${t.documentPhoto}<input type="file" name="document" accept="${IMAGES}" capture="environment" required data-testid="document-file"><small>${t.documentPhotoHint}</small></label>
<label>${t.selfie}<input type="file" name="selfie" accept="${IMAGES}" capture="user" required data-testid="selfie-file"><small>${t.selfieHint}</small></label>
${s.level === 'advanced' ? html`<label>${t.addressProof}<input type="file" name="addressProof" accept="${IMAGES},application/pdf" required data-testid="address-file"></label>` : ''}
</fieldset>
<fieldset><legend>${t.documentData}</legend>
<label>${t.documentType}<select name="documentType" data-testid="documentType">
<option value="passport" ${type === 'passport' ? html`selected` : ''}>${t.passport}</option>
<option value="id_card" ${type === 'id_card' ? html`selected` : ''}>${t.idCard}</option></select></label>
${field('documentNumber', t.documentNumber, html`required maxlength="20" autocapitalize="characters"`)}
${field('documentCountry', t.documentCountry, html`required maxlength="3" autocapitalize="characters"`)}
${field('lastName', t.lastName, html`required maxlength="100" autocomplete="family-name"`)}
${field('firstName', t.firstName, html`required maxlength="100" autocomplete="given-name"`)}
${field('middleName', t.middleName, html`maxlength="100" autocomplete="additional-name"`)}
${field('dateOfBirth', t.dateOfBirth, html`type="date" required autocomplete="bday"`)}
<div class="row">${field('documentIssuedAt', t.documentIssuedAt, html`type="date"`)}${field('documentExpiresAt', t.documentExpiresAt, html`type="date" required`)}</div>
<label>${t.mrz}<textarea name="mrz" rows="3" maxlength="200" spellcheck="false" autocapitalize="characters" data-testid="mrz">${v('mrz')}</textarea><small>${t.mrzHint}</small></label>
</fieldset>
<button type="submit" data-testid="submit">${t.submit}</button>
</form>`;
}

/** The safe reason of the latest decline, in the customer's words (none of the check's scores or details). */
function declineReasonBox(t: KycTexts, s: KycSession): SafeHtml {
  const reason = declineReasonOf(s) ?? 'OTHER';
  return html`<p class="problem" data-testid="decline-reason" data-reason="${reason}">${t.declineReasons[reason]}</p>`;
}

function outcome(state: KycPageState, t: KycTexts, s: KycSession, langQuery: string): SafeHtml {
  const next = s.returnUrl ? html`<a class="button" data-testid="continue" href="${s.returnUrl}">${t.continue}</a>` : html``;
  switch (state) {
    case 'checking':
      return html`<p class="state pending" data-testid="status">${t.checking}</p>`;
    case 'review':
      return html`<p class="state pending" data-testid="status">${t.review}</p>`;
    case 'approved':
      return html`<p class="state paid" data-testid="status">${t.approved}</p><p>${t.approvedText}</p>${next}`;
    case 'retry':
      return html`<p class="state pending" data-testid="status">${t.retryTitle}</p>${declineReasonBox(t, s)}
<p data-testid="attempts-left">${t.attemptsLeft}: ${attemptsRemainingOf(s)}</p>
<a class="button" data-testid="try-again" href="/kyc/${s.sessionId}?retry=1${langQuery.replace('?', '&')}">${t.tryAgain}</a>`;
    case 'declined':
      return html`<p class="state expired" data-testid="status">${t.declined}</p><p>${t.declinedText}</p>${declineReasonBox(t, s)}${next}`;
    case 'expired':
      return html`<p class="state expired" data-testid="status">${t.expired}</p>${next}`;
    case 'form':
      return html``;
  }
}

/** What the customer typed last time, for a retry's form: they correct it rather than type it all again. */
function typedBefore(s: KycSession): Partial<KycDocumentFormValues> {
  const day = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : undefined);
  const text = (v: string | null) => v ?? undefined;
  return {
    documentType: (s.documentType ?? undefined) as KycDocumentFormValues['documentType'] | undefined,
    documentNumber: text(s.documentNumber),
    documentCountry: text(s.documentCountry),
    firstName: text(s.firstName),
    lastName: text(s.lastName),
    middleName: text(s.middleName),
    dateOfBirth: day(s.dateOfBirth),
    documentIssuedAt: day(s.documentIssuedAt),
    documentExpiresAt: day(s.documentExpiresAt),
    mrz: text(s.mrz),
  };
}

/**
 * The hosted verification page (`verificationUrl`), in the session's language. A session
 * waiting for a retry shows the reason and "Try again" (`?retry=1`), which opens the form again
 * with the reason above it; a refused form is shown again in either case.
 */
export function kycPage(
  s: KycSession,
  brand: PageBrand,
  now: Date,
  language: { language: Language; langQuery: string },
  o: { problem?: KycPageProblem; values?: Partial<KycDocumentFormValues>; retry?: boolean } = {},
): SafeHtml {
  const t = KYC_TEXTS[language.language];
  const state = kycPageStateOf(s, now);
  const showForm = state === 'form' || (state === 'retry' && (o.retry === true || o.problem !== undefined));
  const intro = html`<p>${t.intro}</p><p class="expiry">${t.expiresIn} <time datetime="${s.expiresAt.toISOString()}">${s.expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC</time></p>`;
  const body = html`${brandBar(brand)}${languageSwitch(language.language, `/kyc/${s.sessionId}`, t.language)}<header><p class="number">${s.sessionId}${s.isTest ? html` <span class="badge" data-testid="test-mode">${t.testMode}</span>` : ''}</p>
<h1>${t.title}</h1>${showForm ? intro : ''}</header>
${problemBox(o.problem)}${
    showForm ? html`${state === 'retry' ? declineReasonBox(t, s) : ''}${form(s, t, o.values ?? (state === 'retry' ? typedBefore(s) : {}), language.langQuery)}` : outcome(state, t, s, language.langQuery)
  }`;
  return layout(language.language, titleWithMerchant(t.title, brand), body, { state, session: s.sessionId, returnUrl: state === 'approved' || state === 'declined' ? s.returnUrl : null });
}
