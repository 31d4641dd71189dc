import type { Owner } from '@pay/auth';
import type { InvoiceRoutesDeps } from '../../deps';
import { attemptsOfInvoice } from '../../payments/attempts';
import { getInvoice } from './invoices';
import { invoiceJson } from './views';

/** GET /api/v2/invoices/{id} (and the answers that show the invoice as GET does): every field, its review (deps.reviewOfInvoice: the reviews module's, wired by compose.ts) and its acquirer payments. */
export async function invoiceDetailJson(deps: InvoiceRoutesDeps, owner: Owner, id: string) {
  const invoice = await getInvoice(deps, owner, id);
  const [review, attempts] = await Promise.all([deps.reviewOfInvoice(deps.db, invoice), attemptsOfInvoice(deps.db, invoice.id)]);
  return { ...invoiceJson(invoice, deps.config.PUBLIC_URL), review, attempts };
}
