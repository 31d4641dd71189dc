import { Type } from '@sinclair/typebox';
import { ownerOf, type Owner } from '@pay/auth';
import { html, type Api, type SafeHtml } from '@pay/http';
import { Uuid } from '@pay/schemas';
import type { ConsoleDeps } from '../../deps';
import { reviewKycSession } from '../../modules/kyc/decision';
import { kycFilesForReview, kycSessionsInReview, type KycSession } from '../../modules/kyc/sessions';
import { loadSharp } from '../../engines/vision/images';
import type { KycCheck } from '../../modules/kyc/provider';
import { fullNameOf, maskDocumentNumber } from '../../modules/kyc/views';
import { layout, sessionFrame } from './layout';

const tags = ['Console'];
/** Reviews shown per page: each carries its pictures. */
const REVIEW_PAGE = 20;
/** Pictures are shown downscaled to this width, inline (the CSP allows data: images only). */
const PREVIEW_WIDTH = 480;

const Params = Type.Object({ id: Uuid });
const DeclineBody = Type.Object({ reason: Type.String({ minLength: 1, maxLength: 500, description: 'Why, as the merchant will see it in `kyc.rejected`' }) }, { additionalProperties: false });
const Decided = Type.Object({ id: Uuid, status: Type.String() }, { additionalProperties: false });
const Review = Type.Object(
  {
    id: Uuid,
    sessionId: Type.String(),
    level: Type.String(),
    fullName: Type.String(),
    reason: Type.Union([Type.String(), Type.Null()]),
    submittedAt: Type.String(),
    faceMatchScore: Type.Union([Type.Number(), Type.Null()]),
    imageQualityScore: Type.Union([Type.Number(), Type.Null()], { description: 'The selfie’s capture quality: sharpness × exposure' }),
  },
  { additionalProperties: false },
);

const inReview = (deps: ConsoleDeps, owner: Owner) => kycSessionsInReview(deps, owner, REVIEW_PAGE);

const score = (d: { toString(): string } | null) => (d === null ? null : Number(d.toString()));

/**
 * Manual review of KYC sessions the automatic check found borderline: the console JSON API
 * (session auth, X-CSRF-Token on changes, like every console change) and its page.
 */
export function consoleKycRoutes(api: Api, deps: ConsoleDeps): void {
  api.route({
    method: 'get',
    path: '/console/api/kyc/reviews',
    operationId: 'consoleListKycReviews',
    summary: 'KYC sessions waiting for a person (oldest first)',
    tags,
    auth: 'session',
    response: { status: 200, schema: Type.Object({ data: Type.Array(Review) }) },
    handler: async ({ auth }) => ({
      body: {
        data: (await inReview(deps, ownerOf(auth))).map((s) => ({
          id: s.id,
          sessionId: s.sessionId,
          level: s.level,
          fullName: fullNameOf(s),
          reason: s.reason,
          submittedAt: s.submittedAt!.toISOString(),
          faceMatchScore: score(s.faceMatchScore),
          imageQualityScore: score(s.imageQualityScore),
        })),
      },
    }),
  });

  api.route({
    method: 'post',
    path: '/console/api/kyc/sessions/:id/approve',
    operationId: 'consoleApproveKycSession',
    summary: 'Approve a KYC session in review (kyc.passed)',
    tags,
    auth: 'session',
    params: Params,
    response: { status: 200, schema: Decided },
    errors: ['NOT_FOUND', 'INVALID_STATE'],
    handler: async ({ auth, params }) => {
      const s = await reviewKycSession(deps, ownerOf(auth), params.id, { approve: true, reason: null, reviewer: `console:${auth.keyId}` });
      return { body: { id: s.id, status: s.status } };
    },
  });

  api.route({
    method: 'post',
    path: '/console/api/kyc/sessions/:id/decline',
    operationId: 'consoleDeclineKycSession',
    summary: 'Decline a KYC session in review (kyc.rejected)',
    tags,
    auth: 'session',
    params: Params,
    body: DeclineBody,
    response: { status: 200, schema: Decided },
    errors: ['NOT_FOUND', 'INVALID_STATE'],
    handler: async ({ auth, params, body }) => {
      const s = await reviewKycSession(deps, ownerOf(auth), params.id, { approve: false, reason: body.reason.trim(), reviewer: `console:${auth.keyId}` });
      return { body: { id: s.id, status: s.status } };
    },
  });
}

