import { Type } from '@sinclair/typebox';
import { assertSameOriginSignIn, clearSessionCookie, getMerchant, sessionCookieOf, setSessionCookie, signInToConsole, signOutOfConsole } from '@pay/accounts';
import { ownerOf } from '@pay/auth';
import { paginationOf, type Api } from '@pay/http';
import {
  createWebhook,
  deleteEndpoint,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  reenableAndReplay,
  requestResend,
  rotateWebhookSecret,
  sendTestEvent,
  updateWebhook,
} from '@pay/webhooks';
import { invoicingEvents } from '../../event-catalogue';
import type { ConsoleDeps } from '../../deps';
import { CreateWebhookBody, Delivery, DeliveryQuery, RotatedSecret, RotateSecretBody, UpdateWebhookBody, Webhook } from '../../modules/webhooks/schemas';
import { deliveryJson, webhookJson } from '../../modules/webhooks/views';
import { webhookUrlPolicy } from '../../modules/webhooks/policy';
import { queueDisabledEmail } from '../../modules/webhooks/disabled-email';
import { Deliveries, IdParams, SignedIn, SignInBody, TestBody } from './schemas';

const tags = ['Console'];

/** Served over TLS when the public URL is https; the cookie is then Secure. */
export const isSecure = (deps: ConsoleDeps) => deps.config.PUBLIC_URL.startsWith('https://');

/**
 * The console's own JSON API, behind a session cookie; every change carries
 * X-CSRF-Token. The console pages run on it.
 */
