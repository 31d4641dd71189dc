// Managing a merchant's webhooks: the one implementation behind the console's JSON API and the
// v2 API (`/api/v2/webhooks`), so both check a URL, change a webhook and disable it alike.
import type { Owner, SecretBox } from '@pay/auth';
import type { Queries, Transactions } from './db';
import { assertWebhookUrl, type ConsoleEndpoint, type EndpointChange, type EndpointInput, type UrlPolicy } from './endpoints';
import { createEndpoint, failPendingDeliveriesOf, lockEndpoint, rotateEndpointSecret, updateEndpoint } from './store/endpoints';
import { MAX_SECRET_OVERLAP_SECONDS } from './signing';
import { announceDisabledIn, type AlsoOnDisabled } from './disabled';
import { ApiError } from '@pay/schemas';

/** What every change needs besides its input: where URLs may point, and the time. */
export interface ManageContext {
  policy: UrlPolicy;
  now: Date;
}

/** A change that may disable a webhook also says what to queue beside its `endpoint.disabled` (the e-mail). */
export interface UpdateContext extends ManageContext {
  alsoOnDisabled: AlsoOnDisabled;
}

/** A description as stored: trimmed, and an empty one is none. */
function descriptionOf(d: string | null | undefined): string | null | undefined {
  return d === undefined ? undefined : d?.trim() || null;
}

/** Creates a webhook after checking its URL (outbound rules, HTTPS in production); the answer shows its secret. */
export function createWebhook(db: Queries, box: SecretBox, owner: Owner, input: EndpointInput, ctx: ManageContext): Promise<ConsoleEndpoint> {
  assertWebhookUrl(input.url, ctx.policy);
  return createEndpoint(db, box, owner, { url: input.url, events: input.events, description: descriptionOf(input.description) ?? null }, ctx.now);
}

/**
 * Changes a webhook: its URL (checked as at creation), events, description, and whether it is
 * enabled. Disabling it fails what was still waiting for it (replayable), as the worker does
 * when it disables one after 3 days of failures, and announces it (`endpoint.disabled` to the
 * merchant's other webhooks, and `alsoOnDisabled`: the e-mail) in the same transaction.
 */
export async function updateWebhook(db: Transactions, box: SecretBox, owner: Owner, id: string, change: EndpointChange, ctx: UpdateContext): Promise<ConsoleEndpoint> {
  if (change.url !== undefined) assertWebhookUrl(change.url, ctx.policy);
  return db.$transaction(async (tx) => {
    const before = await lockEndpoint(tx, owner, id);
    const after = await updateEndpoint(tx, box, owner, id, { ...change, description: descriptionOf(change.description) }, ctx.now);
    if (before.disabledAt === null && after.disabledAt !== null) {
      await failPendingDeliveriesOf(tx, id);
      await announceDisabledIn(tx, { now: ctx.now, ids: [id], also: ctx.alsoOnDisabled });
    }
    return after;
  });
}

/**
 * A new secret for a webhook. `overlapSeconds` (0 to MAX_SECRET_OVERLAP_SECONDS): how long the
 * replaced secret keeps signing beside it. The console's rotate defaults to 0 (the spec: the old
 * one stops at once), the API's to 24 h; the caller says which.
 */
export function rotateWebhookSecret(db: Queries, box: SecretBox, owner: Owner, id: string, overlapSeconds: number, now: Date): Promise<{ secret: string; previousSecretExpiresAt: Date | null }> {
  if (!Number.isInteger(overlapSeconds) || overlapSeconds < 0 || overlapSeconds > MAX_SECRET_OVERLAP_SECONDS) {
    const message = `must be an integer from 0 to ${MAX_SECRET_OVERLAP_SECONDS}`;
    throw new ApiError('VALIDATION_ERROR', `overlapSeconds ${message}`, [{ field: 'overlapSeconds', message }]);
  }
  return rotateEndpointSecret(db, box, owner, id, now, overlapSeconds * 1000);
}
