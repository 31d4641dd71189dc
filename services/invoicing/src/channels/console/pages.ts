import { Type } from '@sinclair/typebox';
import type { Request } from 'express';
import { assertSameOriginSignIn, setSessionCookie, signInToConsole } from '@pay/accounts';
import { ownerOf, type AuthContext } from '@pay/auth';
import { html, type Api, type SafeHtml } from '@pay/http';
import { ApiError, MAX_OFFSET } from '@pay/schemas';
import { attemptsOf, getEndpoint, listDeliveries, listEndpoints, type AttemptView, type ConsoleEndpoint, type DeliveryView } from '@pay/webhooks';
import { INVOICING_EVENT_KINDS } from '../../event-catalogue';
import type { ConsoleDeps } from '../../deps';
import { DeliveryQuery } from '../../modules/webhooks/schemas';
import { IdParams, SignInBody } from './schemas';
import { isSecure } from './routes';
import { HOME, layout, sessionFrame } from './layout';

const PAGE_SIZE = 20;

/** The sign-in form: console.js sends it to the JSON API; without script it posts itself. */
function signInPage(error = ''): SafeHtml {
  return layout({
    title: 'Sign in',
    body: html`<section class="narrow"><h1>Sign in</h1>
<p>Use an API key. A test key (<code>sk_test_…</code>) shows test-mode webhooks; a live key, live ones.</p>
<form method="post" action="/console/sign-in" data-api="/console/api/session" data-next="${HOME}" data-testid="sign-in">
<label>API key <input name="apiKey" type="password" autocomplete="off" required></label>
<button class="primary">Sign in</button><p class="form-error" data-error>${error}</p></form></section>`,
  });
}

/** Refusals on console pages keep the console's look. */
export function consoleErrorPage(err: ApiError, _req: Request): SafeHtml {
  return layout({ title: err.status === 404 ? 'Not found' : 'Cannot continue', body: html`<h1>${err.status === 404 ? 'Not found' : 'Cannot continue'}</h1><p class="error" data-testid="error">${err.message}</p><p><a href="${HOME}">Back to the console</a></p>` });
}

const when = (d: Date | null) => (d ? html`<time datetime="${d.toISOString()}">${d.toISOString().replace('T', ' ').slice(0, 19)} UTC</time>` : html`—`);

function eventChoices(checked: string[]): SafeHtml {
  return html`<fieldset class="events"><legend>Events</legend>${INVOICING_EVENT_KINDS.map(
    (k) => html`<label><input type="checkbox" name="events" value="${k}" ${checked.includes(k) ? html`checked` : ''}> ${k}</label>`,
  )}</fieldset>`;
}

function statusBadge(status: string): SafeHtml {
  return html`<span class="status ${status}">${status}</span>`;
}

/** Which events a webhook receives: those of its mode only. */
function modeBadge(mode: ConsoleEndpoint['mode']): SafeHtml {
  return html`<span class="badge ${mode}" data-testid="webhook-mode">${mode === 'live' ? 'Live events only' : 'Test events only'}</span>`;
}

function webhookList(hooks: ConsoleEndpoint[]): SafeHtml {
  if (hooks.length === 0) return html`<p class="empty">No webhooks yet. Create one below to receive invoice and KYC events.</p>`;
  return html`<ul class="cards" data-testid="webhooks">${hooks.map(
    (h) => html`<li><a href="/console/webhooks/${h.id}"><strong class="url">${h.url}</strong></a> ${modeBadge(h.mode)}
${h.disabledAt ? html`<span class="status failed">disabled</span>` : ''}
<div class="muted">${h.description ?? ''}</div><div class="muted">${h.events.join(', ')}</div></li>`,
  )}</ul>`;
}

function attemptRows(list: AttemptView[]): SafeHtml {
  if (list.length === 0) return html`<p class="muted">No attempt yet.</p>`;
  return html`<table class="attempts"><thead><tr><th>Sent</th><th>Result</th><th>Duration</th><th>Response (first 1 KB)</th></tr></thead><tbody>${list.map(
    (a) => html`<tr><td>${when(a.attemptedAt)}${a.manual ? html` <span class="muted">(resend)</span>` : ''}</td>
<td>${a.statusCode !== null ? html`HTTP ${a.statusCode}` : html`<span class="error">${a.error}</span>`}</td><td>${a.durationMs} ms</td>
<td><pre>${a.responseBody ?? ''}</pre></td></tr>`,
  )}</tbody></table>`;
}

