import Decimal from 'decimal.js';
import type { ReceiptFields } from './extract';
import type { ReceiptRejection } from './rejections';

/**
 * Tolerances of the automatic check (also in the OpenAPI description of the receipt routes):
 * - amount: within one kopeck of the invoice's amount (bank apps round, OCR never invents
 *   a kopeck); the receipt's own total is compared, never a fee or a balance printed beside it;
 * - date: the receipt's calendar date lies between the invoice's creation date and its
 *   expiry date (or today, if earlier), both taken in Moscow time and widened by one day on
 *   each side, because Russia spans UTC+2 to UTC+12 and bank apps print local dates;
 * - readable: an image whose OCR confidence is below MIN_OCR_CONFIDENCE, or a text with
 *   neither an amount nor a date, is unreadable.
 */
export const AMOUNT_TOLERANCE = new Decimal('0.01');
export const DATE_SLACK_DAYS = 1;
export const MIN_OCR_CONFIDENCE = 0.5;
/** Moscow is UTC+3 all year. */
const MOSCOW_OFFSET_MS = 3 * 3_600_000;
const DAY_MS = 86_400_000;

export interface Reading {
  text: string;
  /** 0 to 1: tesseract's own mean confidence for images; 1 for a PDF's text layer, which is read exactly. */
  confidence: number;
  /** Why nothing could be read at all (a PDF pdf.js refused), if so. */
  failure?: string;
}

export type Decision = { status: 'APPROVED'; rejectionReason: null; rejectionCode: null } | { status: 'REJECTED'; rejectionReason: string; rejectionCode: ReceiptRejection };

const moscowDate = (t: Date, shiftDays = 0) => new Date(t.getTime() + MOSCOW_OFFSET_MS + shiftDays * DAY_MS).toISOString().slice(0, 10);

/** The payment window of an invoice as calendar dates (inclusive), per the tolerance above. */
export function dateWindow(invoice: { created_at: Date; expires_at: Date }, now: Date): { from: string; to: string } {
  const end = invoice.expires_at.getTime() < now.getTime() ? invoice.expires_at : now;
  return { from: moscowDate(invoice.created_at, -DATE_SLACK_DAYS), to: moscowDate(end, DATE_SLACK_DAYS) };
}

/** APPROVED when amount and date match the invoice within the tolerances; otherwise REJECTED with the first reason found. */
export function decideReceipt(reading: Reading, fields: ReceiptFields, invoice: { amount: { toString(): string }; created_at: Date; expires_at: Date }, now: Date): Decision {
  const reject = (rejectionReason: string, rejectionCode: ReceiptRejection = 'UNREADABLE'): Decision => ({ status: 'REJECTED', rejectionReason, rejectionCode });
  if (reading.failure) return reject(`Unreadable: ${reading.failure}`);
  if (reading.text.trim() === '') return reject('Unreadable: no text could be read from the file');
  if (reading.confidence < MIN_OCR_CONFIDENCE) {
    return reject(`Unreadable: the text recognition confidence ${reading.confidence.toFixed(2)} is below ${MIN_OCR_CONFIDENCE}`);
  }
  if (!fields.amount && !fields.date) return reject('Unreadable: neither an amount nor a date could be found on the receipt');
  if (!fields.amount) return reject('No payment amount could be found on the receipt', 'NO_AMOUNT');
  if (!fields.date) return reject('No payment date could be found on the receipt', 'NO_DATE');
  const expected = new Decimal(invoice.amount.toString());
  if (fields.amount.minus(expected).abs().gt(AMOUNT_TOLERANCE)) {
    return reject(`Amount mismatch: the receipt shows ${fields.amount.toFixed(2)}, the invoice is for ${expected.toFixed(2)}`, 'AMOUNT_MISMATCH');
  }
  const window = dateWindow(invoice, now);
  if (fields.date < window.from || fields.date > window.to) {
    return reject(`Date mismatch: the receipt is dated ${fields.date}, outside the invoice's payment window ${window.from} to ${window.to}`, 'DATE_MISMATCH');
  }
  return { status: 'APPROVED', rejectionReason: null, rejectionCode: null };
}
