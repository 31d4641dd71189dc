import { PayClient } from '@pay/client';

const invoicingUrl = process.env.INVOICING_URL ?? 'http://127.0.0.1:3001';
const cryptoUrl = process.env.CRYPTO_URL ?? 'http://127.0.0.1:3002';

// Register: the answer holds a live API key and the HMAC secret, shown only once.
const { data: merchant } = await new PayClient({ cryptoUrl }).crypto.merchants.register({
  body: { companyName: 'Acme', email: `you${Date.now()}@example.com`, address: '1 Main St' },
});
const hmacSecret = merchant.apiKey.hmacSecret;
const live = new PayClient({ apiKey: merchant.apiKey.apiKey, hmacSecret, invoicingUrl, cryptoUrl });
// A test key puts requests in test mode (sandbox, data kept apart from live):
const { data: testKey } = await live.crypto.apiKeys.create({ body: { name: 'dev', isTestKey: true } });
const pay = new PayClient({ apiKey: testKey.apiKey, hmacSecret, invoicingUrl, cryptoUrl, appInfo: { name: 'AcmeShop', version: '1.0.0' } });
// Every attempt is told to listeners (method, path, status, elapsed, X-Request-Id; never a secret).
let answers = 0;
pay.on('response', (r) => {
  answers += 1;
  if (r.status >= 500) console.error(`${r.method} ${r.path}: ${r.status} after ${r.elapsed} ms (${r.requestId})`);
});

// Crypto: an invoice, and a simulated transfer to it (test mode only).
const { data: cryptoInvoice } = await pay.crypto.invoices.create({ body: { amount: 100, currency: 'USDT_TRC20' } });
await pay.crypto.sandbox.transactions.create({ body: { invoiceId: cryptoInvoice.id, amount: 100 } });

// Invoicing v2, every request signed for you: an SBP invoice of 1,490.90 ₽, paid in the
// sandbox as the provider's notification would pay it, then partly refunded.
const { invoice } = await pay.invoicing.v2.invoices.create({
  body: { amount: 1490.9, description: 'Warm blanket', customerEmail: 'ann@example.ru', customerPhone: '+79991234567' },
});
console.log('payment page:', invoice.paymentLink);
await pay.invoicing.sandbox.invoices.pay({ path: { invoiceId: invoice.id }, body: { payerBank: 'T-Bank' } });
await pay.invoicing.v2.refunds.create({ path: { invoiceId: invoice.id }, body: { amount: 490.9 } });
// Lists page for you: each() is an async iterator, fetching pages as the loop goes;
// toArray({ limit }) collects at most that many.
for await (const paid of pay.invoicing.v2.invoices.list.each({ query: { status: 'PAID', limit: 10 } })) {
  console.log('paid:', paid.id, paid.amount, paid.currency);
}
const customers = await pay.invoicing.v2.customers.list.each().toArray({ limit: 100 });
const { analytics } = await pay.invoicing.v2.analytics.retrieve({ query: { startDate: '2026-11-01', endDate: '2026-11-30', groupBy: 'week' } });
console.log('customers:', customers.length, 'paid invoices:', analytics.paidCount);

// Invoicing v1 (API key only): the live key enables currencies, then a USD invoice and a CSV batch.
await live.invoicing.v1.currencies.update({ body: { enabledCurrencies: ['RUB', 'USD', 'EUR', 'KZT'] } });
const usd = await pay.invoicing.v1.invoices.create({
  body: { amount: 49.9, currency: 'USD', metadata: { orderId: 'A-17' }, successUrl: 'https://shop.example/thanks' },
});
await pay.invoicing.v1.sandbox.invoices.pay({ path: { invoiceId: usd.id }, body: { payerBank: 'Sber' } });
const csv = 'amount,currency,description,email,externalId\n1490.90,RUB,Warm blanket,ann@example.ru,A-18\n49.90,USD,Mug,,A-19\n';
const form = new FormData();
form.append('file', new Blob([csv], { type: 'text/csv' }), 'invoices.csv');
form.append('defaultCurrency', 'RUB');
const batch = await pay.invoicing.v1.batches.create({ body: form });
console.log('batch:', (await pay.invoicing.v1.batches.retrieve({ path: { batchId: batch.batchId } })).status);

// A withdrawal (signed for you, crypto style) once the transfer above has its confirmations.
const available = async () => (await pay.crypto.balance.retrieve()).data.balances.find((b) => b.currency === 'USDT_TRC20')?.available ?? 0;
while ((await available()) < 10) await new Promise((resolve) => setTimeout(resolve, 1000));
const { data: withdrawal } = await pay.crypto.withdrawals.create({
  body: { toAddress: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7', amount: 10, currency: 'USDT_TRC20' },
});
console.log('withdrawal:', withdrawal.id, withdrawal.status);

// A refusal is a PayApiError: the API's code, message and details, the status and X-Request-Id.
// The method's isError() tells its own apart; in TypeScript, `code` is then one of the codes
// that operation declares, so `err.code === 'REFUND_EXCEDS_PAID'` fails the type check.
try {
  await pay.invoicing.v2.refunds.create({ path: { invoiceId: invoice.id }, body: { amount: 5000 } });
} catch (err) {
  if (!pay.invoicing.v2.refunds.create.isError(err)) throw err;
  console.log('refused:', err.status, err.code, err.requestId);
}
console.log('answers:', answers);
