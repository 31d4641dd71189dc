import { ApiError } from '@pay/schemas';
import type { InvoiceRow } from './store';

/**
 * Why a PENDING-only action (pay, cancel) cannot touch this invoice now, or null when it can.
 * An invoice past `expiresAt` counts as expired even before the expiry loop has marked it.
 */
export function notPendingError(i: Pick<InvoiceRow, 'id' | 'status' | 'expires_at'>, now: Date, action: string): ApiError | null {
  switch (i.status) {
    case 'PAID':
      return new ApiError('INVOICE_ALREADY_PAID', `Cannot ${action}: invoice ${i.id} is already paid`);
    case 'CANCELLED':
      return new ApiError('INVOICE_CANCELLED', `Cannot ${action}: invoice ${i.id} was cancelled`);
    case 'EXPIRED':
      return new ApiError('INVOICE_EXPIRED', `Cannot ${action}: invoice ${i.id} has expired`);
    case 'PENDING':
      return i.expires_at.getTime() <= now.getTime() ? new ApiError('INVOICE_EXPIRED', `Cannot ${action}: invoice ${i.id} expired at ${i.expires_at.toISOString()}`) : null;
  }
}
