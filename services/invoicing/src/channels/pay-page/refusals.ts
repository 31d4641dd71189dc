import type { ApiError } from '@pay/schemas';
import { FileTypeRefused } from '@pay/http';

/**
 * What a refusal means to a payer, by its code, never its message: the API's messages are
 * English and written for developers (`invoiceId must match format "uuid"`), so the hosted
 * pages word each kind in the payer's language (PayTexts.refusals).
 */
export type PageRefusal =
  | 'notFound'
  | 'brokenLink'
  | 'badForm'
  | 'tooMany'
  | 'unavailable'
  | 'internal'
  | 'fileTooLarge'
  | 'fileType'
  | 'alreadyPaid'
  | 'expired'
  | 'cancelled'
  | 'blocked'
  | 'kycRequired'
  | 'methodUnavailable'
  | 'cardDeclined'
  | 'bankRefused'
  | 'notNow';

/** `method`: a refused GET is a link that is wrong; a refused POST a form that could not be read. */
export function refusalOf(err: ApiError, method: string): PageRefusal {
  switch (err.code) {
    case 'NOT_FOUND':
    case 'METHOD_NOT_ALLOWED':
      return 'notFound';
    case 'VALIDATION_ERROR':
    case 'VALIDATION_FAILED':
      if (err instanceof FileTypeRefused) return 'fileType';
      return method.toUpperCase() === 'GET' ? 'brokenLink' : 'badForm';
    case 'RATE_LIMITED':
      return 'tooMany';
    case 'SERVICE_UNAVAILABLE':
      return 'unavailable';
    case 'INTERNAL_ERROR':
      return 'internal';
    case 'PAYLOAD_TOO_LARGE':
      return 'fileTooLarge';
    case 'UNSUPPORTED_MEDIA_TYPE':
      return 'fileType';
    case 'INVOICE_ALREADY_PAID':
      return 'alreadyPaid';
    case 'INVOICE_EXPIRED':
      return 'expired';
    case 'INVOICE_CANCELLED':
      return 'cancelled';
    case 'CUSTOMER_BLOCKED':
      return 'blocked';
    case 'KYC_REQUIRED':
      return 'kycRequired';
    case 'PAYMENT_METHOD_NOT_ENABLED':
      return 'methodUnavailable';
    case 'CARD_DECLINED':
      return 'cardDeclined';
    case 'ACQUIRER_REFUSED':
      return 'bankRefused';
    default:
      return 'notNow';
  }
}
