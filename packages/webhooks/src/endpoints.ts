// A console webhook as the console shows it, and what a URL must be; its statements are
// store/endpoints.ts's.
import { randomBytes } from 'node:crypto';
import { ApiError } from '@pay/schemas';
import { outboundUrlProblem } from '@pay/http';

export type EndpointKind = 'console' | 'merchant' | 'target';

/** A console webhook as the console shows it, secret included (the spec lets it be viewed again). */
export interface ConsoleEndpoint {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  secret: string;
  /**
   * Until when the secret replaced by the last rotation still signs beside `secret` (the
   * overlap); null when it was rotated without one (or never). A time past is over.
   */
  previousSecretExpiresAt: Date | null;
  /**
   * The events it receives: those of the mode it was made in (the console session's key). A
   * live webhook never receives a test event (`livemode: false`), nor a test webhook a live one.
   */
  mode: 'live' | 'test';
  createdAt: Date;
  updatedAt: Date;
  /** Set when the endpoint failed every attempt for 3 days; nothing is sent until it is re-enabled. */
  disabledAt: Date | null;
  /** `every delivery failed for 3 days` (the worker) or `disabled by the merchant`. */
  disabledReason: string | null;
  failingSince: Date | null;
}

/** A console webhook's signing secret: shown in the console, sealed at rest like HMAC secrets. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

export interface UrlPolicy {
  allowPrivate: boolean;
  /** Production deployments require HTTPS. */
  requireHttps: boolean;
}

/** Why `url` cannot be a webhook destination, as a VALIDATION_ERROR on `url`. */
export function assertWebhookUrl(url: string, policy: UrlPolicy): void {
  const problem =
    outboundUrlProblem(url, { allowPrivate: policy.allowPrivate }) ??
    (policy.requireHttps && !url.toLowerCase().startsWith('https://') ? 'must use https' : null);
  if (problem) throw new ApiError('VALIDATION_ERROR', `url ${problem}`, [{ field: 'url', message: problem }]);
}

export interface EndpointInput {
  url: string;
  events: string[];
  description?: string | null;
}

/** What a merchant may change of a webhook (console or API); absent fields stay as they are. */
export interface EndpointChange extends Partial<EndpointInput> {
  /**
   * false: the merchant disables it (nothing is sent, deliveries of the meantime are `failed`,
   * replayable); true: enabled again, its failing streak forgotten (missed deliveries are sent
   * again only by a replay).
   */
  enabled?: boolean;
}

/** Why a webhook is disabled when its merchant disabled it (the worker's own reason says 3 days of failures). */
export const DISABLED_BY_MERCHANT = 'disabled by the merchant';
