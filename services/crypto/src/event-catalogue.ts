import { defineEvents } from '@pay/webhooks';
import { InvoiceDetail } from './modules/invoices/schemas';
import { TransactionDetail } from './modules/transactions/schemas';
import { WithdrawalDetail } from './modules/withdrawals/schemas';

const SENT_TO = "Sent to the merchant's webhookUrl (PUT /api/v1/merchants/webhook), in the mode of the event, signed with the merchant's HMAC secret.";

// Sample values that cannot be mistaken for real ones (the document's example bodies).
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const ADDRESS = 'TQ4hV3m1Yt1sB7Xn9oZr8kq5C2yP6wL3dE';

function sampleWithdrawal(status: 'Completed' | 'Failed', at: Date) {
  const before = new Date(at.getTime() - 60_000).toISOString();
  return {
    withdrawal: {
      id: uuid(3),
      withdrawalNumber: 'WD-00000000-TEST',
      toAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
      amount: 100,
      fee: 1,
      netAmount: 99,
      currency: 'USDC_ERC20',
      network: 'Ethereum',
      status,
      createdAt: before,
      txHash: status === 'Completed' ? `0x${'ab'.repeat(32)}` : null,
      confirmations: status === 'Completed' ? 12 : 0,
      processedAt: before,
      completedAt: status === 'Completed' ? at.toISOString() : null,
      failureReason: status === 'Failed' ? 'Hot wallet balance too low' : null,
    },
  };
}

/**
 * Every event crypto sends, in one place: its kind, what it means, its body beside the envelope
 * (`{ event, timestamp, livemode }`: the object as the API's own GET answers it, so one schema
 * describes both) and a sample. The OpenAPI `webhooks` section and the body checks of eventsOf
 * come from here (journey.test.ts checks recorded events against it), and
 * @pay/webhook-receiver's types from the committed document. It sits above the domains whose
 * objects it names, which record the events (emitEvent, events/events.ts): a domain folder of
 * its own would make a cycle with them. A new event is one entry here, the code that records
 * it, and `pnpm openapi`.
 */
export const cryptoEvents = defineEvents('crypto', SENT_TO, {
  'transaction.confirmed': {
    summary: 'An incoming transfer reached its confirmations and was credited to the balance.',
    fields: { transaction: TransactionDetail },
    sample: (at) => ({
      transaction: {
        id: uuid(2),
        invoiceId: uuid(1),
        txHash: 'f'.repeat(64),
        fromAddress: 'TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeC',
        toAddress: ADDRESS,
        amount: 150.25,
        currency: 'USDT_TRC20',
        network: 'Tron',
        status: 'Confirmed',
        confirmations: 19,
        requiredConfirmations: 19,
        createdAt: new Date(at.getTime() - 60_000).toISOString(),
        confirmedAt: at.toISOString(),
        blockNumber: 67_000_123,
      },
    }),
  },
  'invoice.paid': {
    summary: 'A crypto invoice received its full amount.',
    fields: { invoice: InvoiceDetail },
    sample: (at) => ({
      invoice: {
        id: uuid(1),
        amount: 150.25,
        currency: 'USDT_TRC20',
        network: 'Tron',
        address: ADDRESS,
        status: 'Paid',
        expiresAt: new Date(at.getTime() + 3_600_000).toISOString(),
        paymentUrl: `https://pay.example.com/invoices/${uuid(1)}`,
        description: 'Order 42',
        amountReceived: 150.25,
        paidAt: at.toISOString(),
        createdAt: new Date(at.getTime() - 600_000).toISOString(),
      },
    }),
  },
  'withdrawal.completed': {
    summary: 'A withdrawal was confirmed on chain.',
    fields: { withdrawal: WithdrawalDetail },
    sample: (at) => sampleWithdrawal('Completed', at),
  },
  'withdrawal.failed': {
    summary: 'A withdrawal failed; its amount is back in the available balance.',
    fields: { withdrawal: WithdrawalDetail },
    sample: (at) => sampleWithdrawal('Failed', at),
  },
});

export type CryptoEvent = (typeof cryptoEvents.kinds)[number];
