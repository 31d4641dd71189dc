import { ManualClock } from '@pay/runtime';
import { clockSigner, invoicingAppForSuite, newMerchant, type TestMerchant } from '../../../test/test-support';
import { inTransaction } from '../../transactions';
import { expireDue, lockInvoice, markCancelled, markPaid, selectInvoiceById } from './store';
import { canMove, INVOICE_TRANSITIONS, InvoiceTransitionRefused, statusesBefore } from './transitions';

describe('the invoice status transitions (transitions.ts)', () => {
  it('is exactly the documented table: PENDING to PAID, EXPIRED or CANCELLED; EXPIRED to PAID; PAID and CANCELLED final', () => {
    expect(INVOICE_TRANSITIONS).toEqual({ PENDING: ['PAID', 'EXPIRED', 'CANCELLED'], EXPIRED: ['PAID'], PAID: [], CANCELLED: [] });
    const all = ['PENDING', 'PAID', 'EXPIRED', 'CANCELLED'] as const;
    const allowed = all.flatMap((from) => all.filter((to) => canMove(from, to)).map((to) => `${from}→${to}`));
    expect(allowed).toEqual(['PENDING→PAID', 'PENDING→EXPIRED', 'PENDING→CANCELLED', 'EXPIRED→PAID']);
    // Nothing moves back to PENDING, and no status moves to itself.
    expect(all.filter((from) => canMove(from, 'PENDING'))).toEqual([]);
    expect(all.filter((s) => canMove(s, s))).toEqual([]);
  });

  it('gives the store its conditions: the statuses each target may be reached from', () => {
    expect(statusesBefore('PAID')).toEqual(['PENDING', 'EXPIRED']);
    expect(statusesBefore('EXPIRED')).toEqual(['PENDING']);
    expect(statusesBefore('CANCELLED')).toEqual(['PENDING']);
    expect(statusesBefore('PENDING')).toEqual([]);
  });
});

describe('the invoices store enforces the table on every status write (real database)', () => {
  const clock = new ManualClock(Date.now());
  const ctx = invoicingAppForSuite({ clock });
  const call = clockSigner(() => ctx.app, clock);

  async function newInvoice(m: TestMerchant, body: Record<string, unknown> = {}): Promise<string> {
    const res = await call(m, 'post', '/api/v2/invoices', { amount: 120.5, ...body });
    expect(res.status).toBe(201);
    return (res.body.invoice as { id: string }).id;
  }
  const rowOf = async (id: string) => (await selectInvoiceById(ctx.deps.db, id))!;
  const paid = { customerId: null, method: 'card' as const, payerBank: null, sbpTransactionId: null };

  /** Runs a store write on the locked invoice in a transaction; expects it refused, and the row as it was. */
  async function expectRefused(id: string, write: (tx: Parameters<typeof markPaid>[0]) => Promise<unknown>, to: string) {
    const before = await rowOf(id);
    const err = await inTransaction(ctx.deps.db, async (tx) => {
      await lockInvoice(tx, id);
      return write(tx);
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvoiceTransitionRefused);
    expect((err as InvoiceTransitionRefused).to).toBe(to);
    expect(await rowOf(id)).toEqual(before);
  }

  it('refuses PAID → CANCELLED and PAID → PAID, writing nothing', async () => {
    const m = await newMerchant(ctx.deps);
    const id = await newInvoice(m);
    expect((await call(m, 'post', `/api/v2/sandbox/invoices/${id}/pay`, {})).status).toBe(200);
    await expectRefused(id, (tx) => markCancelled(tx, id, clock.now()), 'CANCELLED');
    await expectRefused(id, (tx) => markPaid(tx, id, { at: clock.now(), ...paid }), 'PAID');
    expect((await rowOf(id)).status).toBe('PAID');
  });

  it('refuses CANCELLED → PAID; allows EXPIRED → PAID (a review the merchant accepts) and PENDING → EXPIRED only', async () => {
    const m = await newMerchant(ctx.deps);
    const cancelled = await newInvoice(m);
    expect((await call(m, 'post', `/api/v2/invoices/${cancelled}/cancel`)).status).toBe(200);
    await expectRefused(cancelled, (tx) => markPaid(tx, cancelled, { at: clock.now(), ...paid }), 'PAID');

    const due = await newInvoice(m, { expiresInHours: 0.25 });
    clock.advance(15 * 60_000 + 1000);
    const expired = await inTransaction(ctx.deps.db, (tx) => expireDue(tx, clock.now(), 500));
    expect(expired.map((r) => r.id)).toContain(due);
    expect(expired.map((r) => r.id)).not.toContain(cancelled);
    expect((await rowOf(cancelled)).status).toBe('CANCELLED');
    const nowPaid = await inTransaction(ctx.deps.db, async (tx) => {
      await lockInvoice(tx, due);
      return markPaid(tx, due, { at: clock.now(), ...paid });
    });
    expect(nowPaid.status).toBe('PAID');
  });
});
