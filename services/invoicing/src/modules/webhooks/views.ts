import type { ConsoleEndpoint, DeliveryView } from '@pay/webhooks';

/** A webhook as the console and the v2 API show it, secret included (the spec lets it be viewed again). */
export function webhookJson(w: ConsoleEndpoint) {
  return {
    id: w.id,
    url: w.url,
    events: w.events,
    description: w.description,
    secret: w.secret,
    previousSecretExpiresAt: w.previousSecretExpiresAt?.toISOString() ?? null,
    mode: w.mode,
    enabled: w.disabledAt === null,
    createdAt: w.createdAt.toISOString(),
    updatedAt: w.updatedAt.toISOString(),
    disabledAt: w.disabledAt?.toISOString() ?? null,
    disabledReason: w.disabledReason,
    failingSince: w.failingSince?.toISOString() ?? null,
  };
}

export function deliveryJson(d: DeliveryView) {
  return {
    id: d.id,
    event: d.event,
    status: d.status,
    attempts: d.attempts,
    lastStatusCode: d.lastStatusCode,
    lastResponseBody: d.lastResponseBody,
    lastError: d.lastError,
    createdAt: d.createdAt.toISOString(),
    nextAttemptAt: d.nextAttemptAt?.toISOString() ?? null,
  };
}
