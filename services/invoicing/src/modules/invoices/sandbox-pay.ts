import type { AuthContext } from '@pay/auth';
import { ownerOf } from '@pay/auth';
import { ApiError } from '@pay/schemas';
import type { InvoicesDeps } from '../../deps';
import { sandboxSbpTransactionId } from '../../payments/sandbox';
import { getInvoice } from './invoices';
import { payInvoice } from './payment';

/**
 * The sandbox's success notification, for both API generations: test keys
 * only; the payment method defaults to the invoice's, the bank to `Sandbox Bank` for SBP.
 */
export async function sandboxPay(deps: InvoicesDeps, auth: AuthContext, invoiceId: string, body: { payerBank?: string; method?: 'sbp' | 'card' }): Promise<void> {
  if (!auth.isTestMode) throw new ApiError('FORBIDDEN', 'Sandbox endpoints accept test keys (sk_test_…) only');
  const owner = ownerOf(auth);
  const invoice = await getInvoice(deps, owner, invoiceId);
  // A test invoice of an acquirer's demo terminal (TEST_PAYMENT_PROVIDER=tbank) is paid there, not here.
  if (invoice.provider !== 'sandbox') throw new ApiError('PAYMENT_METHOD_NOT_ENABLED', `Invoice ${invoiceId} is paid through ${invoice.provider}, not the sandbox`);
  const method = body.method ?? invoice.payment_method;
  await payInvoice(
    deps,
    { id: invoiceId, owner },
    {
      method,
      payerBank: body.payerBank ?? (method === 'sbp' ? 'Sandbox Bank' : null),
      sbpTransactionId: method === 'sbp' ? sandboxSbpTransactionId() : null,
    },
  );
}
