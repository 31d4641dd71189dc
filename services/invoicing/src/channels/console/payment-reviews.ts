import { Type } from '@sinclair/typebox';
import { consoleOwnerFor } from '@pay/accounts';
import { ownerOf } from '@pay/auth';
import { html, type Api } from '@pay/http';
import { Uuid } from '@pay/schemas';
import type { ConsoleDeps, InvoicesDeps } from '../../deps';
import { acceptReview, listReviews, refundReview } from '../../modules/reviews/reviews';
import { reviewJson } from '../../modules/reviews/views';
import { InvoiceReview } from '../../modules/invoices/schemas';
import { layout, sessionFrame } from './layout';
import { ModeOnlyQuery } from './schemas';
import { DetailPageQuery, modeSuffix, viewOf } from './mode-view';

const tags = ['Console'];
const PAGE = 100;
const Params = Type.Object({ invoiceId: Uuid });
const Decided = Type.Object({ invoiceId: Uuid, decision: Type.String() }, { additionalProperties: false });
const Item = Type.Object({ ...InvoiceReview.properties, invoiceId: Uuid, invoiceNumber: Type.String() }, { additionalProperties: false });

const REASONS: Record<string, string> = {
  amount_mismatch: 'Another amount was taken',
  paid_after_expiry: 'Paid after the invoice expired',
  paid_after_cancel: 'Paid after the invoice was cancelled',
  duplicate_payment: 'Paid again',
  receipt_only: 'A receipt, but no payment confirmed by the acquirer',
  receipt_missing: 'Paid, but no receipt approved before the invoice expired',
  invoice_refused: 'The invoice refused the payer',
};

/**
 * Payment reviews (reviews/): money the invoice did not simply take, awaiting the merchant.
 * The console's JSON API (session auth, X-CSRF-Token on changes) and its page, with the same
 * decisions as the public API: accept (the money stays) and refund (the acquirer returns it).
 */
export function consoleReviewRoutes(api: Api, deps: InvoicesDeps): void {
  api.route({
    method: 'get',
    path: '/console/api/payment-reviews',
    operationId: 'consoleListPaymentReviews',
    summary: 'Payment reviews awaiting a decision (oldest first)',
    tags,
    auth: 'session',
    description: '`mode=test` lists a live key’s session’s test reviews; a test key’s session never sees live ones (403).',
    query: ModeOnlyQuery,
    response: { status: 200, schema: Type.Object({ data: Type.Array(Item) }) },
    errors: ['FORBIDDEN'],
    handler: async ({ auth, query }) => {
      const { rows } = await listReviews(deps, consoleOwnerFor(auth, query.mode), { limit: PAGE, offset: 0 });
      return { body: { data: rows.map((r) => ({ ...reviewJson(r, r.currency), invoiceId: r.invoice_id, invoiceNumber: r.invoice_number })) } };
    },
  });
  for (const decision of ['accept', 'refund'] as const) {
    api.route({
      method: 'post',
      path: `/console/api/payment-reviews/:invoiceId/${decision}`,
      operationId: decision === 'accept' ? 'consoleAcceptPaymentReview' : 'consoleRefundPaymentReview',
      summary: decision === 'accept' ? 'Accept the invoice’s payment review (the money stays)' : 'Refund the money of the invoice’s payment review',
      tags,
      auth: 'session',
      description: '`mode=test` decides a test invoice’s review from a live key’s session (its payment page); a test key’s session never decides live ones (403).',
      params: Params,
      query: ModeOnlyQuery,
      response: { status: 200, schema: Decided },
      errors: ['NOT_FOUND', 'FORBIDDEN', 'INVALID_STATE', 'ACQUIRER_REFUSED', 'SERVICE_UNAVAILABLE'],
      handler: async ({ auth, params, query }) => {
        await (decision === 'accept' ? acceptReview : refundReview)(deps, consoleOwnerFor(auth, query.mode), params.invoiceId);
        return { body: { invoiceId: params.invoiceId, decision } };
      },
    });
  }
}

export function consoleReviewPages(pages: Api, deps: InvoicesDeps & ConsoleDeps): void {
  pages.page({
    method: 'get',
    path: '/console/payment-reviews',
    summary: 'Payment reviews awaiting a decision, with accept and refund',
    auth: 'session',
    // The mode the payments list was viewing (a live session's test data), carried by its links.
    query: DetailPageQuery,
    handler: async ({ req, auth, query }) => {
      const view = viewOf(auth!, query.mode);
      const suffix = modeSuffix(view);
      const { rows } = await listReviews(deps, view.owner, { limit: PAGE, offset: 0 });
      const card = (r: (typeof rows)[number]) => {
        const v = reviewJson(r, r.currency);
        return html`<li class="panel" data-payment-review="${r.invoice_id}"><h2>${REASONS[r.reason] ?? r.reason} <a class="muted" href="/console/payments/${r.invoice_id}${suffix}">${r.invoice_number}</a></h2>
<dl class="facts"><dt>Amount</dt><dd data-testid="review-amount">${r.amount.toString()} ${r.currency}</dd><dt>When</dt><dd>${v.takenAt}</dd><dt>Status</dt><dd>${r.status}</dd></dl>
<p>${r.detail}</p>
<div class="actions">
<form data-api="/console/api/payment-reviews/${r.invoice_id}/accept${suffix}" data-confirm="Keep this money? An unpaid invoice becomes PAID."><button class="primary" data-testid="accept">Accept</button><span class="form-error" data-error></span></form>
${r.payment_id !== null ? html`<form data-api="/console/api/payment-reviews/${r.invoice_id}/refund${suffix}" data-confirm="Refund this money to the payer?"><button class="danger" data-testid="refund">Refund</button><span class="form-error" data-error></span></form>` : ''}
</div></li>`;
      };
      return {
        html: layout({
          title: 'Payment reviews',
          session: await sessionFrame(deps, req, auth!),
          body: html`<h1>Payment reviews</h1>
<p class="muted">Money the acquirer took (or a receipt claims) that an invoice did not simply take. Accept it (an unpaid invoice becomes PAID) or refund it; the merchant got <code>invoice.payment_review</code> for each.</p>
${rows.length === 0 ? html`<p class="empty" data-testid="no-payment-reviews">Nothing to review.</p>` : html`<ul class="reviews" data-testid="payment-reviews">${rows.map(card)}</ul>`}`,
        }),
      };
    },
  });
}
