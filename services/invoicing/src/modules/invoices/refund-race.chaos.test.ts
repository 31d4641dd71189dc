import { raceRequests, recordChaos, serverFailures } from '@pay/testing';
import { refundedAmountOnStack } from '../../../test/invoices/store';
import { refundTotalsOnStack } from '../../../test/refunds/store';
import { invoicingOnChaosStack } from '../../../test/test-support';

const REFUNDS = 50;

/**
 * 50 refunds of 7.30 race on one paid invoice of 100.00, signed requests over real HTTP to an
 * invoicing process of its own: exactly 13 succeed (13 × 7.30 = 94.90 ≤ 100 < 14 × 7.30), the
 * rest are refused, and the invoice's refunded amount is the sum of its refunds.
 */
it('50 concurrent refunds of 7.30 on an invoice of 100.00: exactly 13 succeed, the sum never exceeds the amount', async () => {
  const started = Date.now();
  const { stack, client } = await invoicingOnChaosStack('refund-race');
  try {
    const invoice = await client.signed('POST', '/api/v2/invoices', { amount: 100, customerEmail: 'race@example.ru' });
    expect(invoice.status).toBe(201);
    const id = invoice.body.invoice.id as string;
    expect((await client.signed('POST', `/api/v2/sandbox/invoices/${id}/pay`, {})).status).toBe(200);

    // Each with its own key: a 503 (a pool out of time on a loaded machine) is retried as a client would.
    const { attempts, created: ok, refused, counts } = await raceRequests(REFUNDS, (i) =>
      client.signed('POST', `/api/v2/invoices/${id}/refunds`, { amount: 7.3, reason: `race ${i}` }, { 'Idempotency-Key': `refund-${i}` }),
    );
    const refunded = await refundedAmountOnStack(stack, id);
    const row = refunded === undefined ? undefined : { refunded, ...(await refundTotalsOnStack(stack, id)) };
    await recordChaos('refund-race', {
      ...counts,
      refunds: REFUNDS,
      succeededRows: row!.succeeded,
      refundedAmount: row!.refunded,
      lost: ok.length - row!.succeeded,
      duplicated: row!.all - ok.length,
      durationMs: Date.now() - started,
    });

    expect(serverFailures(attempts)).toEqual([]);
    expect(ok).toHaveLength(13);
    for (const a of ok) expect(a.body.refund).toMatchObject({ amount: 7.3, status: 'SUCCEEDED' });
    expect(refused).toHaveLength(REFUNDS - 13);
    for (const a of refused) expect(a.body.error.code).toBe('REFUND_EXCEEDS_PAID');
    expect(row).toEqual({ refunded: '94.90', sum: '94.90', succeeded: 13, all: 13 });
  } finally {
    await stack.close();
  }
}, 180_000);
