import { Type, type Static } from '@sinclair/typebox';
import Papa from 'papaparse';
import { consoleOwnerFor, type ConsoleMode } from '@pay/accounts';
import type { Owner } from '@pay/auth';
import { html, paginationOf, type Api, type SafeHtml } from '@pay/http';
import { money, type JsonDecimal } from '@pay/money';
import { ApiError, MAX_OFFSET, NullableTimestamp, OffsetPage, StringEnum, Timestamp, Uuid } from '@pay/schemas';
import { attemptsOf, deliveriesOfObject } from '@pay/webhooks';
import type { ConsoleDeps, InvoiceRoutesDeps } from '../../deps';
import { invoiceDetailJson } from '../../modules/invoices/detail';
import { listInvoices, type ListQuery } from '../../modules/invoices/invoices';
import { INVOICE_STATUSES, InvoiceDetail, InvoiceListItem, InvoiceParams, ListInvoicesQuery, RefundBody, RefundedInvoice, RefundRecord } from '../../modules/invoices/schemas';
import { invoiceListItemJson } from '../../modules/invoices/views';
import { listRefunds, refundedInvoiceJson, refundInvoice, refundJson } from '../../modules/refunds/refunds';
import { listReviews } from '../../modules/reviews/reviews';
import { layout, sessionFrame } from './layout';
import { ModeOnlyQuery, ModeQuery } from './schemas';
import { DetailPageQuery, modeSuffix, viewOf, type View } from './mode-view';

type Deps = InvoiceRoutesDeps & ConsoleDeps;

const tags = ['Console'];
const PAGE_SIZE = 25;
/** The CSV export reads the list as the API pages it, 1000 at a time, up to this many rows. */
export const CSV_MAX_ROWS = 10_000;
/** Webhook deliveries shown on an invoice's timeline (an invoice has a handful of events, each to a few endpoints). */
const TIMELINE_DELIVERIES = 200;

/**
 * The merchant's payments in the console. Everything shown comes from what the v2 API's
 * handlers call: the list is `listInvoices` (GET /api/v2/invoices, its filters included), an
 * invoice is `invoiceDetailJson` (GET /api/v2/invoices/{id}) with `listRefunds`, a refund is
 * `refundInvoice` (POST /api/v2/invoices/{id}/refunds, idempotent the same way), and the
 * webhooks sent for it are the deliveries the console's webhook pages list.
 *
 * Each takes `mode` (`live` or `test`, default the session's): a live key's session switches
 * the list, its CSV, an invoice and its refund between live and test data; a test key's session
 * is refused live (consoleOwnerFor). The module functions then run as the API's would for a key
 * of that mode.
 */


const WebhookSent = Type.Object(
  {
    id: Uuid,
    event: Type.String(),
    status: StringEnum(['pending', 'succeeded', 'failed'] as const),
    endpoint: Type.Object({ kind: Type.String({ description: '`console`, `merchant` (webhookUrl) or `target`' }), url: Type.Union([Type.String(), Type.Null()]) }),
    /** When the event happened (the change it reports): the timeline places the webhook there. */
    eventAt: Timestamp,
    createdAt: Timestamp,
    nextAttemptAt: NullableTimestamp,
    attempts: Type.Array(
      Type.Object({
        attemptedAt: Timestamp,
        statusCode: Type.Union([Type.Integer(), Type.Null()]),
        error: Type.Union([Type.String(), Type.Null()]),
        durationMs: Type.Integer(),
        manual: Type.Boolean({ description: 'A resend asked for in the console' }),
      }),
    ),
  },
  { additionalProperties: false },
);

const Timeline = Type.Object(
  {
    invoice: InvoiceDetail,
    refunds: Type.Array(RefundRecord, { description: 'As GET /api/v2/invoices/{id}/refunds, oldest first' }),
    webhooks: Type.Array(WebhookSent, { description: 'The deliveries of the invoice’s events, oldest first, each with its attempts' }),
  },
  { additionalProperties: false },
);

type TimelineJson = Static<typeof Timeline>;

/** The v2 list's query, and the mode. */
const ConsoleListQuery = Type.Object({ ...ListInvoicesQuery.properties, ...ModeQuery }, { additionalProperties: false });
/** The list query without paging: what the CSV export takes. */
const ExportQuery = Type.Omit(ConsoleListQuery, ['limit', 'offset'], { additionalProperties: false });

