import { PayApiError, PayClient } from '@pay/client';

const invoicingUrl = process.env.INVOICING_URL ?? 'http://127.0.0.1:3001';
const cryptoUrl = process.env.CRYPTO_URL ?? 'http://127.0.0.1:3002';

// Register: the answer holds a live API key and the HMAC secret, shown only once.
const { data: merchant } = await new PayClient({ cryptoUrl }).crypto.registerMerchant({
  body: { companyName: 'Acme', email: `you${Date.now()}@example.com`, address: '1 Main St' },
});
const hmacSecret = merchant.apiKey.hmacSecret;
const live = new PayClient({ apiKey: merchant.apiKey.apiKey, hmacSecret, invoicingUrl, cryptoUrl });
// A test key puts requests in test mode (sandbox, data kept apart from live):
const { data: testKey } = await live.crypto.createApiKey({ body: { name: 'dev', isTestKey: true } });
const pay = new PayClient({ apiKey: testKey.apiKey, hmacSecret, invoicingUrl, cryptoUrl });

// Crypto: an invoice, and a simulated transfer to it (test mode only).
const { data: cryptoInvoice } = await pay.crypto.createInvoice({ body: { amount: 100, currency: 'USDT_TRC20' } });
await pay.crypto.sandboxCreateTransaction({ body: { invoiceId: cryptoInvoice.id, amount: 100 } });

// Invoicing v2, every request signed for you: an SBP invoice of 1,490.90 ₽, paid in the
// sandbox as the provider's notification would pay it, then partly refunded.
const { invoice } = await pay.invoicing.createInvoice({
  body: { amount: 1490.9, description: 'Warm blanket', customerEmail: 'ann@example.ru', customerPhone: '+79991234567' },
});
console.log('payment page:', invoice.paymentLink);
await pay.invoicing.sandboxPayInvoice({ path: { invoiceId: invoice.id }, body: { payerBank: 'T-Bank' } });
await pay.invoicing.createRefund({ path: { invoiceId: invoice.id }, body: { amount: 490.9 } });
// Lists are async iterators: pages are fetched as the loop goes.
for await (const paid of pay.invoicing.each('listInvoices', { query: { status: 'PAID', limit: 10 } })) {
  console.log('paid:', paid.id, paid.amount, paid.currency);
}
const { data: customers } = await pay.invoicing.listCustomers();
const { analytics } = await pay.invoicing.getAnalytics({ query: { startDate: '2026-11-01', endDate: '2026-11-30', groupBy: 'week' } });
console.log('customers:', customers.length, 'paid invoices:', analytics.paidCount);

// Invoicing v1 (API key only): the live key enables currencies, then a USD invoice and a CSV batch.
await live.invoicing.v1SetCurrencies({ body: { enabledCurrencies: ['RUB', 'USD', 'EUR', 'KZT'] } });
const usd = await pay.invoicing.v1CreateInvoice({
  body: { amount: 49.9, currency: 'USD', metadata: { orderId: 'A-17' }, successUrl: 'https://shop.example/thanks' },
});
await pay.invoicing.v1SandboxPayInvoice({ path: { invoiceId: usd.id }, body: { payerBank: 'Sber' } });
const csv = 'amount,currency,description,email,externalId\n1490.90,RUB,Warm blanket,ann@example.ru,A-18\n49.90,USD,Mug,,A-19\n';
const form = new FormData();
form.append('file', new Blob([csv], { type: 'text/csv' }), 'invoices.csv');
form.append('defaultCurrency', 'RUB');
const batch = await pay.invoicing.v1CreateBatch({ body: form });
console.log('batch:', (await pay.invoicing.v1GetBatch({ path: { batchId: batch.batchId } })).status);

// A withdrawal (signed for you, crypto style) once the transfer above has its confirmations.
const available = async () => (await pay.crypto.getBalance()).data.balances.find((b) => b.currency === 'USDT_TRC20')?.available ?? 0;
while ((await available()) < 10) await new Promise((resolve) => setTimeout(resolve, 1000));
const { data: withdrawal } = await pay.crypto.createWithdrawal({
  body: { toAddress: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7', amount: 10, currency: 'USDT_TRC20' },
});
console.log('withdrawal:', withdrawal.id, withdrawal.status);

// A refusal is a PayApiError: the API's code, message and details, the status and X-Request-Id.
try {
  await pay.invoicing.createRefund({ path: { invoiceId: invoice.id }, body: { amount: 5000 } });
} catch (err) {
  if (!(err instanceof PayApiError)) throw err;
  console.log('refused:', err.status, err.code, err.requestId);
}
