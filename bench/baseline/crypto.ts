import { randomBytes, randomUUID } from 'node:crypto';
import type { BaselineRoute } from './route';

const NETWORK: Record<string, string> = {
  USDT_TRC20: 'Tron',
  USDT_ERC20: 'Ethereum',
  USDC_ERC20: 'Ethereum',
  USDT_BEP20: 'BSC',
  USDC_BEP20: 'BSC',
};

// Baseline rows belong to no real merchant, so they never enter the per-merchant queries
// (24-hour withdrawal sums, lists) of the service measured beside them.
const MERCHANT = randomUUID();
const INVOICE_TTL_MS = 60 * 60_000;

/**
 * The crypto schema keeps balances as a ledger chain (no balance row to lock), so the locked
 * debit locks a row of this bench-owned table, one per API key and currency: the same
 * serialisation as the service's balance lock (all requests of one merchant queue on it).
 */
const BALANCES_DDL = `
  CREATE SCHEMA IF NOT EXISTS bench;
  CREATE TABLE IF NOT EXISTS bench.balances (
    owner text NOT NULL,
    currency text NOT NULL,
    merchant_id uuid NOT NULL DEFAULT gen_random_uuid(),
    available numeric(20, 6) NOT NULL CHECK (available >= 0),
    PRIMARY KEY (owner, currency)
  )`;
const seeded = new Set<string>();

const selectInvoice: BaselineRoute = {
  method: 'get',
  path: '/api/v1/invoices/:id',
  async handle(pool, req) {
    const { rows } = await pool.query('SELECT * FROM crypto.invoices WHERE id = $1', [req.params.id]);
    return rows[0] ? { status: 200, body: { data: rows[0] } } : { status: 404, body: { error: 'not found' } };
  },
};

const insertInvoice: BaselineRoute = {
  method: 'post',
  path: '/api/v1/invoices',
  async handle(pool, req) {
    const { amount, currency, description } = req.body;
    const { rows } = await pool.query(
      `INSERT INTO crypto.invoices (id, merchant_id, is_test, amount, currency, network, address, description, expires_at)
       VALUES ($1, $2, true, $3, $4, $5, $6, $7, $8) RETURNING *`,
      [randomUUID(), MERCHANT, String(amount), currency, NETWORK[currency], `T${randomBytes(16).toString('hex')}`, description ?? null, new Date(Date.now() + INVOICE_TTL_MS)],
    );
    return { status: 201, body: { data: rows[0] } };
  },
};

/** One withdrawal's work: lock the balance, debit it, write the withdrawal, in one transaction. */
const lockedDebit: BaselineRoute = {
  method: 'post',
  path: '/api/v1/withdrawals',
  init: async (pool) => void (await pool.query(BALANCES_DDL)),
  async handle(pool, req) {
    const owner = String(req.headers['x-api-key']);
    const { toAddress, amount, currency } = req.body;
    const row = `${owner}:${currency}`;
    if (!seeded.has(row)) {
      // Once per balance, during the warm-up: a large balance to debit.
      await pool.query('INSERT INTO bench.balances (owner, currency, available) VALUES ($1, $2, 1e12) ON CONFLICT DO NOTHING', [owner, currency]);
      seeded.add(row);
    }
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const { rows: [balance] } = await client.query(
        'SELECT merchant_id, available >= $3 AS enough FROM bench.balances WHERE owner = $1 AND currency = $2 FOR UPDATE',
        [owner, currency, String(amount)],
      );
      if (!balance.enough) {
        await client.query('ROLLBACK');
        return { status: 422, body: { error: 'insufficient balance' } };
      }
      await client.query('UPDATE bench.balances SET available = available - $3 WHERE owner = $1 AND currency = $2', [owner, currency, String(amount)]);
      const { rows } = await client.query(
        `INSERT INTO crypto.withdrawals (id, merchant_id, is_test, withdrawal_number, to_address, amount, fee, net_amount, currency, network)
         VALUES ($1, $2, true, $3, $4, $5, 0, $5, $6, $7) RETURNING *`,
        [randomUUID(), balance.merchant_id, `WD-BENCH-${randomBytes(6).toString('hex')}`, toAddress, String(amount), currency, NETWORK[currency]],
      );
      await client.query('COMMIT');
      return { status: 201, body: { data: rows[0] } };
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  },
};

export const cryptoBaselines = {
  'crypto.select-invoice': selectInvoice,
  'crypto.insert-invoice': insertInvoice,
  'crypto.locked-debit': lockedDebit,
};
