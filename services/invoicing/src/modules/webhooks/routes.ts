import { Type } from '@sinclair/typebox';
import { ownerOf } from '@pay/auth';
import { paginationOf, type Api } from '@pay/http';
import { OffsetPage } from '@pay/schemas';
import { attemptsOf, countEndpoints, createWebhook, deleteEndpoint, getEndpoint, listDeliveries, listEndpoints, replaySince, requestResend, rotateWebhookSecret, updateWebhook } from '@pay/webhooks';
import type { WebhooksDeps } from '../../deps';
import { webhookUrlPolicy } from './policy';
import { queueDisabledEmail } from './disabled-email';
import {
  CreateWebhookBody,
  Delivery,
  DeliveryParams,
  DeliveryQuery,
  DeliveryWithAttempts,
  ListWebhooksQuery,
  Replayed,
  ReplayBody,
  RotatedSecret,
  RotateSecretBody,
  UpdateWebhookBody,
  Webhook,
  WebhookParams,
} from './schemas';
import { deliveryJson, deliveryWithAttemptsJson, webhookJson } from './views';

const tags = ['Webhooks'];

const ABOUT =
  'The same webhooks as the web console manages (the console keeps working on the same functions): each receives the events of the mode of the key that made it, ' +
  "signed with its own secret (X-SVC-Signature). `secret` is shown in every answer, as the console shows it; the merchant's crypto `webhookUrl` is not one of these.";

/**
 * The merchant's webhooks through the v2 API (issue 32): what the console does, signed like
 * every v2 operation, on the same functions of @pay/webhooks.
 */
