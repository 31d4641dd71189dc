// Deliveries and attempts as the console shows them; their statements are store/deliveries.ts's.

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface DeliveryView {
  id: string;
  endpointId: string;
  /** The event it delivers: the body's `id`. */
  eventId: string;
  event: string;
  status: DeliveryStatus;
  /** Scheduled attempts made (manual resends are listed in the history, not counted here). */
  attempts: number;
  lastStatusCode: number | null;
  /** The first 1 KB of the last answer. */
  lastResponseBody: string | null;
  lastError: string | null;
  lastAttemptAt: Date | null;
  createdAt: Date;
  nextAttemptAt: Date | null;
  resendRequested: boolean;
}

export interface AttemptView {
  attemptedAt: Date;
  durationMs: number;
  url: string;
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  succeeded: boolean;
  manual: boolean;
}

export interface DeliveryFilter {
  status?: DeliveryStatus;
  event?: string;
  limit: number;
  offset: number;
}

/** A delivery of an event about one object (an invoice's timeline), with where it went. */
export interface ObjectDelivery extends DeliveryView {
  /** When the event happened, on the clock of the change it reports (the delivery's `createdAt` is the dispatcher's). */
  eventAt: Date;
  /** `console` (made in the console), `merchant` (the merchant's webhookUrl) or `target` (a URL the event named). */
  endpointKind: string;
  /** Null for `merchant` endpoints: their URL is read from the merchant at send time. */
  endpointUrl: string | null;
}
