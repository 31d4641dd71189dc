import type { ErrorDetail } from '@pay/schemas';

/** A card as typed on the hosted page. Held in memory for one request only. */
export interface Card {
  /** Digits only. */
  number: string;
  expiryMonth: number;
  expiryYear: number;
  cvc: string;
}

/** What is wrong with a typed card, as a code: the hosted page says it in the payer's language. */
export type CardProblemCode = 'NUMBER' | 'EXPIRY_FORMAT' | 'EXPIRY_MONTH' | 'EXPIRED' | 'CVC';
export interface CardProblem extends ErrorDetail {
  code: CardProblemCode;
}

/** The Luhn checksum every card number carries. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/**
 * Checks what the payer typed: a 12–19 digit number passing Luhn (spaces and dashes
 * allowed), an expiry `MM/YY` or `MM/YYYY` not before this month (UTC), a 3–4 digit CVC.
 * Problems name the field but never echo the number.
 */
export function readCard(input: { number: string; expiry: string; cvc: string }, now: Date): { card: Card } | { problems: CardProblem[] } {
  const problems: CardProblem[] = [];
  const number = input.number.replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(number)) problems.push({ field: 'number', message: 'must be 12 to 19 digits', code: 'NUMBER' });
  else if (!luhnValid(number)) problems.push({ field: 'number', message: 'is not a valid card number (check the digits)', code: 'NUMBER' });
  const m = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(input.expiry);
  let expiryMonth = 0;
  let expiryYear = 0;
  if (!m) problems.push({ field: 'expiry', message: 'must be MM/YY', code: 'EXPIRY_FORMAT' });
  else {
    expiryMonth = Number(m[1]);
    expiryYear = m[2]!.length === 2 ? 2000 + Number(m[2]) : Number(m[2]);
    const thisMonth = now.getUTCFullYear() * 12 + now.getUTCMonth();
    if (expiryMonth < 1 || expiryMonth > 12) problems.push({ field: 'expiry', message: 'month must be 01 to 12', code: 'EXPIRY_MONTH' });
    else if (expiryYear * 12 + (expiryMonth - 1) < thisMonth) problems.push({ field: 'expiry', message: 'the card has expired', code: 'EXPIRED' });
  }
  if (!/^\d{3,4}$/.test(input.cvc.trim())) problems.push({ field: 'cvc', message: 'must be 3 or 4 digits', code: 'CVC' });
  return problems.length > 0 ? { problems } : { card: { number, expiryMonth, expiryYear, cvc: input.cvc.trim() } };
}