/** A downscaled JPEG data URI of an uploaded picture; a PDF is offered as a download. */
async function preview(f: { kind: string; type: string; bytes: Uint8Array }): Promise<SafeHtml> {
  const label = { document: 'Document', selfie: 'Selfie', address_proof: 'Proof of address' }[f.kind] ?? f.kind;
  if (f.type === 'application/pdf') {
    return html`<figure><a download="${f.kind}.pdf" href="data:application/octet-stream;base64,${Buffer.from(f.bytes).toString('base64')}">${label} (PDF, ${Math.ceil(f.bytes.length / 1024)} KB)</a></figure>`;
  }
  const sharp = await loadSharp();
  try {
    const jpeg = await sharp(Buffer.from(f.bytes)).rotate().resize(PREVIEW_WIDTH, PREVIEW_WIDTH, { fit: 'inside', withoutEnlargement: true }).jpeg({ quality: 80 }).toBuffer();
    return html`<figure><img alt="${label}" src="data:image/jpeg;base64,${jpeg.toString('base64')}"><figcaption>${label}</figcaption></figure>`;
  } catch {
    return html`<figure><p class="error">${label}: cannot be decoded</p></figure>`;
  }
}

function checkList(checks: unknown): SafeHtml {
  const list = Array.isArray(checks) ? (checks as KycCheck[]) : [];
  return html`<ul class="checks">${list.map((c) => html`<li class="${c.passed ? 'ok' : 'bad'}">${c.passed ? '✓' : '✗'} ${c.name}: ${c.detail}</li>`)}</ul>`;
}

async function reviewCard(deps: ConsoleDeps, s: KycSession): Promise<SafeHtml> {
  const files = await kycFilesForReview(deps, s.id);
  const day = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : '—');
  return html`<li class="panel" data-review="${s.id}"><h2>${fullNameOf(s)} <span class="muted">${s.sessionId} · ${s.level}</span></h2>
<p class="warning">${s.reason ?? ''}</p>
<dl class="facts"><dt>Document</dt><dd>${s.documentType} ${maskDocumentNumber(s.documentNumber ?? '')} (${s.documentCountry})</dd>
<dt>Born</dt><dd>${day(s.dateOfBirth)}</dd><dt>Valid</dt><dd>${day(s.documentIssuedAt)} – ${day(s.documentExpiresAt)}</dd>
<dt>Scores</dt><dd>face match ${score(s.faceMatchScore) ?? '—'}, image quality ${score(s.imageQualityScore) ?? '—'}</dd>
<dt>Contact</dt><dd>${s.customerEmail ?? ''} ${s.customerPhone ?? ''}</dd></dl>
<div class="pictures">${await Promise.all(files.map(preview))}</div>
${checkList(s.checks)}
<div class="actions">
<form data-api="/console/api/kyc/sessions/${s.id}/approve" data-confirm="Approve this customer’s identity?"><button class="primary" data-testid="approve">Approve</button><span class="form-error" data-error></span></form>
<form data-api="/console/api/kyc/sessions/${s.id}/decline"><label>Reason <input name="reason" maxlength="500" required data-testid="decline-reason"></label><button class="danger" data-testid="decline">Decline</button><span class="form-error" data-error></span></form>
</div></li>`;
}

export function consoleKycPages(pages: Api, deps: ConsoleDeps): void {
  pages.page({
    method: 'get',
    path: '/console/kyc',
    summary: 'KYC sessions waiting for a manual review, with their pictures and checks',
    auth: 'session',
    handler: async ({ req, auth }) => {
      const sessions = await inReview(deps, ownerOf(auth!));
      return {
        html: layout({
          title: 'KYC review',
          session: await sessionFrame(deps, req, auth!),
          body: html`<h1>KYC review</h1>
<p class="muted">Sessions the automatic check could not decide. Compare the selfie with the document photo, check the data, then decide: the merchant gets <code>kyc.passed</code> or <code>kyc.rejected</code>.</p>
${sessions.length === 0 ? html`<p class="empty" data-testid="no-reviews">Nothing to review.</p>` : html`<ul class="reviews" data-testid="reviews">${await Promise.all(sessions.map((s) => reviewCard(deps, s)))}</ul>`}`,
        }),
      };
    },
  });
}
