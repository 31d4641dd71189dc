import { decideReceipt, dateWindow } from './decision';
import { extractReceiptFields } from './extract';

const fields = (text: string) => {
  const f = extractReceiptFields(text);
  return { ...f, amount: f.amount?.toFixed(2) ?? null };
};

describe('extractReceiptFields', () => {
  it('reads an OCR’d Sberbank SBP receipt (₽ read as Р, the fee and time beside it ignored)', () => {
    const text = 'СберБанк\n\nЧек по операции\n23.11.2026 14:05:12 (МСК)\nОперация: Перевод по СБП\nПолучатель: ООО Ромашка\nСумма перевода\n1490,90 Р\n\nКомиссия 0,00 2\nСтатус: Выполнено\n';
    expect(fields(text)).toEqual({ amount: '1490.90', date: '2026-11-23', bank: 'Sberbank', paymentType: 'sbp' });
  });

  it('reads English receipts with thousands separators and month names', () => {
    expect(fields('T-Bank\nPayment receipt\nNovember 3, 2026\nCard transfer\nTotal: RUB 12,345.67\nBalance 99,999.00')).toEqual({
      amount: '12345.67',
      date: '2026-11-03',
      bank: 'T-Bank',
      paymentType: 'card',
    });
  });

  it('reads Russian grouped amounts, month names and bank transfers, and ignores card and account numbers', () => {
    const text = 'Альфа-Банк\nПлатёжное поручение\nДата: 5 ноября 2026\nСчёт 40817810099910004312\nКарта •• 4312\nИтого 15 000 ₽';
    expect(fields(text)).toEqual({ amount: '15000.00', date: '2026-11-05', bank: 'Alfa-Bank', paymentType: 'bank_transfer' });
  });

  it('finds nothing in noise', () => {
    expect(fields('~ ., ;: _ ‘\n%% ! ||')).toEqual({ amount: null, date: null, bank: null, paymentType: null });
  });

  it('refuses impossible dates', () => {
    expect(fields('Дата 31.02.2026\nСумма 10,00 ₽').date).toBeNull();
  });
});

describe('decideReceipt tolerances', () => {
  const invoice = { amount: '100.00', created_at: new Date('2026-11-20T22:30:00Z'), expires_at: new Date('2026-11-21T22:30:00Z') };
  const now = new Date('2026-11-22T10:00:00Z');
  const read = (text: string, confidence = 0.9) => decideReceipt({ text, confidence }, extractReceiptFields(text), invoice, now);

  it('takes dates in Moscow time, one day of slack each side', () => {
    // Created 2026-11-21 01:30 Moscow, expired 2026-11-22 01:30 Moscow.
    expect(dateWindow(invoice, now)).toEqual({ from: '2026-11-20', to: '2026-11-23' });
    expect(read('Сумма 100,00 ₽\nДата 20.11.2026').status).toBe('APPROVED');
    expect(read('Сумма 100,00 ₽\nДата 23.11.2026').status).toBe('APPROVED');
    expect(read('Сумма 100,00 ₽\nДата 19.11.2026').rejectionReason).toMatch(/^Date mismatch/);
    expect(read('Сумма 100,00 ₽\nДата 24.11.2026').rejectionReason).toMatch(/^Date mismatch/);
  });

  it('allows one kopeck on the amount, no more', () => {
    expect(read('Сумма 100,01 ₽\nДата 21.11.2026').status).toBe('APPROVED');
    expect(read('Сумма 99,99 ₽\nДата 21.11.2026').status).toBe('APPROVED');
    expect(read('Сумма 100,02 ₽\nДата 21.11.2026').rejectionReason).toBe('Amount mismatch: the receipt shows 100.02, the invoice is for 100.00');
  });

  it('calls low OCR confidence and missing fields unreadable or incomplete', () => {
    expect(read('Сумма 100,00 ₽\nДата 21.11.2026', 0.3).rejectionReason).toMatch(/^Unreadable: the text recognition confidence 0\.30/);
    expect(read('').rejectionReason).toBe('Unreadable: no text could be read from the file');
    expect(read('Дата 21.11.2026').rejectionReason).toBe('No payment amount could be found on the receipt');
    expect(read('Сумма 100,00 ₽').rejectionReason).toBe('No payment date could be found on the receipt');
  });
});
