import { parse } from 'mrz';
import type { KycCheck, KycSubmission } from './provider';

/** ICAO 9303 formats of the two document types this service accepts. */
const FORMAT_OF: Record<string, 'passport' | 'id_card'> = { TD3: 'passport', TD1: 'id_card' };

/** MRZ dates are YYMMDD; a 2-digit year is read as the nearest fitting century. */
function mrzDate(yymmdd: string | null | undefined, future: boolean, today: Date): string | null {
  if (!yymmdd || !/^\d{6}$/.test(yymmdd)) return null;
  const yy = Number(yymmdd.slice(0, 2));
  const thisYY = today.getUTCFullYear() % 100;
  const century = future ? 2000 : yy > thisYY ? 1900 : 2000;
  return `${century + yy}-${yymmdd.slice(2, 4)}-${yymmdd.slice(4, 6)}`;
}

const latin = (s: string) => /^[A-Za-z' -]+$/.test(s);
const mrzName = (s: string) => s.toUpperCase().replace(/[' -]+/g, ' ').trim();

/**
 * Checks the machine-readable zone with the `mrz` library (every check digit, the composite
 * one included, and the issuing state's code), then that it agrees with what the customer
 * typed: document type, number, country, birth and expiry dates, and names when typed in
 * Latin letters (a Cyrillic name is compared by a person, not transliterated here).
 */
export function checkMrz(s: KycSubmission, today: Date): KycCheck[] {
  const text = s.document.mrz;
  if (!text) return [{ name: 'mrz', passed: false, hard: false, detail: 'No machine-readable zone was given: a person compares the document' }];
  const lines = text
    .toUpperCase()
    .split(/\r?\n/)
    .map((l) => l.replace(/\s+/g, ''))
    .filter((l) => l.length > 0);
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(lines);
  } catch (err) {
    return [{ name: 'mrz', passed: false, hard: true, detail: `The machine-readable zone cannot be read: ${(err as Error).message}` }];
  }
  if (!parsed.valid) {
    const wrong = parsed.details.filter((d) => !d.valid).map((d) => `${d.label}: ${d.error ?? 'invalid'}`);
    return [{ name: 'mrz', passed: false, hard: true, detail: `The machine-readable zone is not valid (${wrong.join('; ')})` }];
  }
  const f = parsed.fields;
  const d = s.document;
  const mismatches: string[] = [];
  if (FORMAT_OF[parsed.format] !== d.type) mismatches.push(`document type (${parsed.format} is not a ${d.type})`);
  if ((f.documentNumber ?? '').replace(/</g, '') !== d.number.toUpperCase()) mismatches.push('document number');
  if (f.issuingState !== d.country) mismatches.push('issuing country');
  if (mrzDate(f.birthDate, false, today) !== d.dateOfBirth) mismatches.push('date of birth');
  if (mrzDate(f.expirationDate, true, today) !== d.expiresAt) mismatches.push('expiry date');
  if (latin(d.lastName) && mrzName(f.lastName ?? '') !== mrzName(d.lastName)) mismatches.push('last name');
  if (latin(d.firstName) && !mrzName(f.firstName ?? '').startsWith(mrzName(d.firstName))) mismatches.push('first name');
  if (mismatches.length > 0) {
    return [{ name: 'mrz', passed: false, hard: true, detail: `The machine-readable zone does not match the typed ${mismatches.join(', ')}` }];
  }
  return [{ name: 'mrz', passed: true, hard: true, detail: `${parsed.format} zone valid: every check digit correct, matches the typed data` }];
}
