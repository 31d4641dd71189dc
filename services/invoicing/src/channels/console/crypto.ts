import { Type } from '@sinclair/typebox';
import type { Request } from 'express';
import { sessionCookieOf } from '@pay/accounts';
import type { AuthContext } from '@pay/auth';
import { html, type Api, type SafeHtml } from '@pay/http';
import type { ConsoleDeps } from '../../deps';
import { layout, sessionFrame } from './layout';
import { CryptoReader, CryptoUnavailable, type CryptoBalances, type CryptoTransactionPage, type CryptoWithdrawal, type WithdrawalStatus } from './crypto-api';

/** Where the section lives; its pages are this and its two lists. */
export const CRYPTO_PATH = '/console/crypto';
const PAGE_SIZE = 20;
/** crypto's own bound on `page` (PageQuery), so a hand-made link never becomes a 400 there. */
const MAX_PAGE = 10_000_000;
const WITHDRAWAL_STATUSES: readonly WithdrawalStatus[] = ['Pending', 'Processing', 'Completed', 'Failed'];

/** Lists come from a link or a GET form: anything not understood shows the first page, unfiltered. */
const ListQuery = Type.Object({ page: Type.Optional(Type.String({ maxLength: 12 })), status: Type.Optional(Type.String({ maxLength: 20 })) });

const pageOf = (raw: string | undefined) => Math.min(MAX_PAGE, Math.max(1, Number.parseInt(raw ?? '1', 10) || 1));

/** Up to 6 places, as crypto keeps them; at least 2, as money reads. */
const amountFormat = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 6 });
const amount = (n: number) => amountFormat.format(n);
/** `USDT_TRC20` → `USDT`: the network is shown beside it. */
const coin = (currency: string) => currency.split('_')[0];

/** In UTC, which the column's header says. */
const when = (iso: string | null | undefined) =>
  iso ? html`<time datetime="${iso}">${iso.replace('T', ' ').slice(0, 16)}</time>` : html`<span class="muted">—</span>`;

/** A hash or address, shortened to its ends; the whole value in `title` and for copying. */
function shortCode(value: string | null | undefined): SafeHtml {
  if (!value) return html`<span class="muted">—</span>`;
  return value.length > 14 ? html`<code title="${value}">${value.slice(0, 6)}…${value.slice(-4)}</code>` : html`<code>${value}</code>`;
}

const statusClass: Record<string, string> = { Confirmed: 'succeeded', Completed: 'succeeded', Failed: 'failed', Pending: 'pending', Processing: 'pending' };
const statusBadge = (status: string) => html`<span class="status ${statusClass[status] ?? ''}">${status}</span>`;

/** The section's own tabs, under the console's navigation. */
function tabs(current: 'balances' | 'transactions' | 'withdrawals'): SafeHtml {
  const tab = (key: typeof current, href: string, label: string) =>
    html`<a href="${href}" data-testid="crypto-tab-${key}"${key === current ? html` aria-current="page"` : ''}>${label}</a>`;
  return html`<nav class="tabs" aria-label="Crypto">${tab('balances', CRYPTO_PATH, 'Balances')} ${tab('transactions', `${CRYPTO_PATH}/transactions`, 'Transactions')} ${tab('withdrawals', `${CRYPTO_PATH}/withdrawals`, 'Withdrawals')}</nav>`;
}

/** A table that scrolls sideways on a phone: a focusable, named region, so a keyboard can scroll it too. */
const scroller = (label: string, table: SafeHtml) => html`<div class="table-scroll" role="region" aria-label="${label}" tabindex="0">${table}</div>`;

function unavailable(err: CryptoUnavailable): SafeHtml {
  return html`<div class="warning" role="alert" data-testid="crypto-unavailable"><p><strong>Crypto data is unavailable right now.</strong> ${err.message}</p>
<p>The console could not read them just now; nothing was changed. Reload this page in a minute.</p></div>`;
}