function deliveryRows(items: DeliveryView[], attempts: Map<string, AttemptView[]>): SafeHtml {
  if (items.length === 0) return html`<p class="empty">No deliveries match.</p>`;
  // The header counts every attempt listed below, resends included (`d.attempts` counts the
  // scheduled ones only, which the retry schedule needs).
  const made = (d: DeliveryView) => attempts.get(d.id)?.length ?? d.attempts;
  return html`<ul class="deliveries" data-testid="deliveries">${items.map(
    (d) => html`<li data-delivery="${d.id}"><details><summary>${statusBadge(d.status)} <strong>${d.event}</strong>
<span class="muted" data-testid="delivery-summary">${when(d.createdAt)} · ${made(d)} attempt${made(d) === 1 ? '' : 's'}${d.lastStatusCode !== null ? html` · HTTP ${d.lastStatusCode}` : ''}${d.nextAttemptAt ? html` · next ${when(d.nextAttemptAt)}` : ''}</span></summary>
<p class="muted">Delivery <code>${d.id}</code></p>
${attemptRows(attempts.get(d.id) ?? [])}
<form data-api="/console/api/deliveries/${d.id}/resend"><button>Resend</button><span class="form-error" data-error></span></form>
</details></li>`,
  )}</ul>`;
}

/** The console pages: server-rendered, on the console JSON API through console.js for changes. */
export function consolePages(pages: Api, deps: ConsoleDeps): void {
  const db = deps.db;
  const frame = (req: Request, auth: AuthContext) => sessionFrame(deps, req, auth);

  pages.page({ method: 'get', path: '/console', summary: 'Console home', auth: 'session', handler: () => ({ redirect: HOME }) });

  pages.page({ method: 'get', path: '/console/sign-in', summary: 'Sign in with an API key', auth: 'none', handler: () => ({ html: signInPage() }) });

  // The same sign-in without script: the form posts itself (never a GET, which would put the
  // key in the URL), and a refusal shows the form again with the reason.
  pages.page({
    method: 'post',
    path: '/console/sign-in',
    summary: 'Sign in with an API key, posted by the form itself',
    auth: 'none',
    form: SignInBody,
    handler: async ({ req, form, res }) => {
      try {
        assertSameOriginSignIn(req, deps.config.PUBLIC_URL);
        const s = await signInToConsole(deps.db, deps.secrets, form.apiKey, deps.clock.now());
        setSessionCookie(res, s.token, s.expiresAt, isSecure(deps));
        return { redirect: HOME };
      } catch (err) {
        if (err instanceof ApiError && err.status < 500) return { status: err.status, html: signInPage(err.message) };
        throw err;
      }
    },
  });

  pages.page({
    method: 'get',
    path: '/console/webhooks',
    summary: 'Webhooks and a form to create one',
    auth: 'session',
    handler: async ({ req, auth }) => {
      const hooks = await listEndpoints(db, deps.secrets, ownerOf(auth!));
      const disabled = hooks.filter((h) => h.disabledAt);
      const session = await frame(req, auth!);
      return {
        html: layout({
          title: 'Webhooks',
          session,
          body: html`<h1>Webhooks</h1>
${disabled.length > 0 ? html`<p class="warning" data-testid="disabled-warning">${disabled.length} webhook${disabled.length === 1 ? ' is' : 's are'} disabled after failing every delivery for 3 days. Open ${disabled.length === 1 ? 'it' : 'them'} to replay what was missed.</p>` : ''}
${webhookList(hooks)}
<section class="panel"><h2>New webhook</h2>
<p class="muted" data-testid="new-webhook-mode">It will receive ${session.mode === 'live' ? 'live' : 'test'} events only: those of the key you signed in with. A live webhook never receives a test event, nor a test webhook a live one; sign in with a ${session.mode === 'live' ? 'test' : 'live'} key to make a webhook for ${session.mode === 'live' ? 'test' : 'live'} events.</p>
<form data-api="/console/api/webhooks" data-next="/console/webhooks/{id}" data-testid="create-webhook">
<label>Endpoint URL <input name="url" type="url" placeholder="https://example.com/webhooks" required></label>
<label>Description <input name="description" maxlength="500" placeholder="optional"></label>
${eventChoices(['invoice.paid'])}
<button class="primary">Create webhook</button><p class="form-error" data-error></p></form></section>`,
        }),
      };
    },
  });

  pages.page({
    method: 'get',
    path: '/console/webhooks/:id',
    summary: 'One webhook: secret, settings, actions and delivery history',
    auth: 'session',
    params: IdParams,
    query: Type.Object({ status: Type.Optional(Type.String()), event: Type.Optional(Type.String()), offset: Type.Optional(Type.String()) }),
    handler: async ({ req, auth, params, query }) => {
      const owner = ownerOf(auth!);
      const hook = await getEndpoint(db, deps.secrets, owner, params.id);
      // Filters come from a GET form; anything not understood shows everything rather than failing.
      const filter = {
        status: DeliveryQuery.properties.status.enum.includes(query.status ?? '') ? (query.status as 'pending') : undefined,
        event: (INVOICING_EVENT_KINDS as readonly string[]).includes(query.event ?? '') ? query.event : undefined,
        limit: PAGE_SIZE,
        offset: Math.min(MAX_OFFSET, Math.max(0, Number.parseInt(query.offset ?? '0', 10) || 0)),
      };
      const { items, total } = await listDeliveries(db, owner, hook.id, filter);
      const attempts = await attemptsOf(db, items.map((d) => d.id));
      const more = filter.offset + items.length < total;
      const qs = (offset: number) => `?${new URLSearchParams({ ...(filter.status ? { status: filter.status } : {}), ...(filter.event ? { event: filter.event } : {}), offset: String(offset) })}`;
      return {
        html: layout({
          title: hook.url,
          session: await frame(req, auth!),
          body: html`<p><a href="/console/webhooks">← Webhooks</a></p>
<h1 class="url" data-testid="webhook-url">${hook.url}</h1>
<p>${modeBadge(hook.mode)}</p>
${hook.description ? html`<p>${hook.description}</p>` : ''}
${
  hook.disabledAt
    ? html`<div class="warning" data-testid="disabled-warning"><p>Disabled ${when(hook.disabledAt)}: every delivery failed for 3 days (since ${when(hook.failingSince)}). Nothing is sent until you re-enable it.</p>
<form data-api="/console/api/webhooks/${hook.id}/replay"><button class="primary">Re-enable and replay missed deliveries</button><span class="form-error" data-error></span></form></div>`
    : hook.failingSince
      ? html`<p class="warning">Failing since ${when(hook.failingSince)}. After 3 days of failures it is disabled.</p>`
      : ''
}
<section class="panel"><h2>Signing secret</h2>
<details><summary>Show secret</summary><code class="secret" data-testid="secret">${hook.secret}</code></details>
<p class="muted">Verify <code>X-SVC-Signature</code> = hex HMAC-SHA256(secret, <code>X-SVC-Timestamp</code> + raw body). While a rotated secret's overlap lasts, <code>X-SVC-Signature</code> stays the old secret's and <code>X-SVC-Signatures</code> lists both as <code>v1,&lt;hex&gt;</code> entries${hook.previousSecretExpiresAt && hook.previousSecretExpiresAt.getTime() > deps.clock.now().getTime() ? html` (the old secret signs until <span data-testid="overlap-until">${hook.previousSecretExpiresAt.toISOString()}</span>)` : ''}.</p>
<div class="actions">
<form data-api="/console/api/webhooks/${hook.id}/rotate-secret" data-confirm="Rotate the secret? The current one stops working once the overlap you chose is over (at once with 0)." data-testid="rotate-secret"><label>Old secret keeps signing for <input name="overlapSeconds" type="number" min="0" max="604800" step="1" value="0"> seconds (0: stops at once; 86400: 24 h)</label> <button>Rotate secret</button><span class="form-error" data-error></span></form>
<form data-api="/console/api/webhooks/${hook.id}/test"><button data-testid="send-test">Send test event</button><span class="form-error" data-error></span></form>
</div></section>
<section class="panel"><h2>Settings</h2>
<form data-api="/console/api/webhooks/${hook.id}" data-method="PATCH" data-testid="edit-webhook">
<label>Endpoint URL <input name="url" type="url" value="${hook.url}" required></label>
<label>Description <input name="description" maxlength="500" value="${hook.description ?? ''}"></label>
${eventChoices(hook.events)}
<button class="primary">Save</button><p class="form-error" data-error></p></form>
<form data-api="/console/api/webhooks/${hook.id}" data-method="DELETE" data-next="/console/webhooks" data-confirm="Delete this webhook and its history?"><button class="danger">Delete webhook</button><span class="form-error" data-error></span></form>
</section>
<section class="panel"><h2>Deliveries <span class="muted">(${total})</span></h2>
<form method="get" class="filters">
<label>Status <select name="status"><option value="">any</option>${['pending', 'succeeded', 'failed'].map((s) => html`<option ${filter.status === s ? html`selected` : ''}>${s}</option>`)}</select></label>
<label>Event <select name="event"><option value="">any</option>${INVOICING_EVENT_KINDS.map((k) => html`<option ${filter.event === k ? html`selected` : ''}>${k}</option>`)}</select></label>
<button>Filter</button></form>
${deliveryRows(items, attempts)}
<p class="pager">${filter.offset > 0 ? html`<a href="${qs(Math.max(0, filter.offset - PAGE_SIZE))}">Newer</a>` : ''} ${more ? html`<a href="${qs(filter.offset + PAGE_SIZE)}">Older</a>` : ''}</p>
</section>`,
        }),
      };
    },
  });
}
