import type { UrlPolicy } from '@pay/webhooks';
import type { InvoicingConfig } from '../../config';

/** Where a merchant's webhook may point: HTTPS in production; private addresses only where the operator allows them. */
export function webhookUrlPolicy(config: Pick<InvoicingConfig, 'ALLOW_PRIVATE_WEBHOOK_URLS' | 'NODE_ENV'>): UrlPolicy {
  return { allowPrivate: config.ALLOW_PRIVATE_WEBHOOK_URLS, requireHttps: config.NODE_ENV === 'production' };
}
