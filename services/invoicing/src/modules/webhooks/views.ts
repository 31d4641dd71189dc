import type { AttemptView, ConsoleEndpoint, DeliveryView } from '@pay/webhooks';

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

/** A delivery as the v2 API lists it: with its event's id and every attempt. */
export function deliveryWithAttemptsJson(d: DeliveryView, attempts: AttemptView[]) {
  return {
    ...deliveryJson(d),
    eventId: d.eventId,
    attemptHistory: attempts.map((a) => ({
      attemptedAt: a.attemptedAt.toISOString(),
      durationMs: a.durationMs,
      url: a.url,
      statusCode: a.statusCode,
      error: a.error,
      responseBody: a.responseBody,
      succeeded: a.succeeded,
      manual: a.manual,
    })),
  };
}
