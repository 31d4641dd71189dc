import { randomUUID } from 'node:crypto';
import { ApiError } from '@pay/schemas';
import type { Currency, InvoiceStatus, Network, Prisma } from '../generated/prisma/client';
import type { InvoiceRecord } from './views';
import type { CryptoDeps } from '../deps';
import type { Owner } from '@pay/auth';
import { currencyInfo } from '../currencies';
import { parseAmount } from '../money';
import { requireChain } from '../chain/chain';
import { pageWindow } from '@pay/kit';

export interface CreateInvoiceInput {
  amount: number;
  currency: Currency;
  description?: string;
  expiresInMinutes?: number;
}

/** The invoice row as `InvoiceRecord`, for hot-path SQL (the same fields Prisma returns). */
const INVOICE_COLUMNS = `id, merchant_id AS "merchantId", is_test AS "isTest", amount::text, currency, network, address, description, status,
  amount_received::text AS "amountReceived", expires_at AS "expiresAt", paid_at AS "paidAt", created_at AS "createdAt"`;

/** Creating and reading invoices by id are the hot paths: plain SQL on the pool, one round trip each. */
export async function createInvoice(deps: CryptoDeps, owner: Owner, input: CreateInvoiceInput): Promise<InvoiceRecord> {
  const chain = requireChain(deps.chains, owner.isTest, 'invoices', input.currency);
  const amount = parseAmount(input.amount);
  const { network } = currencyInfo(input.currency);
  const deposit = await chain.depositAddress(network);
  const ttlMinutes = input.expiresInMinutes ?? deps.config.INVOICE_DEFAULT_TTL_MINUTES;
  const now = deps.clock.now();
  const { rows } = await deps.pool.query<InvoiceRecord>({
    // Named: each connection parses and plans it once.
    name: 'crypto-invoice-create',
    text: `INSERT INTO invoices (id, merchant_id, is_test, amount, currency, network, address, description, expires_at, created_at, deposit_index)
           VALUES ($1, $2, $3, $4, $5::"Currency", $6::"Network", $7, $8, $9, $10, $11) RETURNING ${INVOICE_COLUMNS}`,
    values: [randomUUID(), owner.merchantId, owner.isTest, amount.toFixed(), input.currency, network, deposit.address, input.description ?? null,
      new Date(now.getTime() + ttlMinutes * 60_000), now, deposit.index],
  });
  return rows[0]!;
}

export async function getInvoice(deps: CryptoDeps, owner: Owner, id: string): Promise<InvoiceRecord> {
  const { rows } = await deps.pool.query<InvoiceRecord>({
    name: 'crypto-invoice-get',
    text: `SELECT ${INVOICE_COLUMNS} FROM invoices WHERE id = $1 AND merchant_id = $2 AND is_test = $3`,
    values: [id, owner.merchantId, owner.isTest],
  });
  if (!rows[0]) throw new ApiError('NOT_FOUND', `Invoice ${id} not found`);
  return rows[0];
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

/** Live invoices paid to these addresses of `network`, by address: what a watcher's found transfers pay. */
export async function liveInvoicesByAddress(deps: CryptoDeps, network: Network, addresses: string[]): Promise<Map<string, { id: string; merchantId: string }>> {
  if (addresses.length === 0) return new Map();
  const rows = await deps.db.invoice.findMany({
    where: { network, isTest: false, address: { in: addresses } },
    select: { id: true, merchantId: true, address: true },
  });
  return new Map(rows.map((r) => [r.address, { id: r.id, merchantId: r.merchantId }]));
}
