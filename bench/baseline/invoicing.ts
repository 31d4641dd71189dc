import { randomBytes, randomUUID } from 'node:crypto';
import { qrPngDataUri } from '../../services/invoicing/src/payments/qr';
import type { BaselineRoute } from './route';

// Rows of no real merchant, so they never enter the service's per-merchant queries.
const MERCHANT = randomUUID();
const HOUR_MS = 60 * 60_000;
/**
 * The service stores each SBP invoice's QR image (~600 characters of base64) in its row and answers
 * with it. The baseline writes and answers an image of the same size, drawn once here, so
 * both pay for the same row; drawing one per invoice is the service's own work.
 */
const QR_CODE = qrPngDataUri(`https://pay.test/${randomUUID()}/sbp`);

/**
 * The customer join of the service's invoice read (services/invoicing/src/modules/invoices/store.ts
 * CUSTOMER_JOIN): the baseline does the same SQL, so the figure compares the request path,
 * not the query.
 */
const CUSTOMER_JOIN = `
  LEFT JOIN LATERAL (
    (SELECT c.id, c.full_name, c.email, c.kyc_status, c.is_blocked FROM invoicing.customers c WHERE c.id = i.customer_id)
    UNION ALL
    (SELECT c.id, c.full_name, c.email, c.kyc_status, c.is_blocked FROM invoicing.customers c
      WHERE i.customer_id IS NULL AND c.merchant_id = i.merchant_id AND c.is_test = i.is_test AND c.email = lower(i.customer_email))
    UNION ALL
    (SELECT c.id, c.full_name, c.email, c.kyc_status, c.is_blocked FROM invoicing.customers c
      WHERE i.customer_id IS NULL AND c.merchant_id = i.merchant_id AND c.is_test = i.is_test AND c.phone = i.customer_phone)
    LIMIT 1
  ) c ON true`;

const selectInvoice: BaselineRoute = {
  method: 'get',
  path: '/api/v2/invoices/:id',
  async handle(pool, req) {
    const { rows } = await pool.query(`SELECT i.*, c.id AS c_id, c.full_name AS c_full_name, c.email AS c_email, c.kyc_status AS c_kyc_status
                                         FROM invoicing.invoices i ${CUSTOMER_JOIN} WHERE i.id = $1`, [req.params.id]);
    return rows[0] ? { status: 200, body: { success: true, invoice: rows[0] } } : { status: 404, body: { error: 'not found' } };
  },
};

/** The service's insert: an SBP invoice row with its number, QR image and payload, and order id. */
const insertInvoice: BaselineRoute = {
  method: 'post',
  path: '/api/v2/invoices',
  async handle(pool, req) {
    const { amount, description } = req.body;
    const id = randomUUID();
    const { rows } = await pool.query(
      `INSERT INTO invoicing.invoices (id, merchant_id, is_test, api, invoice_number, amount, currency, description, payment_method,
                                       provider, external_order_id, qr_code, qr_payload, expires_at, created_at)
       VALUES ($1, $2, true, 'v2', $3, $4, 'RUB', $5, 'sbp', 'sandbox', $6, $9, $7, $8, now())
       ON CONFLICT (invoice_number) DO NOTHING RETURNING *`,
      [id, MERCHANT, `INV-BASE-${randomBytes(6).toString('hex')}`, String(amount), description ?? null, randomUUID(), `https://pay.test/${id}/sbp`, new Date(Date.now() + HOUR_MS), QR_CODE],
    );
    return { status: 201, body: { success: true, invoice: rows[0] } };
  },
};

/**
 * The v1 create's insert: the same row with its currency, metadata (json) and 24 h validity,
 * and its QR image, which the service stores for v1 too (GET answers it as `qrCodeUrl`).
 */
const insertInvoiceV1: BaselineRoute = {
  method: 'post',
  path: '/api/v1/invoices',
  async handle(pool, req) {
    const { amount, currency, description, metadata } = req.body;
    const id = randomUUID();
    const { rows } = await pool.query(
      `INSERT INTO invoicing.invoices (id, merchant_id, is_test, api, invoice_number, amount, currency, description, payment_method,
                                       provider, external_order_id, qr_code, qr_payload, metadata, expires_at, created_at)
       VALUES ($1, $2, true, 'v1', $3, $4, $5, $6, 'sbp', 'sandbox', $7, $11, $8, $9, $10, now())
       ON CONFLICT (invoice_number) DO NOTHING RETURNING *`,
      [id, MERCHANT, `INV-BASE-${randomBytes(6).toString('hex')}`, String(amount), currency, description ?? null, randomUUID(), `https://pay.test/${id}/sbp`,
        metadata === undefined ? null : JSON.stringify(metadata), new Date(Date.now() + 24 * HOUR_MS), QR_CODE],
    );
    return { status: 201, body: rows[0] };
  },
};

export const invoicingBaselines = {
  'invoicing.select-invoice': selectInvoice,
  'invoicing.insert-invoice': insertInvoice,
  'invoicing.insert-invoice-v1': insertInvoiceV1,
} satisfies Record<string, BaselineRoute>;