function balancesTable(b: CryptoBalances): SafeHtml {
  return html`${scroller(
    'Balances',
    html`<table class="data" data-testid="crypto-balances"><caption class="sr-only">Balances per stablecoin and network</caption>
<thead><tr><th scope="col">Currency</th><th scope="col">Network</th><th scope="col" class="num">Available</th><th scope="col" class="num">Pending</th><th scope="col" class="num">Total</th></tr></thead>
<tbody>${b.balances.map(
      (e) => html`<tr data-currency="${e.currency}"><th scope="row">${coin(e.currency)} <span class="muted">${e.currencyName}</span></th><td>${e.networkName}</td>
<td class="num" data-testid="available">${amount(e.available)}</td><td class="num">${amount(e.pending)}</td><td class="num">${amount(e.total)}</td></tr>`,
    )}</tbody></table>`,
  )}
<p>Total value: <strong data-testid="crypto-total-usd">${amount(b.totalUsdValue)} USD</strong> <span class="muted">(each stablecoin at 1 USD)</span></p>
<p class="muted"><em>Available</em> can be withdrawn; <em>pending</em> is incoming transfers still waiting for confirmations, net of the fee.</p>`;
}

function pager(base: string, page: number, pageSize: number, totalCount: number, extra: Record<string, string> = {}): SafeHtml {
  const pages = Math.max(1, Math.ceil(totalCount / pageSize));
  const link = (p: number) => `${base}?${new URLSearchParams({ ...extra, page: String(p) })}`;
  return html`<nav class="pager" aria-label="Pages"><span data-testid="page-of">Page ${page} of ${pages}</span>${page > 1 ? html` <a href="${link(page - 1)}" rel="prev">Previous</a>` : ''}${
    page < pages ? html` <a href="${link(page + 1)}" rel="next" data-testid="next-page">Next</a>` : ''
  }</nav>`;
}

function transactionsTable(t: CryptoTransactionPage): SafeHtml {
  if (t.items.length === 0) {
    return t.totalCount === 0 ? html`<p class="empty" data-testid="no-transactions">No incoming transfers yet. They appear here when a payer pays a crypto invoice.</p>` : html`<p class="empty">No transfers on this page.</p>`;
  }
  return scroller(
    'Transactions',
    html`<table class="data" data-testid="crypto-transactions"><caption class="sr-only">Incoming transfers, newest first</caption>
<thead><tr><th scope="col" class="num">Amount</th><th scope="col">Status</th><th scope="col">Confirmations</th><th scope="col">Detected (UTC)</th><th scope="col">Network</th><th scope="col">Transaction</th><th scope="col">Invoice</th></tr></thead>
<tbody>${t.items.map(
      (x) => html`<tr data-transaction="${x.id}"><td class="num">${amount(x.amount)} ${coin(x.currency)}</td><td data-testid="status">${statusBadge(x.status)}</td>
<td>${x.confirmations} of ${x.requiredConfirmations}</td><td>${when(x.createdAt)}</td><td>${x.network}</td><td>${shortCode(x.txHash)}</td><td>${shortCode(x.invoiceId)}</td></tr>`,
    )}</tbody></table>`,
  );
}

function withdrawalsTable(items: CryptoWithdrawal[], totalCount: number): SafeHtml {
  if (items.length === 0) {
    return totalCount === 0 ? html`<p class="empty" data-testid="no-withdrawals">No withdrawals match.</p>` : html`<p class="empty">No withdrawals on this page.</p>`;
  }
  return scroller(
    'Withdrawals',
    html`<table class="data" data-testid="crypto-withdrawals"><caption class="sr-only">Withdrawals, newest first</caption>
<thead><tr><th scope="col">Number</th><th scope="col" class="num">Amount</th><th scope="col" class="num">Fee</th><th scope="col" class="num">Sent</th><th scope="col">Status</th><th scope="col">Created (UTC)</th><th scope="col">To</th><th scope="col">Transaction</th></tr></thead>
<tbody>${items.map(
      (w) => html`<tr data-withdrawal="${w.id}"><th scope="row">${w.withdrawalNumber}</th>
<td class="num">${amount(w.amount)} ${coin(w.currency)} <span class="muted">${w.network}</span></td><td class="num" data-testid="fee">${amount(w.fee)}</td><td class="num">${amount(w.netAmount)}</td>
<td data-testid="status">${statusBadge(w.status)}${w.status === 'Failed' && w.failureReason ? html`<div class="muted reason">${w.failureReason}</div>` : ''}</td><td>${when(w.createdAt)}</td><td>${shortCode(w.toAddress)}</td><td>${shortCode(w.txHash)}</td></tr>`,
    )}</tbody></table>`,
  );
}

