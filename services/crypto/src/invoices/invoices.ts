import { ApiError } from '@pay/schemas';
import type { Currency, Invoice, InvoiceStatus, Prisma } from '../generated/prisma/client';
import type { CryptoDeps } from '../deps';
import type { Owner } from '@pay/auth';
import { currencyInfo } from '../currencies';
import { parseAmount } from '../money';
import { generateAddress } from '../chain/addresses';
import { requireChain } from '../chain/chain';
import { pageWindow } from '@pay/kit';

export interface CreateInvoiceInput {
  amount: number;
  currency: Currency;
  description?: string;
  expiresInMinutes?: number;
}

export async function createInvoice(deps: CryptoDeps, owner: Owner, input: CreateInvoiceInput): Promise<Invoice> {
  requireChain(deps.chains, owner.isTest, 'invoices');
  const amount = parseAmount(input.amount);
  const { network } = currencyInfo(input.currency);
  const ttlMinutes = input.expiresInMinutes ?? deps.config.INVOICE_DEFAULT_TTL_MINUTES;
  const now = deps.clock.now();
  return deps.db.invoice.create({
    data: {
      merchantId: owner.merchantId,
      isTest: owner.isTest,
      amount: amount.toFixed(),
      currency: input.currency,
      network,
      address: generateAddress(network),
      description: input.description ?? null,
      expiresAt: new Date(now.getTime() + ttlMinutes * 60_000),
      createdAt: now,
    },
  });
}

export async function getInvoice(deps: CryptoDeps, owner: Owner, id: string): Promise<Invoice> {
  const invoice = await deps.db.invoice.findFirst({ where: { id, merchantId: owner.merchantId, isTest: owner.isTest } });
  if (!invoice) throw new ApiError('NOT_FOUND', `Invoice ${id} not found`);
  return invoice;
}

export async function listInvoices(deps: CryptoDeps, owner: Owner, q: { page: number; pageSize: number; status?: InvoiceStatus }) {
  const where: Prisma.InvoiceWhereInput = { merchantId: owner.merchantId, isTest: owner.isTest, ...(q.status ? { status: q.status } : {}) };
  const [items, totalCount] = await Promise.all([
    deps.db.invoice.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], ...pageWindow(q) }),
    deps.db.invoice.count({ where }),
  ]);
  return { items, totalCount };
}

/**
 * Closes invoices whose time ran out. One that is waiting for the confirmations of a
 * transfer seen in time is left open: that transfer still counts toward it.
 * A partly paid invoice becomes Underpaid (the amount received stays in the balance).
 */
export async function expireDueInvoices(deps: CryptoDeps): Promise<number> {
  return deps.db.$executeRaw`
    UPDATE invoices i
       SET status = (CASE WHEN i.status = 'PartiallyPaid' THEN 'Underpaid' ELSE 'Expired' END)::"InvoiceStatus"
     WHERE i.status IN ('Pending', 'PartiallyPaid')
       AND i.expires_at <= ${deps.clock.now()}
       AND NOT EXISTS (SELECT 1 FROM transactions t WHERE t.invoice_id = i.id AND t.status = 'Pending')`;
}
