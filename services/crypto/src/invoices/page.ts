import { Router } from 'express';
import type { CryptoDeps } from '../deps';
import { currencyInfo } from '../currencies';
import { money } from '../money';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function escape(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The invoice's `paymentUrl`: what the payer needs to send the transfer (amount, network,
 * address) and the invoice's state. It reloads itself until the invoice is settled.
 */
export function paymentPage(deps: CryptoDeps): Router {
  const router = Router();
  router.get('/pay/:invoiceId', async (req, res) => {
    const id = req.params.invoiceId;
    const invoice = UUID.test(id) ? await deps.db.invoice.findUnique({ where: { id } }) : null;
    res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
    if (!invoice) {
      res.status(404).type('html').send('<!doctype html><title>Invoice not found</title><p>This invoice does not exist.</p>');
      return;
    }
    const info = currencyInfo(invoice.currency);
    const open = invoice.status === 'Pending' || invoice.status === 'PartiallyPaid';
    res.type('html').send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Pay ${escape(money(invoice.amount).toString())} ${info.currencyName}</title>
${open ? '<meta http-equiv="refresh" content="10">' : ''}
<style>body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem}code{word-break:break-all;font-size:1.1rem}</style></head>
<body>
<h1>${escape(money(invoice.amount).toString())} ${escape(info.currencyName)}</h1>
<p>Network: <strong>${escape(info.networkName)}</strong>${invoice.isTest ? ' (test mode: no real funds)' : ''}</p>
<p>Send exactly this amount to:</p><p><code data-testid="address">${escape(invoice.address)}</code></p>
<p>Status: <strong data-testid="status">${escape(invoice.status)}</strong>; received ${escape(money(invoice.amountReceived).toString())}</p>
<p>Expires: <time datetime="${invoice.expiresAt.toISOString()}">${invoice.expiresAt.toISOString()}</time></p>
${invoice.description ? `<p>${escape(invoice.description)}</p>` : ''}
</body></html>`);
  });
  return router;
}