/**
 * The console's crypto section: balances per stablecoin and network, incoming transfers and
 * withdrawals, each read from crypto's merchant API as the merchant would read it (see
 * crypto-api.ts). When crypto cannot answer, the page says so in place of the data.
 */
export function consoleCryptoPages(pages: Api, deps: ConsoleDeps): void {
  const readerFor = (req: Request) => new CryptoReader(deps.config.CRYPTO_BASE_URL, sessionCookieOf(req) ?? '');

  /** One of the section's pages: its frame, its tabs, and `content` or the reason it is missing. */
  async function sectionPage(req: Request, auth: AuthContext, tab: Parameters<typeof tabs>[0], title: string, content: () => Promise<SafeHtml>) {
    const [session, body] = await Promise.all([
      sessionFrame(deps, req, auth),
      content().catch((err: unknown) => {
        if (!(err instanceof CryptoUnavailable)) throw err;
        deps.logger.warn({ err: err.message, status: err.status }, 'console: crypto API unavailable');
        return unavailable(err);
      }),
    ]);
    return {
      html: layout({
        title: `Crypto ${title.toLowerCase()}`,
        session,
        body: html`<h1>Crypto</h1>${tabs(tab)}<h2>${title}</h2>
<p class="muted" data-testid="crypto-mode">${auth.isTestMode ? 'Test mode: sandbox transfers and withdrawals only.' : 'Live mode.'}</p>${body}`,
      }),
    };
  }

  pages.page({
    method: 'get',
    path: CRYPTO_PATH,
    summary: 'Crypto balances per stablecoin and network',
    auth: 'session',
    handler: ({ req, auth }) => sectionPage(req, auth!, 'balances', 'Balances', async () => balancesTable(await readerFor(req).balances())),
  });

  pages.page({
    method: 'get',
    path: `${CRYPTO_PATH}/transactions`,
    summary: 'Incoming crypto transfers, paged, with their status',
    auth: 'session',
    query: ListQuery,
    handler: ({ req, auth, query }) =>
      sectionPage(req, auth!, 'transactions', 'Transactions', async () => {
        const t = await readerFor(req).transactions(pageOf(query.page), PAGE_SIZE);
        return html`<p class="muted">${t.totalCount} transfer${t.totalCount === 1 ? '' : 's'}, newest first. A transfer is credited once it has its confirmations.</p>
${transactionsTable(t)}${pager(`${CRYPTO_PATH}/transactions`, t.page, t.pageSize, t.totalCount)}`;
      }),
  });

  pages.page({
    method: 'get',
    path: `${CRYPTO_PATH}/withdrawals`,
    summary: 'Crypto withdrawals, paged, with their fee and status',
    auth: 'session',
    query: ListQuery,
    handler: ({ req, auth, query }) =>
      sectionPage(req, auth!, 'withdrawals', 'Withdrawals', async () => {
        const status = WITHDRAWAL_STATUSES.find((s) => s === query.status);
        const reader = readerFor(req);
        const list = await reader.withdrawals(pageOf(query.page), PAGE_SIZE, status);
        // A list item has no currency, address or date (the spec's list shape): each one's
        // details come from the same API's getWithdrawal, a page's at once.
        const items = await Promise.all(list.items.map((w) => reader.withdrawal(w.id)));
        return html`<form method="get" class="filters"><label>Status <select name="status"><option value="">any</option>${WITHDRAWAL_STATUSES.map(
          (s) => html`<option ${status === s ? html`selected` : ''}>${s}</option>`,
        )}</select></label><button>Filter</button></form>
<p class="muted">${list.totalCount} withdrawal${list.totalCount === 1 ? '' : 's'}, newest first. The fee is 1% of the amount; the rest is sent.</p>
${withdrawalsTable(items, list.totalCount)}${pager(`${CRYPTO_PATH}/withdrawals`, list.page, list.pageSize, list.totalCount, status ? { status } : {})}`;
      }),
  });
}