/** An invoice with what happened to it: GET /api/v2/invoices/{id}, its refunds, and the webhooks sent about it. */
export async function invoiceTimeline(deps: Deps, owner: Owner, invoiceId: string): Promise<TimelineJson> {
  const invoice = await invoiceDetailJson(deps, owner, invoiceId);
  const [refunds, deliveries] = await Promise.all([
    listRefunds(deps, owner, invoiceId),
    deliveriesOfObject(deps.db, owner, { key: 'invoice', id: invoice.id, since: new Date(invoice.createdAt), limit: TIMELINE_DELIVERIES }),
  ]);
  const attempts = await attemptsOf(deps.db, deliveries.map((d) => d.id));
  return {
    // The detail's amounts are JsonDecimals: the page reads them as text, the route answers them exactly.
    invoice: invoice as unknown as TimelineJson['invoice'],
    refunds: refunds.map((r) => refundJson(r, r.currency)) as unknown as TimelineJson['refunds'],
    webhooks: deliveries.map((d) => ({
      id: d.id,
      event: d.event,
      status: d.status,
      endpoint: { kind: d.endpointKind, url: d.endpointUrl },
      eventAt: d.eventAt.toISOString(),
      createdAt: d.createdAt.toISOString(),
      nextAttemptAt: d.nextAttemptAt?.toISOString() ?? null,
      attempts: (attempts.get(d.id) ?? []).map((a) => ({ attemptedAt: a.attemptedAt.toISOString(), statusCode: a.statusCode, error: a.error, durationMs: a.durationMs, manual: a.manual })),
    })),
  };
}

/** A JSON amount (a JsonDecimal in the views) as its exact text. */
const amountText = (a: unknown) => money(String((a as JsonDecimal).text ?? a)).toFixed(2);

export const CSV_COLUMNS = [
  'id',
  'invoiceNumber',
  'createdAt',
  'status',
  'amount',
  'currency',
  'refundedAmount',
  'paymentMethod',
  'payerBank',
  'customerEmail',
  'customerName',
  'description',
  'paidAt',
  'livemode',
] as const;

/**
 * The filtered list as CSV: RFC 4180 quoting (papaparse), CRLF, a header row, and every cell a
 * spreadsheet would run as a formula (starting with =, +, -, @, a tab or a carriage return)
 * written with a leading apostrophe, as the batch export does.
 */
export async function invoicesCsv(deps: Deps, owner: Owner, filter: Omit<ListQuery, 'limit' | 'offset'>): Promise<{ text: string; total: number }> {
  const rows: ReturnType<typeof invoiceListItemJson>[] = [];
  let total = 0;
  for (let offset = 0; offset < CSV_MAX_ROWS; offset += 1000) {
    const page = await listInvoices(deps, owner, { ...filter, limit: Math.min(1000, CSV_MAX_ROWS - offset), offset });
    total = page.total;
    rows.push(...page.rows.map((r) => invoiceListItemJson(r, deps.config.PUBLIC_URL)));
    if (page.rows.length < 1000) break;
  }
  const csv = Papa.unparse(
    {
      fields: [...CSV_COLUMNS],
      data: rows.map((i) => [
        i.id,
        i.invoiceNumber,
        i.createdAt,
        i.status,
        amountText(i.amount),
        i.currency,
        amountText(i.refundedAmount),
        i.paymentMethod,
        i.payerBank,
        i.customerEmail,
        i.customerName,
        i.description,
        i.paidAt,
        String(i.livemode),
      ]),
    },
    { escapeFormulae: true, newline: '\r\n' },
  );
  return { text: `${csv}\r\n`, total };
}