export function webhookRoutes(api: Api, deps: WebhooksDeps): void {
  const { db, secrets, clock } = deps;
  const context = () => ({ policy: webhookUrlPolicy(deps.config), now: clock.now() });

  api.route({
    method: 'post',
    path: '/api/v2/webhooks',
    operationId: 'createWebhook',
    summary: 'Create a webhook',
    description: `${ABOUT} The URL must be HTTPS in production and may not point at a private, loopback or link-local address.`,
    tags,
    auth: 'signed',
    idempotent: true,
    body: CreateWebhookBody,
    response: { status: 201, schema: Type.Object({ webhook: Webhook }) },
    handler: async ({ auth, body }) => ({ status: 201, body: { webhook: webhookJson(await createWebhook(db, secrets, ownerOf(auth), body, context())) } }),
  });

  api.route({
    method: 'get',
    path: '/api/v2/webhooks',
    operationId: 'listWebhooks',
    summary: 'List webhooks',
    description: `Oldest first, in the mode of the key. \`limit\` default 50, at most 100. ${ABOUT}`,
    tags,
    auth: 'signed',
    query: ListWebhooksQuery,
    response: { status: 200, schema: OffsetPage(Webhook) },
    handler: async ({ auth, query }) => {
      const owner = ownerOf(auth);
      const [rows, total] = await Promise.all([listEndpoints(db, secrets, owner, query), countEndpoints(db, owner)]);
      return { body: { data: rows.map(webhookJson), pagination: paginationOf(total, query) } };
    },
  });

  api.route({
    method: 'get',
    path: '/api/v2/webhooks/:webhookId',
    operationId: 'getWebhook',
    summary: 'Get a webhook',
    description: 'One webhook of the key’s mode, secret included.',
    tags,
    auth: 'signed',
    params: WebhookParams,
    response: { status: 200, schema: Type.Object({ webhook: Webhook }) },
    errors: ['NOT_FOUND'],
    handler: async ({ auth, params }) => ({ body: { webhook: webhookJson(await getEndpoint(db, secrets, ownerOf(auth), params.webhookId)) } }),
  });

  api.route({
    method: 'patch',
    path: '/api/v2/webhooks/:webhookId',
    operationId: 'updateWebhook',
    summary: 'Update a webhook',
    description:
      'Changes what is given: `url` (checked as at creation), `events`, `description` (null clears it), `enabled`. Disabling it records `endpoint.disabled` for the merchant’s other webhooks subscribed to it and e-mails the merchant, as when the platform disables one after 3 days of failures.',
    tags,
    auth: 'signed',
    params: WebhookParams,
    body: UpdateWebhookBody,
    response: { status: 200, schema: Type.Object({ webhook: Webhook }) },
    errors: ['NOT_FOUND'],
    handler: async ({ auth, params, body }) => {
      const w = await updateWebhook(db, secrets, ownerOf(auth), params.webhookId, body, { ...context(), alsoOnDisabled: queueDisabledEmail });
      // A disabling queued its e-mail.
      if (body.enabled === false) deps.kickOutbox();
      return { body: { webhook: webhookJson(w) } };
    },
  });

  api.route({
    method: 'delete',
    path: '/api/v2/webhooks/:webhookId',
    operationId: 'deleteWebhook',
    summary: 'Delete a webhook',
    description: 'Deletes the webhook with its delivery history; nothing more is sent to it.',
    tags,
    auth: 'signed',
    params: WebhookParams,
    response: { status: 200, schema: Type.Object({ id: Type.String({ format: 'uuid' }), deleted: Type.Literal(true) }) },
    errors: ['NOT_FOUND'],
    handler: async ({ auth, params }) => {
      await deleteEndpoint(db, ownerOf(auth), params.webhookId);
      return { body: { id: params.webhookId, deleted: true as const } };
    },
  });

  api.route({
    method: 'post',
    path: '/api/v2/webhooks/:webhookId/rotate-secret',
    operationId: 'rotateWebhookSecret',
    summary: 'Rotate a webhook’s secret',
    description:
      'A new secret signs from the next request on. The replaced one keeps signing for `overlapSeconds` (default 86400, 24 h; 0 stops it at once, as the console’s rotate does by default; at most 604800, 7 days). ' +
      'During the overlap X-SVC-Signature stays the old secret’s, so a receiver that checks one signature keeps working unchanged, and X-SVC-Signatures lists both as space-separated `v1,<hex>` entries, the new first: ' +
      'move your receiver to the new secret within the overlap with one that accepts any listed signature (@pay/webhook-receiver does). After it only the new secret signs. Rotating again during an overlap replaces the secret in force; the older one stops.',
    tags,
    auth: 'signed',
    idempotent: true,
    params: WebhookParams,
    body: RotateSecretBody(24 * 60 * 60),
    response: { status: 200, schema: RotatedSecret },
    errors: ['NOT_FOUND'],
    handler: async ({ auth, params, body }) => {
      const r = await rotateWebhookSecret(db, secrets, ownerOf(auth), params.webhookId, body?.overlapSeconds ?? 24 * 60 * 60, clock.now());
      return { body: { secret: r.secret, previousSecretExpiresAt: r.previousSecretExpiresAt?.toISOString() ?? null } };
    },
  });

  api.route({
    method: 'get',
    path: '/api/v2/webhooks/:webhookId/deliveries',
    operationId: 'listWebhookDeliveries',
    summary: 'List a webhook’s deliveries with their attempts',
    description:
      'Newest first, optionally of one `status` and one `event` kind. `limit` default 50, at most 100. Each delivery is one event to this webhook (`id` is X-SVC-Delivery, `eventId` the body’s `id`), with every request made for it (`attemptHistory`: scheduled and manual, oldest first, each with its status code or network error and the first 1 KB of the answer).',
    tags,
    auth: 'signed',
    params: WebhookParams,
    query: DeliveryQuery,
    response: { status: 200, schema: OffsetPage(DeliveryWithAttempts) },
    errors: ['NOT_FOUND'],
    handler: async ({ auth, params, query }) => {
      const { items, total } = await listDeliveries(db, ownerOf(auth), params.webhookId, query);
      const attempts = await attemptsOf(db, items.map((d) => d.id));
      return { body: { data: items.map((d) => deliveryWithAttemptsJson(d, attempts.get(d.id) ?? [])), pagination: paginationOf(total, query) } };
    },
  });

  api.route({
    method: 'post',
    path: '/api/v2/webhooks/:webhookId/deliveries/:deliveryId/resend',
    operationId: 'resendWebhookDelivery',
    summary: 'Resend one delivery',
    description:
      'One more request for this delivery, now, with the same X-SVC-Delivery and body (`id` included), recorded as a manual attempt; it does not count against the six of the schedule, and a success marks the delivery succeeded. Asking again before it is made asks once.',
    tags,
    auth: 'signed',
    idempotent: true,
    params: DeliveryParams,
    response: { status: 202, schema: Type.Object({ delivery: Delivery }) },
    errors: ['NOT_FOUND'],
    handler: async ({ auth, params }) => {
      const d = await requestResend(db, ownerOf(auth), params.deliveryId, clock.now(), params.webhookId);
      deps.wakeWebhooks('resend');
      return { status: 202, body: { delivery: deliveryJson(d) } };
    },
  });

  api.route({
    method: 'post',
    path: '/api/v2/webhooks/:webhookId/replay',
    operationId: 'replayWebhookEvents',
    summary: 'Replay every event since a time',
    description:
      'Sends this webhook again every event since `since` (at most 30 days ago) of a kind it subscribes to, through the same deliveries as ever: events it never got are delivered (`created`), failed deliveries are put back on a fresh schedule, succeeded ones resent, waiting retries brought forward (`resent`), each with its own X-SVC-Delivery and the event’s `id`, so receivers deduplicate. ' +
      'A double click replays once: replays of one webhook run one after the other, and a delivery already due or attempted in the last minute is left alone. A disabled webhook is refused (422 INVALID_STATE): enable it first.',
    tags,
    auth: 'signed',
    idempotent: true,
    params: WebhookParams,
    body: ReplayBody,
    response: { status: 202, schema: Type.Object({ replay: Replayed }) },
    errors: ['NOT_FOUND', 'INVALID_STATE'],
    handler: async ({ auth, params, body }) => {
      const r = await replaySince(db, ownerOf(auth), params.webhookId, new Date(body.since), clock.now());
      deps.wakeWebhooks('replay');
      return { status: 202, body: { replay: { since: new Date(body.since).toISOString(), ...r } } };
    },
  });
}
