import type { Owner } from '@pay/auth';
import type { InvoicesDeps } from '../../deps';
import { attemptsOfInvoice } from '../../payments/attempts';
import { invoiceReviewJson } from '../reviews/views';
import { getInvoice } from './invoices';
import { invoiceJson } from './views';

/** GET /api/v2/invoices/{id} (and the answers that show the invoice as GET does): every field, its review and its acquirer payments. */
export async function invoiceDetailJson(deps: InvoicesDeps, owner: Owner, id: string) {
  const invoice = await getInvoice(deps, owner, id);
  const [review, attempts] = await Promise.all([invoiceReviewJson(deps.db, invoice), attemptsOfInvoice(deps.db, invoice.id)]);
  return { ...invoiceJson(invoice, deps.config.PUBLIC_URL), review, attempts };
}
