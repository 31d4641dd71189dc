import { parse } from 'mrz';
import { corrected } from '../../engines/vision/mrz-reader';
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

type Parsed = ReturnType<typeof parse>;

/** Where the zone that was checked came from, as the check's `detail` says. */
const FROM = { photo: 'read from the document photo', typed: 'typed' } as const;

/** Lines as typed: upper case, spaces dropped, blank lines skipped. */
const typedLines = (text: string) =>
  text
    .toUpperCase()
    .split(/\r?\n/)
    .map((l) => l.replace(/\s+/g, ''))
    .filter((l) => l.length > 0);

/**
 * What in a valid zone disagrees with what the customer typed: document type, number, country,
 * birth and expiry dates, and names when typed in Latin letters (a Cyrillic name is compared
 * by a person, not transliterated here). The one comparison for a typed zone and a read one.
 */
function mismatchesOf(parsed: Parsed, s: KycSubmission, today: Date): string[] {
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
  return mismatches;
}

/**
 * Checks one zone, typed or read from the photo, with the `mrz` library (every check digit,
 * the composite one included, and the issuing state's code; a read zone with OCR's confusions
 * repaired where a field is numeric or alphabetic), then that it agrees with the typed data.
 * Any failure is hard but a photo's zone disagreeing only in names. Answers the check, and the zone's lines as the library reads them.
 */
function checkZone(lines: string[], source: keyof typeof FROM, s: KycSubmission, today: Date): { check: KycCheck; lines: string[] | null } {
  const from = FROM[source];
  let parsed: Parsed;
  try {
    parsed = parse(lines, { autocorrect: source === 'photo' });
  } catch (err) {
    return { check: { name: 'mrz', passed: false, hard: true, detail: `The machine-readable zone ${from} cannot be read: ${(err as Error).message}` }, lines: null };
  }
  if (!parsed.valid) {
    const wrong = parsed.details.filter((d) => !d.valid).map((d) => `${d.label}: ${d.error ?? 'invalid'}`);
    return { check: { name: 'mrz', passed: false, hard: true, detail: `The machine-readable zone ${from} is not valid (${wrong.join('; ')})` }, lines: null };
  }
  const mismatches = mismatchesOf(parsed, s, today);
  if (mismatches.length > 0) {
    // Names carry no check digit, so a name read off a photo may be OCR's misreading: when
    // only names disagree there, a person compares (soft) rather than declining the customer.
    const onlyNames = mismatches.every((m) => m.endsWith(' name'));
    const hard = !(source === 'photo' && onlyNames);
    const then = hard ? '' : ': a person compares the names';
    return { check: { name: 'mrz', passed: false, hard, detail: `The machine-readable zone ${from} does not match the typed ${mismatches.join(', ')}${then}` }, lines: null };
  }
  return { check: { name: 'mrz', passed: true, hard: true, detail: `${parsed.format} zone ${from}: every check digit correct, matches the typed data` }, lines: corrected(lines, parsed) };
}

/**
 * The MRZ check. The zone read from the document photo by OCR (`photo`, MrzReader) comes first:
 * its check digits must be valid and it must agree with the typed data, and a zone the customer
 * also typed must be the same zone. When none can be read off the photo (a document without
 * one, a blurred picture), the typed zone is checked the same way; with neither, a person
 * compares the document (soft). The detail says which zone was checked.
 */
export function checkMrz(s: KycSubmission, today: Date, photo: { lines: string[] } | null = null): KycCheck[] {
  const typed = s.document.mrz ? typedLines(s.document.mrz) : [];
  if (photo) {
    const read = checkZone(photo.lines, 'photo', s, today);
    if (!read.lines || typed.length === 0) return [read.check];
    if (typed.join('\n') !== read.lines.join('\n')) {
      return [{ name: 'mrz', passed: false, hard: true, detail: 'The typed machine-readable zone is not the one read from the document photo' }];
    }
    return [{ ...read.check, detail: `${read.check.detail}; the typed zone is the same` }];
  }
  if (typed.length === 0) {
    return [{ name: 'mrz', passed: false, hard: false, detail: 'No machine-readable zone could be read from the document photo, and none was typed: a person compares the document' }];
  }
  const checked = checkZone(typed, 'typed', s, today).check;
  return [{ ...checked, detail: `${checked.detail} (none could be read from the document photo)` }];
}
