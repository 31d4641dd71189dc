import type { Owner } from '@pay/auth';
import { type IdempotentRun, type RawJson } from '@pay/http';
import { ApiError, parseMoney } from '@pay/schemas';
import type { Static } from '@sinclair/typebox';
import type { V1Deps } from '../../../deps';
import { FIAT_DECIMALS, openInvoice } from '../invoices';
import type { CreatedInvoiceRow } from '../store';
import { V1_DEFAULT_VALIDITY_HOURS, V1_MAX_VALIDITY_DAYS, type CreateV1InvoiceBody } from './schemas';

const HOUR_MS = 3_600_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A v1 id is opaque: one that cannot be ours is simply not found (never a 400 or a database error). */
export function assertKnownIdShape(id: string, what = 'Invoice'): void {
  if (!UUID.test(id)) throw new ApiError('NOT_FOUND', `${what} ${id} not found`);
}

/** `expiresAt` as asked, or 24 h from now; it must be in the future and at most 30 days ahead. */
export function v1ExpiresAt(text: string | undefined, now: Date): Date {
  if (text === undefined) return new Date(now.getTime() + V1_DEFAULT_VALIDITY_HOURS * HOUR_MS);
  const at = new Date(text);
  const problem =
    Number.isNaN(at.getTime())
      ? 'must be an ISO 8601 date-time'
      : at.getTime() <= now.getTime()
        ? `must be in the future (now is ${now.toISOString()})`
        : at.getTime() > now.getTime() + V1_MAX_VALIDITY_DAYS * 24 * HOUR_MS
          ? `must be at most ${V1_MAX_VALIDITY_DAYS} days ahead`
          : null;
  if (problem) throw new ApiError('VALIDATION_ERROR', `expiresAt ${problem}`, [{ field: 'expiresAt', message: problem }]);
  return at;
}

/** The v1 create body, `metadata` as the exact JSON text the merchant sent (`exactBodyMember`). */
export type CreateV1Input = Omit<Static<typeof CreateV1InvoiceBody>, 'metadata'> & { metadata?: RawJson };

/** POST /api/v1/invoices: an SBP invoice in the given currency, through the one create path. */
export function createV1Invoice(deps: V1Deps, owner: Owner, body: CreateV1Input, idempotency?: IdempotentRun): Promise<CreatedInvoiceRow> {
  return openInvoice(deps, owner, {
    api: 'v1',
    amount: parseMoney(body.amount, { decimals: FIAT_DECIMALS }),
    currency: body.currency,
    method: 'sbp',
    description: body.description ?? null,
    expiresAt: v1ExpiresAt(body.expiresAt, deps.clock.now()),
    metadata: body.metadata ?? null,
    redirectUrl: body.redirectUrl ?? null,
    successUrl: body.successUrl ?? null,
    // The v1 create answer has no QR (`qrCodeUrl` is get only): its first view draws it.
    qrLater: true,
    idempotency,
  });
}