export function consoleRoutes(api: Api, deps: ConsoleDeps): void {
  const { secrets, clock } = deps;
  const db = deps.db;

  api.route({
    method: 'post',
    path: '/console/api/session',
    operationId: 'consoleSignIn',
    summary: 'Sign in to the console with an API key',
    tags,
    auth: 'none',
    body: SignInBody,
    response: { status: 200, schema: SignedIn },
    errors: ['FORBIDDEN'],
    handler: async ({ req, body, res }) => {
      assertSameOriginSignIn(req, deps.config.PUBLIC_URL);
      const s = await signInToConsole(deps.db, secrets, body.apiKey, clock.now());
      const merchant = await getMerchant(deps.db, s.auth.merchantId);
      setSessionCookie(res, s.token, s.expiresAt, isSecure(deps));
      return {
        body: {
          merchant: { id: merchant.id, companyName: merchant.companyName, email: merchant.email, mode: s.auth.isTestMode ? 'test' : 'live' },
          csrfToken: s.csrfToken,
          expiresAt: s.expiresAt.toISOString(),
        },
      };
    },
  });

  api.route({
    method: 'delete',
    path: '/console/api/session',
    operationId: 'consoleSignOut',
    summary: 'Sign out',
    tags,
    auth: 'session',
    response: { status: 200, schema: Type.Object({ signedOut: Type.Literal(true) }) },
    handler: async ({ req, res }) => {
      await signOutOfConsole(deps.db, sessionCookieOf(req)!);
      clearSessionCookie(res, isSecure(deps));
      return { body: { signedOut: true } };
    },
  });

  api.route({
    method: 'get',
    path: '/console/api/webhooks',
    operationId: 'consoleListWebhooks',
    summary: "The merchant's webhooks in the session's mode",
    tags,
    auth: 'session',
    response: { status: 200, schema: Type.Object({ data: Type.Array(Webhook) }) },
    handler: async ({ auth }) => ({ body: { data: (await listEndpoints(db, secrets, ownerOf(auth))).map(webhookJson) } }),
  });

  api.route({
    method: 'post',
    path: '/console/api/webhooks',
    operationId: 'consoleCreateWebhook',
    summary: 'Create a webhook; the answer shows its signing secret',
    tags,
    auth: 'session',
    body: CreateWebhookBody,
    response: { status: 201, schema: Webhook },
    handler: async ({ auth, body }) => {
      const w = await createWebhook(db, secrets, ownerOf(auth), body, { policy: webhookUrlPolicy(deps.config), now: clock.now() });
      return { status: 201, body: webhookJson(w) };
    },
  });

  api.route({
    method: 'get',
    path: '/console/api/webhooks/:id',
    operationId: 'consoleGetWebhook',
    summary: 'One webhook, secret included',
    tags,
    auth: 'session',
    params: IdParams,
    response: { status: 200, schema: Webhook },
    errors: ['NOT_FOUND'],
    handler: async ({ auth, params }) => ({ body: webhookJson(await getEndpoint(db, secrets, ownerOf(auth), params.id)) }),
  });

  api.route({
    method: 'patch',
    path: '/console/api/webhooks/:id',
    operationId: 'consoleUpdateWebhook',
    summary: 'Change the URL, the events, the description, or whether it is enabled',
    tags,
    auth: 'session',
    params: IdParams,
    body: UpdateWebhookBody,
    response: { status: 200, schema: Webhook },
    errors: ['NOT_FOUND'],
    handler: async ({ auth, params, body }) => {
      const w = await updateWebhook(db, secrets, ownerOf(auth), params.id, body, { policy: webhookUrlPolicy(deps.config), now: clock.now(), alsoOnDisabled: queueDisabledEmail });
      if (body.enabled === false) deps.kickOutbox();
      return { body: webhookJson(w) };
    },
  });

  api.route({
    method: 'delete',
    path: '/console/api/webhooks/:id',
    operationId: 'consoleDeleteWebhook',
    summary: 'Delete a webhook and its delivery history',
    tags,
    auth: 'session',
    params: IdParams,
    response: { status: 200, schema: Type.Object({ id: Type.String(), deleted: Type.Literal(true) }) },
    errors: ['NOT_FOUND'],
    handler: async ({ auth, params }) => {
      await deleteEndpoint(db, ownerOf(auth), params.id);
      return { body: { id: params.id, deleted: true } };
    },
  });

  api.route({
    method: 'post',
    path: '/console/api/webhooks/:id/rotate-secret',
    operationId: 'consoleRotateWebhookSecret',
    summary: 'A new signing secret, in force at once; the old one stops working unless an overlap is asked for',
    tags,
    auth: 'session',
    params: IdParams,
    body: RotateSecretBody(0),
    response: { status: 200, schema: RotatedSecret },
    errors: ['NOT_FOUND'],
    handler: async ({ auth, params, body }) => {
      // The spec's console action kills the old secret at once: overlap 0 unless the user picks one.
      const r = await rotateWebhookSecret(db, secrets, ownerOf(auth), params.id, body?.overlapSeconds ?? 0, clock.now());
      return { body: { secret: r.secret, previousSecretExpiresAt: r.previousSecretExpiresAt?.toISOString() ?? null } };
    },
  });

  api.route({
    method: 'post',
    path: '/console/api/webhooks/:id/test',
    operationId: 'consoleTestWebhook',
    summary: 'Send a sample event with a dummy payload (by default the first subscribed kind)',
    tags,
    auth: 'session',
    params: IdParams,
    body: TestBody,
    response: { status: 202, schema: Delivery },
    errors: ['NOT_FOUND'],
    handler: async ({ auth, params, body }) => {
      const d = await sendTestEvent(db, invoicingEvents, ownerOf(auth), params.id, clock.now(), body?.event);
      deps.wakeWebhooks('test');
      return { status: 202, body: deliveryJson(d) };
    },
  });

  api.route({
    method: 'post',
    path: '/console/api/webhooks/:id/replay',
    operationId: 'consoleReplayWebhook',
    summary: 'Re-enable a disabled (or failing) webhook and send again every delivery it missed',
    tags,
    auth: 'session',
    params: IdParams,
    response: { status: 202, schema: Type.Object({ replayed: Type.Integer({ description: 'Deliveries put back on the schedule' }) }) },
    errors: ['NOT_FOUND'],
    handler: async ({ auth, params }) => {
      await getEndpoint(db, secrets, ownerOf(auth), params.id);
      const ids = await reenableAndReplay(db, ownerOf(auth), params.id, clock.now());
      deps.wakeWebhooks('replay');
      return { status: 202, body: { replayed: ids.length } };
    },
  });

  api.route({
    method: 'get',
    path: '/console/api/webhooks/:id/deliveries',
    operationId: 'consoleListDeliveries',
    summary: "A webhook's delivery history, newest first",
    tags,
    auth: 'session',
    params: IdParams,
    query: DeliveryQuery,
    response: { status: 200, schema: Deliveries },
    errors: ['NOT_FOUND'],
    handler: async ({ auth, params, query }) => {
      await getEndpoint(db, secrets, ownerOf(auth), params.id);
      const { items, total } = await listDeliveries(db, ownerOf(auth), params.id, query);
      return { body: { data: items.map(deliveryJson), pagination: paginationOf(total, query) } };
    },
  });

  api.route({
    method: 'post',
    path: '/console/api/deliveries/:id/resend',
    operationId: 'consoleResendDelivery',
    summary: 'Send a delivery again now, with the same X-SVC-Delivery; recorded as a new attempt',
    tags,
    auth: 'session',
    params: IdParams,
    response: { status: 202, schema: Delivery },
    errors: ['NOT_FOUND'],
    handler: async ({ auth, params }) => {
      const d = await requestResend(db, ownerOf(auth), params.id, clock.now());
      deps.wakeWebhooks('resend');
      return { status: 202, body: deliveryJson(d) };
    },
  });
}