export function consolePaymentRoutes(api: Api, deps: Deps): void {
  api.route({
    method: 'get',
    path: '/console/api/invoices',
    operationId: 'consoleListInvoices',
    summary: 'The merchant’s invoices, as GET /api/v2/invoices (the same filters), in the session’s mode or the one asked for',
    tags,
    auth: 'session',
    query: ConsoleListQuery,
    response: { status: 200, schema: OffsetPage(InvoiceListItem) },
    errors: ['FORBIDDEN'],
    handler: async ({ auth, query: { mode, ...query } }) => {
      const { rows, total } = await listInvoices(deps, consoleOwnerFor(auth, mode), query);
      return { body: { data: rows.map((r) => invoiceListItemJson(r, deps.config.PUBLIC_URL)), pagination: paginationOf(total, query) } };
    },
  });

  api.route({
    method: 'get',
    path: '/console/api/invoices.csv',
    operationId: 'consoleExportInvoices',
    summary: 'The filtered list as CSV',
    description:
      `The filters of GET /api/v2/invoices; newest first, at most ${CSV_MAX_ROWS} rows (X-Total-Count says how many matched). Columns ${CSV_COLUMNS.join(', ')}. ` +
      'Safe to open in a spreadsheet: a cell that would start with =, +, -, @, a tab or a carriage return is written with a leading apostrophe.',
    tags,
    auth: 'session',
    query: ExportQuery,
    response: { status: 200, schema: Type.Object({}), file: ['text/csv'], description: 'CSV, UTF-8, comma separated, CRLF line ends, header row' },
    errors: ['FORBIDDEN'],
    handler: async ({ auth, query: { mode, ...query }, res }) => {
      const owner = consoleOwnerFor(auth, mode);
      const { text, total } = await invoicesCsv(deps, owner, query);
      res.setHeader('X-Total-Count', String(total));
      return { file: { bytes: Buffer.from(text, 'utf8'), type: 'text/csv; charset=utf-8', name: `invoices-${owner.isTest ? 'test' : 'live'}.csv` } };
    },
  });

  api.route({
    method: 'get',
    path: '/console/api/invoices/:invoiceId/timeline',
    operationId: 'consoleGetInvoiceTimeline',
    summary: 'An invoice as GET /api/v2/invoices/{id}, with its refunds and the webhooks sent about it (their attempts and answers)',
    tags,
    auth: 'session',
    params: InvoiceParams,
    query: ModeOnlyQuery,
    response: { status: 200, schema: Timeline },
    errors: ['NOT_FOUND', 'FORBIDDEN'],
    handler: async ({ auth, params, query }) => ({ body: await invoiceTimeline(deps, consoleOwnerFor(auth, query.mode), params.invoiceId) }),
  });

  api.route({
    method: 'post',
    path: '/console/api/invoices/:invoiceId/refunds',
    operationId: 'consoleCreateRefund',
    summary: 'Refund a paid invoice, fully or in part: POST /api/v2/invoices/{id}/refunds from the console',
    description:
      'The same refund as the API’s, with the same `Idempotency-Key` behaviour (the console sends one per distinct request). ' +
      '`mode=test` refunds a test invoice from a live key’s session; a test key’s session never refunds live money (403).',
    tags,
    auth: 'session',
    idempotent: true,
    params: InvoiceParams,
    query: ModeOnlyQuery,
    body: RefundBody,
    response: { status: 201, schema: Type.Object({ refund: RefundRecord, invoice: RefundedInvoice }) },
    errors: ['NOT_FOUND', 'FORBIDDEN', 'INVOICE_NOT_PAID', 'REFUND_EXCEEDS_PAID', 'SERVICE_UNAVAILABLE'],
    handler: async ({ auth, params, query, body, idempotency }) => {
      const { refund, invoice } = await refundInvoice(deps, consoleOwnerFor(auth, query.mode), params.invoiceId, body, idempotency);
      return { status: 201, body: { refund: refundJson(refund, invoice.currency), invoice: refundedInvoiceJson(invoice) } };
    },
  });
}

// ---- pages ----

const when = (iso: string | null) => (iso ? html`<time datetime="${iso}">${iso.replace('T', ' ').slice(0, 19)} UTC</time>` : html`—`);
const statusBadge = (status: string) => html`<span class="status ${status.toLowerCase()}">${status}</span>`;
const METHOD: Record<string, string> = { sbp: 'SBP', card: 'Card' };

