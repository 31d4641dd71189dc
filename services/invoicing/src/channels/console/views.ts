import type { ConsoleEndpoint, DeliveryView } from '@pay/webhooks';

export function webhookJson(w: ConsoleEndpoint) {
  return {
    id: w.id,
    url: w.url,
    events: w.events,
    description: w.description,
    secret: w.secret,
    mode: w.mode,
    createdAt: w.createdAt.toISOString(),
    updatedAt: w.updatedAt.toISOString(),
    disabledAt: w.disabledAt?.toISOString() ?? null,
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
