/**
 * The one error type every layer throws. The HTTP edge (packages/http) renders it in the
 * envelope of the API version being served, so domain code never builds
 * response bodies for failures.
 */
export type ErrorCode =
  | 'VALIDATION_ERROR'
  | 'VALIDATION_FAILED'
  | 'INVALID_ADDRESS'
  | 'UNAUTHORIZED'
  | 'INVALID_SIGNATURE'
  | 'TIMESTAMP_OUT_OF_WINDOW'
  | 'REPLAYED_REQUEST'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'CONFLICT'
  | 'EMAIL_ALREADY_REGISTERED'
  | 'IDEMPOTENCY_CONFLICT'
  | 'IDEMPOTENCY_IN_PROGRESS'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'INSUFFICIENT_BALANCE'
  | 'WITHDRAWAL_LIMIT_EXCEEDED'
  | 'INVALID_STATE'
  | 'CURRENCY_NOT_ENABLED'
  | 'CUSTOMER_BLOCKED'
  | 'KYC_REQUIRED'
  | 'INVOICE_ALREADY_PAID'
  | 'INVOICE_EXPIRED'
  | 'INVOICE_CANCELLED'
  | 'INVOICE_NOT_PAID'
  | 'REFUND_EXCEEDS_PAID'
  | 'CARD_DECLINED'
  | 'PAYMENT_METHOD_NOT_ENABLED'
  | 'ACQUIRER_REFUSED'
  | 'NO_VALID_ROWS'
  | 'RATE_LIMITED'
  | 'SERVICE_UNAVAILABLE'
  | 'INTERNAL_ERROR';

export interface ErrorDetail {
  field: string;
  message: string;
  /** A row of an uploaded file (CSV batch): its 1-based data row number, as in the file. */
  row?: number;
  /** That row's `externalId` (null when it has none). */
  externalId?: string | null;
}

const STATUS: Record<ErrorCode, number> = {
  VALIDATION_ERROR: 400,
  /** Well-formed input a rule refuses (invoicing v1's 422 "validation failed"). */
  VALIDATION_FAILED: 422,
  INVALID_ADDRESS: 400,
  UNAUTHORIZED: 401,
  INVALID_SIGNATURE: 401,
  TIMESTAMP_OUT_OF_WINDOW: 401,
  REPLAYED_REQUEST: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  EMAIL_ALREADY_REGISTERED: 409,
  IDEMPOTENCY_CONFLICT: 409,
  IDEMPOTENCY_IN_PROGRESS: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  INSUFFICIENT_BALANCE: 422,
  WITHDRAWAL_LIMIT_EXCEEDED: 422,
  INVALID_STATE: 422,
  CURRENCY_NOT_ENABLED: 422,
  CUSTOMER_BLOCKED: 422,
  KYC_REQUIRED: 422,
  INVOICE_ALREADY_PAID: 422,
  INVOICE_EXPIRED: 422,
  INVOICE_CANCELLED: 422,
  INVOICE_NOT_PAID: 422,
  REFUND_EXCEEDS_PAID: 422,
  CARD_DECLINED: 422,
  PAYMENT_METHOD_NOT_ENABLED: 422,
  /** The payment provider (acquirer) refused the request; its own error code is in `details`. */
  ACQUIRER_REFUSED: 422,
  NO_VALID_ROWS: 422,
  RATE_LIMITED: 429,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL_ERROR: 500,
};

export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = STATUS[code];
  }
}

export function statusOf(code: ErrorCode): number {
  return STATUS[code];
}
