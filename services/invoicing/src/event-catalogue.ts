import { Type } from '@sinclair/typebox';
import { defineEvents, endpointDisabledEvent } from '@pay/webhooks';
import { invoiceObject, PaymentAttemptObject, PaymentReviewObject, SettledRefund } from './modules/invoices/event-objects';
import { kycSession } from './modules/kyc/event-objects';

const SENT_TO = "Sent to every console webhook subscribed to the kind, in the mode (test or live) of the event, signed with that webhook's secret.";

// Sample values that cannot be mistaken for real ones (the console's test event, the document's example).
const ZERO = '00000000-0000-4000-8000-000000000000';

function sampleInvoice(status: 'PAID' | 'EXPIRED' | 'CANCELLED' | 'PENDING', at: Date, livemode: boolean, refundedAmount = 0) {
  return {
    id: ZERO,
    invoiceNumber: 'INV-0000000000-TEST',
    amount: 1500.5,
    currency: 'RUB',
    livemode,
    status,
    paymentMethod: 'sbp',
    payerBank: status === 'PAID' ? 'Test Bank' : null,
    refundedAmount,
    paidAt: status === 'PAID' ? at.toISOString() : null,
    metadata: { test: true },
    customerEmail: 'customer@example.com',
    customerPhone: '+70000000000',
  };
}

function sampleSession(status: 'APPROVED' | 'DECLINED' | 'IN_PROGRESS', at: Date) {
  return {
    session: {
      id: ZERO,
      sessionId: 'kyc_test',
      status,
      invoiceId: null,
      customerId: 'customer-test',
      customerEmail: 'customer@example.com',
      customerPhone: '+70000000000',
      reason: status === 'APPROVED' ? null : 'Test event',
      updatedAt: at.toISOString(),
    },
  };
}

/**
 * Every event invoicing sends, in one place: its kind, what it means, its body beside the
 * envelope (`{ event, timestamp, livemode }`) and a sample. Console webhooks subscribe to these
 * kinds; the OpenAPI `webhooks` section, the console's test events and the body checks of
 * eventsOf come from here, and @pay/webhook-receiver's types from the committed document.
 * It sits above the domains whose objects it names (invoices/, kyc/), which record
 * the events (emitInvoiceEvent, emitKycEvent). A new event is one entry here, the code that
 * records it, and `pnpm openapi`.
 */
export const invoicingEvents = defineEvents('invoicing', SENT_TO, {
  'invoice.paid': {
    summary: 'The customer paid the invoice.',
    fields: { invoice: invoiceObject('PAID') },
    sample: (at, livemode) => ({ invoice: sampleInvoice('PAID', at, livemode) }),
  },
  'invoice.expired': {
    summary: 'The invoice time ran out and it became EXPIRED.',
    fields: { invoice: invoiceObject('EXPIRED') },
    sample: (at, livemode) => ({ invoice: sampleInvoice('EXPIRED', at, livemode) }),
  },
  'invoice.cancelled': {
    summary: 'The merchant cancelled the invoice.',
    fields: { invoice: invoiceObject('CANCELLED') },
    sample: (at, livemode) => ({ invoice: sampleInvoice('CANCELLED', at, livemode) }),
  },
  'invoice.refunded': {
    summary: 'A full or partial refund was made (here, or in the acquirer’s own account); `refund` is this refund.',
    fields: { invoice: invoiceObject('PAID'), refund: SettledRefund },
    sample: (at, livemode) => ({
      invoice: sampleInvoice('PAID', at, livemode, 500),
      refund: { id: ZERO, invoiceId: ZERO, amount: 500, currency: 'RUB', status: 'SUCCEEDED', reason: 'Test event', failureReason: null, createdAt: at.toISOString(), settledAt: at.toISOString() },
    }),
  },
  'invoice.payment_failed': {
    summary: 'The acquirer declined a payment of the invoice; it stays PENDING and payable with a fresh payment (new QR or form). `attempt` is the declined one.',
    fields: {
      invoice: invoiceObject('PENDING'),
      attempt: Type.Object({ ...PaymentAttemptObject.properties, acquirerStatus: Type.String({ description: 'The acquirer’s own status (REJECTED, AUTH_FAIL, ...)' }) }, { additionalProperties: false }),
    },
    sample: (at, livemode) => ({ invoice: sampleInvoice('PENDING', at, livemode), attempt: { attempt: 1, method: 'sbp', status: 'DECLINED', acquirerStatus: 'REJECTED' } }),
  },
  'invoice.payment_review': {
    summary:
      'Money was taken (or a receipt claims it) that the invoice did not simply take; `review` says why. Accept or refund it (POST /api/v2/invoices/{id}/review/accept or /refund, or the console).',
    fields: { invoice: invoiceObject(['PENDING', 'PAID', 'EXPIRED', 'CANCELLED'] as const), review: PaymentReviewObject },
    sample: (at, livemode) => ({
      invoice: sampleInvoice('PENDING', at, livemode),
      review: { id: ZERO, reason: 'amount_mismatch', status: 'OPEN', amount: 1400, currency: 'RUB', takenAt: at.toISOString(), detail: 'Test event', createdAt: at.toISOString() },
    }),
  },
  'kyc.passed': {
    summary: 'The customer passed KYC.',
    fields: { session: kycSession('APPROVED') },
    sample: (at) => sampleSession('APPROVED', at),
  },
  'kyc.rejected': {
    summary: 'KYC was declined.',
    fields: { session: kycSession('DECLINED') },
    sample: (at) => sampleSession('DECLINED', at),
  },
  'kyc.manual_review': {
    summary: 'KYC was sent to manual review.',
    fields: { session: kycSession('IN_PROGRESS') },
    sample: (at) => sampleSession('IN_PROGRESS', at),
  },
  // Recorded by @pay/webhooks (the worker's disabling, and a merchant's): the webhooks are invoicing's.
  'endpoint.disabled': endpointDisabledEvent,
});

export type InvoicingEventKind = (typeof invoicingEvents.kinds)[number];
/** The kinds a console webhook can subscribe to, in the console's order. */
export const INVOICING_EVENT_KINDS = invoicingEvents.kinds;
