import type { ErrorCode } from '@pay/schemas';

/**
 * What each error code tells the caller, for the OpenAPI document: the description of a
 * response lists its codes with these words, and each code's example error carries them as
 * its message. The real message of a refusal is more precise (it names the field or rule).
 */
export const ERROR_MEANINGS: Record<ErrorCode, string> = {
  VALIDATION_ERROR: 'The request is malformed: `details` names each failing field',
  VALIDATION_FAILED: 'The request is well-formed but a rule refuses it: `details` says which',
  INVALID_ADDRESS: 'The address is not a valid address of the currency’s network',
  UNAUTHORIZED: 'No API key, or an unknown or revoked one',
  INVALID_SIGNATURE: 'The request signature does not match the request as received',
  TIMESTAMP_OUT_OF_WINDOW: 'The timestamp header is not within 300 s of the server’s clock (or is in the wrong unit)',
  REPLAYED_REQUEST: 'This signature was already used: sign every request (and every retry) anew',
  FORBIDDEN: 'The key may not do this (e.g. a live-only operation called with a test key)',
  NOT_FOUND: 'No such object for this merchant and mode',
  METHOD_NOT_ALLOWED: 'The path exists but not with this method: `Allow` lists the methods it has',
  CONFLICT: 'The change conflicts with the object’s current state',
  EMAIL_ALREADY_REGISTERED: 'A merchant with this e-mail already exists',
  IDEMPOTENCY_CONFLICT: 'This Idempotency-Key was already used with a different request',
  IDEMPOTENCY_IN_PROGRESS: 'A request with this Idempotency-Key is still being processed: retry shortly',
  PAYLOAD_TOO_LARGE: 'The body (or an uploaded file) is larger than allowed',
  UNSUPPORTED_MEDIA_TYPE: 'The body is not of the media type the operation takes',
  INSUFFICIENT_BALANCE: 'The available balance does not cover the amount and its fee',
  WITHDRAWAL_LIMIT_EXCEEDED: 'The withdrawal would exceed the daily limit',
  INVALID_STATE: 'The object is not in a state that allows this',
  CURRENCY_NOT_ENABLED: 'The currency is not enabled for this merchant or mode',
  CUSTOMER_BLOCKED: 'The customer is blocked',
  KYC_REQUIRED: 'The invoice needs an approved KYC check first',
  INVOICE_ALREADY_PAID: 'The invoice is already paid',
  INVOICE_EXPIRED: 'The invoice has expired',
  INVOICE_CANCELLED: 'The invoice was cancelled',
  INVOICE_NOT_PAID: 'The invoice is not paid',
  REFUND_EXCEEDS_PAID: 'The refund would exceed what was paid and not yet refunded',
  CARD_DECLINED: 'The card payment was declined',
  PAYMENT_METHOD_NOT_ENABLED: 'The payment method is not available for this merchant or mode',
  ACQUIRER_REFUSED: 'The payment provider refused the request: its own code is in `details`',
  NO_VALID_ROWS: 'No row of the uploaded file is valid: `details` lists each row’s problems',
  RATE_LIMITED: 'Too many requests: wait for `Retry-After` seconds',
  SERVICE_UNAVAILABLE: 'A dependency is briefly unavailable and nothing was done: retry after `Retry-After` seconds',
  INTERNAL_ERROR: 'An unexpected error: nothing is known to have been done; quote X-Request-Id to support',
};
