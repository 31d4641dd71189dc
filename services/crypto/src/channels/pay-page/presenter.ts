import type { InvoiceRecord } from '../../modules/invoices/service';
import { Money, money } from '../../shared/money';
import type { PageState } from './i18n';

/**
 * What the page and its status poll say of an invoice at a moment: one reckoning for both, so
 * the poll can never announce a state the page would not show.
 */
export interface PageFacts {
  state: PageState;
  /** Open for payment: pending or partly paid, and not yet past its expiry. */
  open: boolean;
  /** Nothing will change any more: the poll stops. */
  final: boolean;
  amount: Money;
  /** Confirmed and credited. */
  received: Money;
  /** Seen before expiry, still waiting for its confirmations (it counts once confirmed). */
  awaiting: Money;
  /** What the payer should still send: the amount less what was received and what is on its way. */
  due: Money;
  remainingMs: number;
}

/** `awaiting`: what awaitingConfirmation gives for an invoice that may still be paid; 0 otherwise. */
export function pageFacts(invoice: Pick<InvoiceRecord, 'status' | 'amount' | 'amountReceived' | 'expiresAt'>, now: Date, awaiting: Money): PageFacts {
  const amount = money(invoice.amount);
  const received = money(invoice.amountReceived);
  const remainingMs = Math.max(0, invoice.expiresAt.getTime() - now.getTime());
  const unsettled = invoice.status === 'Pending' || invoice.status === 'PartiallyPaid';
  const open = unsettled && remainingMs > 0;
  const onItsWay = unsettled ? awaiting : money(0);
  // Past its expiry the tracker settles it soon: partly paid becomes Underpaid, anything else Expired.
  const state: PageState =
    invoice.status === 'Paid'
      ? 'paid'
      : invoice.status === 'Underpaid' || (unsettled && !open && received.gt(0))
        ? 'underpaid'
        : invoice.status === 'Expired' || !open
          ? 'expired'
          : invoice.status === 'PartiallyPaid'
            ? 'partial'
            : 'waiting';
  return {
    state,
    open,
    // A transfer sent in time may still confirm after the expiry and pay the invoice: keep watching it.
    final: !open && !onItsWay.gt(0),
    amount,
    received,
    awaiting: onItsWay,
    due: open ? Money.max(0, amount.sub(received).sub(onItsWay)) : money(0),
    remainingMs,
  };
}

/**
 * The public status the page polls: small, no address, no merchant data. `version` changes
 * whenever anything the page shows would, so the page fetches its new markup only then.
 */
export function statusBody(facts: PageFacts, label: string) {
  const version = [facts.state, facts.received, facts.awaiting, facts.due, facts.open].join('|');
  return {
    state: facts.state,
    status: label,
    final: facts.final,
    received: facts.received.toString(),
    awaiting: facts.awaiting.toString(),
    due: facts.due.toString(),
    version,
  };
}

export const versionOf = (facts: PageFacts): string => statusBody(facts, '').version;
