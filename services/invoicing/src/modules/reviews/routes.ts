import { Type } from '@sinclair/typebox';
import { ownerOf } from '@pay/auth';
import { paginationOf, type Api } from '@pay/http';
import { OffsetPage, OffsetQuery } from '@pay/schemas';
import type { InvoiceRoutesDeps } from '../../deps';
import { invoiceDetailJson } from '../invoices/detail';
import { InvoiceDetail, InvoiceParams, InvoiceReview } from '../invoices/schemas';
import { acceptReview, listReviews, refundReview } from './reviews';
import { reviewJson } from './views';

const tags = ['Reviews'];
const ReviewListItem = Type.Object(
  { ...InvoiceReview.properties, invoiceId: Type.String({ format: 'uuid' }), invoiceNumber: Type.String() },
  { title: 'PaymentReviewListItem', additionalProperties: false, description: 'A review awaiting a decision, with its invoice' },
);

const WHY =
  'A review is money the invoice did not simply take: the acquirer took another amount, or took it after the invoice expired or was cancelled, ' +
  'or again for a paid invoice, or a receipt was approved without the acquirer confirming any payment (receipt_only), ' +
  'or the acquirer took the payment of a receiptRequired invoice but no receipt was approved before it expired (receipt_missing). ' +
  'Each one opened sends `invoice.payment_review`, and shows as the invoice’s `review` (v2 and v1 GET) until it is decided.';

/** The merchant's decisions on reviews (the console offers the same). */
export function reviewRoutes(api: Api, deps: InvoiceRoutesDeps): void {
  api.route({
    method: 'get',
    path: '/api/v2/reviews',
    operationId: 'listReviews',
    summary: 'Payment reviews awaiting a decision',
    description: `Oldest first. ${WHY}`,
    tags,
    auth: 'signed',
    query: Type.Object(OffsetQuery(100), { additionalProperties: false }),
    response: { status: 200, schema: OffsetPage(ReviewListItem) },
    handler: async ({ auth, query }) => {
      const { rows, total } = await listReviews(deps, ownerOf(auth), query);
      return { body: { data: rows.map((r) => ({ ...reviewJson(r, r.currency), invoiceId: r.invoice_id, invoiceNumber: r.invoice_number })), pagination: paginationOf(total, query) } };
    },
  });

  api.route({
    method: 'post',
    path: '/api/v2/invoices/:invoiceId/review/accept',
    operationId: 'acceptReview',
    summary: 'Accept the invoice’s payment review (keep the money)',
    description:
      `${WHY} Accepting keeps the money: a PENDING or EXPIRED invoice becomes PAID (\`invoice.paid\`) by this decision, and its acquirer payment, if still open, is closed; ` +
      'a PAID or CANCELLED invoice keeps its state. Answers the invoice as GET does. 422 INVALID_STATE when there is no review awaiting a decision.',
    tags,
    auth: 'signed',
    params: InvoiceParams,
    response: { status: 200, schema: Type.Object({ invoice: InvoiceDetail }) },
    errors: ['NOT_FOUND', 'INVALID_STATE', 'CUSTOMER_BLOCKED', 'KYC_REQUIRED'],
    handler: async ({ auth, params }) => {
      await acceptReview(deps, ownerOf(auth), params.invoiceId);
      return { body: { invoice: await invoiceDetailJson(deps, ownerOf(auth), params.invoiceId) } };
    },
  });

  api.route({
    method: 'post',
    path: '/api/v2/invoices/:invoiceId/review/refund',
    operationId: 'refundReview',
    summary: 'Refund the money of the invoice’s payment review',
    description:
      `${WHY} Refunding returns all that the review’s acquirer payment took (the invoice’s own state and \`refundedAmount\` do not change). ` +
      'The review is closed when the acquirer confirms; while it settles its status is REFUNDING (ask again to check). ' +
      'A receipt_only review took no money at the acquirer: 422 INVALID_STATE. Answers the invoice as GET does.',
    tags,
    auth: 'signed',
    params: InvoiceParams,
    response: { status: 200, schema: Type.Object({ invoice: InvoiceDetail }) },
    errors: ['NOT_FOUND', 'INVALID_STATE', 'ACQUIRER_REFUSED', 'SERVICE_UNAVAILABLE'],
    handler: async ({ auth, params }) => {
      await refundReview(deps, ownerOf(auth), params.invoiceId);
      return { body: { invoice: await invoiceDetailJson(deps, ownerOf(auth), params.invoiceId) } };
    },
  });
}