/** The page's filters as the API's list query: a value the API would refuse is dropped (a bad day is kept, so the page says why). */
function listQueryOf(q: Record<string, string | undefined>): Omit<ListQuery, 'limit' | 'offset'> {
  const pick = <T extends string>(v: string | undefined, allowed: readonly T[]) => (allowed.includes(v as T) ? (v as T) : undefined);
  const text = (v: string | undefined) => (v && v.trim() !== '' ? v.trim().slice(0, 200) : undefined);
  return {
    status: pick(q.status, INVOICE_STATUSES),
    paymentMethod: pick(q.paymentMethod, ['sbp', 'card'] as const),
    createdFrom: text(q.createdFrom),
    createdTo: text(q.createdTo),
    search: text(q.search),
  };
}

const queryString = (f: Omit<ListQuery, 'limit' | 'offset'> & { mode?: ConsoleMode }, extra: Record<string, string> = {}) =>
  new URLSearchParams({ ...(Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined)) as Record<string, string>), ...extra }).toString();

const PageQuery = Type.Object(
  {
    status: Type.Optional(Type.String()),
    paymentMethod: Type.Optional(Type.String()),
    createdFrom: Type.Optional(Type.String()),
    createdTo: Type.Optional(Type.String()),
    search: Type.Optional(Type.String()),
    mode: Type.Optional(Type.String()),
    offset: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

function filtersForm(f: Omit<ListQuery, 'limit' | 'offset'>, view: View, sessionMode: ConsoleMode): SafeHtml {
  const mode = view.mode;
  const option = (value: string, label: string, current: string | undefined) => html`<option value="${value}" ${current === value ? html`selected` : ''}>${label}</option>`;
  return html`<form method="get" class="filters" data-testid="payment-filters" role="search" aria-label="Payments">
<label>Search <input name="search" type="search" value="${f.search ?? ''}" maxlength="200" placeholder="Number, id, customer, description"></label>
<label>Status <select name="status">${option('', 'Any', f.status ?? '')}${INVOICE_STATUSES.map((s) => option(s, s[0] + s.slice(1).toLowerCase(), f.status))}</select></label>
<label>Method <select name="paymentMethod">${option('', 'Any', f.paymentMethod ?? '')}${option('sbp', 'SBP', f.paymentMethod)}${option('card', 'Card', f.paymentMethod)}</select></label>
<label>From <input name="createdFrom" type="date" value="${f.createdFrom ?? ''}"></label>
<label>To <input name="createdTo" type="date" value="${f.createdTo ?? ''}"></label>
${
  sessionMode === 'live'
    ? html`<label>Mode <select name="mode" data-testid="mode-filter">${option('live', 'Live', mode)}${option('test', 'Test', mode)}</select></label>`
    : html`<p class="mode-filter">Mode <span class="badge test" data-testid="list-mode">Test</span></p>`
}
<button class="primary">Filter</button> <a href="/console/payments${modeSuffix(view)}">Clear</a>
</form>
<p class="muted">Times and days are UTC. ${
    sessionMode === 'live'
      ? html`Showing <strong data-testid="list-mode">${mode === 'test' ? 'test' : 'live'}</strong> payments.`
      : 'Signed in with a test key: test payments only. Sign in with a live key to see live payments.'
  }</p>`;
}

function paymentRows(items: ReturnType<typeof invoiceListItemJson>[], view: View): SafeHtml {
  if (items.length === 0) return html`<p class="empty" data-testid="no-payments">No payments match.</p>`;
  return html`<table class="payments" data-testid="payments"><caption class="sr-only">Payments, newest first</caption>
<thead><tr><th scope="col">Invoice</th><th scope="col">Created</th><th scope="col">Amount</th><th scope="col">Status</th><th scope="col">Method</th><th scope="col">Customer</th><th scope="col">Description</th></tr></thead>
<tbody>${items.map(
    (i) => html`<tr data-invoice="${i.id}"><td><a href="/console/payments/${i.id}${modeSuffix(view)}">${i.invoiceNumber}</a></td><td>${when(i.createdAt)}</td>
<td class="amount">${amountText(i.amount)} ${i.currency}${money(amountText(i.refundedAmount)).gt(0) ? html`<br><span class="muted">refunded ${amountText(i.refundedAmount)}</span>` : ''}</td>
<td>${statusBadge(i.status)}</td><td>${METHOD[i.paymentMethod] ?? i.paymentMethod}</td><td>${i.customerName ?? ''} ${i.customerEmail ? html`<span class="muted">${i.customerEmail}</span>` : ''}</td><td>${i.description ?? ''}</td></tr>`,
  )}</tbody></table>`;
}

interface Entry {
  at: string | null;
  title: SafeHtml | string;
  detail?: SafeHtml;
  kind: string;
}

const ATTEMPT_STATUS: Record<string, string> = {
  PENDING: 'Awaiting the payer',
  DECLINED: 'Declined: the payer’s bank or the acquirer refused the payment, no money moved; the payer may try again',
  CONFIRMED: 'Confirmed by the acquirer',
  PARTIALLY_REFUNDED: 'Partly refunded at the acquirer',
  REFUNDED: 'Refunded at the acquirer',
  CLOSED: 'Closed without payment',
};

/** The attempt's `declineReason` (GET /api/v2/invoices/{id}) in words. */
const DECLINE_REASON: Record<string, string> = {
  REJECTED: 'Declined (REJECTED): the payer’s bank or the acquirer refused the payment; no money moved, the payer may try again',
  AUTH_FAIL: 'Declined (AUTH_FAIL): the payer failed 3-D Secure authentication; no money moved',
  ATTEMPTS_EXPIRED: 'Declined (ATTEMPTS_EXPIRED): too many failed tries on this payment; no money moved',
};

function timelineEntries(t: TimelineJson): Entry[] {
  const i = t.invoice;
  const out: Entry[] = [{ at: i.createdAt, kind: 'created', title: `Created: ${amountText(i.amount)} ${i.currency}, ${METHOD[i.paymentMethod] ?? i.paymentMethod}` }];
  for (const a of i.attempts) {
    out.push({ at: a.createdAt, kind: a.status === 'DECLINED' ? 'declined' : 'attempt', title: `Payment attempt ${a.attempt} (${METHOD[a.method] ?? a.method}): ${a.status}`, detail: html`<p>${a.declineReason ? DECLINE_REASON[a.declineReason] ?? a.declineReason : (ATTEMPT_STATUS[a.status] ?? a.status)}. ${amountText(a.amount)} ${i.currency}; last heard ${when(a.updatedAt)}.</p>` });
  }
  if (i.paidAt) out.push({ at: i.paidAt, kind: 'paid', title: `Paid${i.payerBank ? ` from ${i.payerBank}` : ''} (${METHOD[i.paymentMethod] ?? i.paymentMethod})` });
  if (i.status === 'EXPIRED') out.push({ at: i.expiresAt, kind: 'expired', title: 'Expired unpaid' });
  if (i.status === 'CANCELLED') out.push({ at: null, kind: 'cancelled', title: 'Cancelled' });
  if (i.review) out.push({ at: i.review.createdAt, kind: 'review', title: `Needs your review: ${i.review.reason}`, detail: html`<p>${i.review.detail}</p>` });
  for (const r of t.refunds) {
    out.push({ at: r.createdAt, kind: 'refund', title: `Refund of ${amountText(r.amount)} ${r.currency} requested`, detail: r.reason ? html`<p>Reason: ${r.reason}</p>` : undefined });
    if (r.settledAt || r.status !== 'PENDING') {
      out.push({
        at: r.settledAt,
        kind: r.status === 'FAILED' ? 'refund-failed' : 'refund',
        title: r.status === 'SUCCEEDED' ? `Refunded ${amountText(r.amount)} ${r.currency}` : `Refund of ${amountText(r.amount)} ${r.currency} failed`,
        detail: r.failureReason ? html`<p class="error">${r.failureReason}</p>` : undefined,
      });
    }
  }
  for (const w of t.webhooks) {
    const last = w.attempts[w.attempts.length - 1];
    out.push({
      // At its event's time, which the invoice's own clock set when the change happened: the
      // delivery's createdAt is the webhook worker's, read before it found the event, so it can
      // fall a moment before the paidAt it reports.
      at: w.eventAt,
      kind: 'webhook',
      title: html`Webhook <code>${w.event}</code> ${statusBadge(w.status)}`,
      detail: html`<p class="muted">To ${w.endpoint.url ?? (w.endpoint.kind === 'merchant' ? 'your webhook URL' : w.endpoint.kind)} · ${w.attempts.length} attempt${w.attempts.length === 1 ? '' : 's'}${
        last ? html` · last ${last.statusCode !== null ? `HTTP ${last.statusCode}` : (last.error ?? 'no answer')}` : ''
      }${w.nextAttemptAt ? html` · next ${when(w.nextAttemptAt)}` : ''}</p>
${
  w.attempts.length > 0
    ? html`<ul class="webhook-attempts">${w.attempts.map(
        (a) => html`<li>${when(a.attemptedAt)}: ${a.statusCode !== null ? html`HTTP ${a.statusCode}` : html`<span class="error">${a.error ?? 'no answer'}</span>`} in ${a.durationMs} ms${a.manual ? ' (resend)' : ''}</li>`,
      )}</ul>`
    : ''
}`,
    });
  }
  // Oldest first; an entry without a time (a cancellation) goes last.
  return out.map((e, n) => ({ e, n })).sort((a, b) => (a.e.at ?? '9').localeCompare(b.e.at ?? '9') || a.n - b.n).map((x) => x.e);
}

function refundForm(t: TimelineJson, view: View): SafeHtml {
  const i = t.invoice;
  if (i.status !== 'PAID') return html`<p class="muted" data-testid="no-refund">Only a paid invoice can be refunded; this one is ${i.status}.</p>`;
  const left = money(amountText(i.amount)).sub(money(amountText(i.refundedAmount)));
  if (left.lte(0)) return html`<p class="muted" data-testid="no-refund">Refunded in full.</p>`;
  return html`<form data-api="/console/api/invoices/${i.id}/refunds${modeSuffix(view)}" data-idempotent data-testid="refund-form"
 data-confirm="Refund {amount} ${i.currency} of ${i.invoiceNumber} to the payer? This cannot be undone.">
<label>Amount, ${i.currency} <input name="amount" type="number" inputmode="decimal" min="0.01" step="0.01" max="${left.toFixed(2)}" value="${left.toFixed(2)}" required aria-describedby="refund-help"></label>
<p class="muted" id="refund-help">Up to ${left.toFixed(2)} ${i.currency} (paid ${amountText(i.amount)}, refunded ${amountText(i.refundedAmount)}). Less than that is a partial refund.</p>
<label>Reason <input name="reason" maxlength="500" placeholder="optional, shown in invoice.refunded"></label>
<button class="danger" data-testid="refund">Refund…</button><p class="form-error" role="alert" data-error></p></form>`;
}

function reviewActions(t: TimelineJson, view: View): SafeHtml {
  const r = t.invoice.review;
  if (!r) return html``;
  return html`<section class="panel" aria-labelledby="review-h"><h2 id="review-h">Payment review</h2>
<p class="warning">${r.detail}</p><p>${amountText(r.amount)} ${r.currency}, taken ${when(r.takenAt)}.</p>
<div class="actions">
<form data-api="/console/api/payment-reviews/${t.invoice.id}/accept${modeSuffix(view)}" data-confirm="Keep this money? An unpaid invoice becomes PAID."><button class="primary" data-testid="accept">Accept</button><span class="form-error" role="alert" data-error></span></form>
<form data-api="/console/api/payment-reviews/${t.invoice.id}/refund${modeSuffix(view)}" data-confirm="Refund this money to the payer?"><button class="danger" data-testid="review-refund">Refund</button><span class="form-error" role="alert" data-error></span></form>
</div><p><a href="/console/payment-reviews${modeSuffix(view)}">All payments awaiting review</a></p></section>`;
}

export function consolePaymentPages(pages: Api, deps: Deps): void {
  pages.page({
    method: 'get',
    path: '/console/payments',
    summary: 'The merchant’s payments: filters, search, pages and a CSV export',
    auth: 'session',
    query: PageQuery,
    handler: async ({ req, auth, query }) => {
      const view = viewOf(auth!, query.mode);
      const owner = view.owner;
      const session = await sessionFrame(deps, req, auth!);
      const filter = listQueryOf(query);
      const linked = { ...filter, mode: view.asked };
      const offset = Math.min(MAX_OFFSET, Math.max(0, Number.parseInt(query.offset ?? '0', 10) || 0));
      let problem: string | null = null;
      let page: { rows: Awaited<ReturnType<typeof listInvoices>>['rows']; total: number } = { rows: [], total: 0 };
      try {
        page = await listInvoices(deps, owner, { ...filter, limit: PAGE_SIZE, offset });
      } catch (err) {
        // A day that is not a date, or from after to: the API's 400, said in the page.
        if (!(err instanceof ApiError) || err.status !== 400) throw err;
        problem = err.message;
      }
      const reviews = await listReviews(deps, owner, { limit: 1, offset: 0 });
      const items = page.rows.map((r) => invoiceListItemJson(r, deps.config.PUBLIC_URL));
      const more = offset + items.length < page.total;
      return {
        html: layout({
          title: 'Payments',
          session,
          body: html`<h1>Payments</h1>
${reviews.total > 0 ? html`<p class="warning" data-testid="reviews-waiting"><a href="/console/payment-reviews${modeSuffix(view)}">${reviews.total} payment${reviews.total === 1 ? ' awaits' : 's await'} your review</a>: money an invoice did not simply take.</p>` : ''}
${filtersForm(filter, view, session.mode)}
${problem ? html`<p class="error" role="alert" data-testid="filter-error">${problem}</p>` : ''}
<p class="list-head"><span data-testid="payments-total">${page.total} payment${page.total === 1 ? '' : 's'}</span>
<a href="/console/api/invoices.csv?${queryString(linked)}" download data-testid="export-csv">Export CSV</a></p>
${paymentRows(items, view)}
<nav class="pager" aria-label="Pages">${offset > 0 ? html`<a href="?${queryString(linked, { offset: String(Math.max(0, offset - PAGE_SIZE)) })}">Newer</a>` : ''} ${
            more ? html`<a href="?${queryString(linked, { offset: String(offset + PAGE_SIZE) })}" data-testid="older">Older</a>` : ''
          }</nav>`,
        }),
      };
    },
  });

  pages.page({
    method: 'get',
    path: '/console/payments/:invoiceId',
    summary: 'One invoice: its timeline (created, attempts, paid, refunds, webhooks) and a refund form',
    auth: 'session',
    params: InvoiceParams,
    query: DetailPageQuery,
    handler: async ({ req, auth, params, query }) => {
      const view = viewOf(auth!, query.mode);
      const t = await invoiceTimeline(deps, view.owner, params.invoiceId);
      const i = t.invoice;
      return {
        html: layout({
          title: i.invoiceNumber,
          session: await sessionFrame(deps, req, auth!),
          body: html`<p><a href="/console/payments${modeSuffix(view)}">← ${view.asked === 'test' ? 'Test payments' : 'Payments'}</a></p>
<h1>${i.invoiceNumber} ${statusBadge(i.status)}${view.asked ? html` <span class="badge ${view.mode}" data-testid="viewing-mode">${view.mode === 'test' ? 'Test data' : 'Live data'}</span>` : ''}</h1>
<dl class="facts" data-testid="invoice-facts"><dt>Amount</dt><dd>${amountText(i.amount)} ${i.currency}</dd><dt>Refunded</dt><dd data-testid="refunded">${amountText(i.refundedAmount)} ${i.currency}</dd>
<dt>Method</dt><dd>${METHOD[i.paymentMethod] ?? i.paymentMethod}</dd><dt>Customer</dt><dd>${i.customerName ?? ''} ${i.customerEmail ?? ''} ${i.customerPhone ?? ''}</dd>
<dt>Description</dt><dd>${i.description ?? '—'}</dd><dt>Expires</dt><dd>${when(i.expiresAt)}</dd><dt>Id</dt><dd><code>${i.id}</code></dd></dl>
${reviewActions(t, view)}
<section class="panel" aria-labelledby="refund-h"><h2 id="refund-h">Refund</h2>${refundForm(t, view)}</section>
<section class="panel" aria-labelledby="timeline-h"><h2 id="timeline-h">Timeline</h2>
<ol class="timeline" data-testid="timeline">${timelineEntries(t).map(
            (e) => html`<li class="${e.kind}" data-kind="${e.kind}"><p class="when">${when(e.at)}</p><p class="what"><strong>${e.title}</strong></p>${e.detail ?? ''}</li>`,
          )}</ol></section>`,
        }),
      };
    },
  });
}
