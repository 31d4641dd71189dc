import Papa from 'papaparse';
import { ApiError, compile, Email, HttpUrl, parseMoney } from '@pay/schemas';
import { type Money } from '@pay/money';
import type { BrandLanguage } from '@pay/accounts';
import { FIAT_DECIMALS, type Currency } from '../invoices/invoices';
import { CURRENCIES } from '../invoices/currencies';

/** At most 1000 data rows (and 5 MB, enforced by the upload). */
export const MAX_ROWS = 1000;
export const MAX_FILE_BYTES = 5 * 1024 * 1024;
/**
 * The spec's columns, and `language`: the language of the row's e-mail (`ru`, `en`, `kk`; v1
 * spells Kazakh `kz`, as its KYC `locale` does, so `kz` is taken too), when the merchant's
 * default is not the payer's. Optional: a file of the spec's columns alone reads as before.
 */
export const COLUMNS = ['amount', 'currency', 'description', 'email', 'externalId', 'redirectUrl', 'language'] as const;
const ROW_LANGUAGES: Record<string, BrandLanguage> = { ru: 'ru', en: 'en', kk: 'kk', kz: 'kk' };
const MAX_DESCRIPTION = 500;
const MAX_EXTERNAL_ID = 100;
const AMOUNT = /^\d{1,10}(\.\d+)?$/;

const validEmail = compile(Email);
const validUrl = compile(HttpUrl);

/** One valid row, ready to become an invoice. */
export interface BatchRow {
  /** 1-based data row number: the header is not counted, blank rows are. */
  row: number;
  amount: Money;
  currency: Currency;
  description: string | null;
  email: string | null;
  externalId: string | null;
  redirectUrl: string | null;
  /** The e-mail's language; null: the merchant's default. */
  language: BrandLanguage | null;
}

export interface RowError {
  row: number;
  externalId: string | null;
  error: string;
}

export interface ParsedBatch {
  /** Data rows in the file, blank ones not counted. */
  total: number;
  /** Never empty: a file without a valid row is refused (NO_VALID_ROWS). */
  valid: BatchRow[];
  errors: RowError[];
}

/** Row errors listed in a NO_VALID_ROWS answer at most. */
const MAX_LISTED_ROWS = 100;

/**
 * 422 NO_VALID_ROWS: nothing is created. Each failed row is a detail in the error envelope of
 * the error envelope's, `{ field: "row N", message }`, with the row's number and externalId as
 * properties of their own (as in a batch's `errors`), so a merchant can match it to its order.
 */
function noValidRows(total: number, errors: RowError[]): ApiError {
  const listed = errors.length > MAX_LISTED_ROWS ? ` (the first ${MAX_LISTED_ROWS} are listed)` : '';
  return new ApiError(
    'NO_VALID_ROWS',
    total === 0 ? 'The file has no data rows' : `None of the ${total} rows is valid; nothing was created${listed}`,
    errors.slice(0, MAX_LISTED_ROWS).map((e) => ({ field: `row ${e.row}`, message: e.error, row: e.row, externalId: e.externalId })),
  );
}

export interface BatchDefaults {
  defaultCurrency?: Currency;
  defaultRedirectUrl?: string;
}

const fileError = (message: string) => new ApiError('VALIDATION_ERROR', message, [{ field: 'file', message }]);

/**
 * Reads the CSV (UTF-8, a BOM tolerated, comma separated, header row) and checks every row:
 * amount, currency (known and enabled), e-mail, URL, externalId (once in the file, never
 * used before). Cells are kept as the text they are: a cell starting with `=`, `+`, `-` or
 * `@` is data, never a formula (CSV exports escape it). Whole-file problems are 400s; a file
 * without one valid row is a 422 listing its rows' errors.
 */
export async function parseBatchCsv(
  text: string,
  defaults: BatchDefaults,
  enabled: readonly Currency[],
  usedExternalIds: (ids: string[]) => Promise<Set<string>>,
  /** The currencies the mode's payment provider takes, when it does not take them all (a live acquirer: RUB), and why. */
  modeTakes?: { currencies: readonly string[]; why: string },
): Promise<ParsedBatch> {
  const parsed = Papa.parse<string[]>(text.replace(/^\uFEFF/, ''), { header: false, delimiter: ',', skipEmptyLines: false });
  const [header, ...lines] = parsed.data;
  const names = (header ?? []).map((h) => h.trim());
  if (!names.includes('amount')) throw fileError(`must be a CSV whose header row names the columns (${COLUMNS.join(', ')}); "amount" is missing`);
  const unknown = names.filter((n) => n !== '' && !(COLUMNS as readonly string[]).includes(n));
  if (unknown.length) throw fileError(`has unknown columns: ${unknown.join(', ')} (known: ${COLUMNS.join(', ')})`);
  // Which of two `amount` columns is meant cannot be guessed: refused rather than the first taken.
  const twice = [...new Set(names.filter((n, i) => n !== '' && names.indexOf(n) !== i))];
  if (twice.length) throw fileError(`names the column ${twice.map((n) => `"${n}"`).join(', ')} more than once in its header`);
  if (!names.includes('currency') && !defaults.defaultCurrency) throw fileError('has no currency column, and no defaultCurrency was given');
  const at = (cells: string[], name: (typeof COLUMNS)[number]) => {
    const i = names.indexOf(name);
    const v = i < 0 ? '' : (cells[i] ?? '');
    return v.trim();
  };
  // Quoting problems are reported on their row; papaparse counts rows from the header's.
  const broken = new Map<number, string>();
  for (const e of parsed.errors) if (e.row !== undefined && e.row > 0) broken.set(e.row, e.message);

  // Row N is the file's Nth row after the header, as a spreadsheet shows it (its row N + 1):
  // blank rows (an empty line, or only empty cells, as spreadsheets export them) are skipped
  // but keep their number, so `total` (the rows read) = created + failed ≤ the last row number.
  const blank = (cells: string[]) => cells.every((c) => c.trim() === '');
  const rows = lines.map((cells, i) => ({ cells, row: i + 1 })).filter((r) => !blank(r.cells));
  if (rows.length > MAX_ROWS) throw fileError(`has ${rows.length} data rows; at most ${MAX_ROWS}`);

  const ids = rows.map((r) => at(r.cells, 'externalId')).filter((v) => v !== '');
  const used = ids.length ? await usedExternalIds(ids) : new Set<string>();
  const seen = new Map<string, number>();
  const valid: BatchRow[] = [];
  const errors: RowError[] = [];
  for (const { cells, row } of rows) {
    const problems: string[] = [];
    const externalId = at(cells, 'externalId') || null;
    if (broken.has(row)) problems.push(`the row cannot be read (${broken.get(row)})`);
    else if (cells.length !== names.length) problems.push(`the row has ${cells.length} cells; the header has ${names.length}`);
    const amountText = at(cells, 'amount');
    let amount: Money | null = null;
    if (amountText === '') problems.push('amount is required');
    else if (!AMOUNT.test(amountText)) problems.push(`amount "${amountText}" is not a number (digits, a dot, at most ${FIAT_DECIMALS} decimals)`);
    else {
      try {
        amount = parseMoney(Number(amountText), { decimals: FIAT_DECIMALS });
        if (!amount.eq(amountText)) throw new ApiError('VALIDATION_ERROR', 'amount has too many digits');
      } catch (e) {
        amount = null;
        problems.push(`amount ${(e as ApiError).details?.[0]?.message ?? (e as Error).message}`);
      }
    }
    const currency = (at(cells, 'currency') || defaults.defaultCurrency || '') as Currency;
    if (!currency) problems.push('currency is required (or give defaultCurrency)');
    else if (!(CURRENCIES as readonly string[]).includes(currency)) problems.push(`currency "${currency}" is not one of ${CURRENCIES.join(', ')}`);
    else if (!enabled.includes(currency)) problems.push(`currency ${currency} is not enabled for this merchant (enabled: ${enabled.join(', ')})`);
    else if (modeTakes && !modeTakes.currencies.includes(currency)) problems.push(`currency ${currency} cannot be paid here: ${modeTakes.why}`);
    const description = at(cells, 'description') || null;
    if (description && description.length > MAX_DESCRIPTION) problems.push(`description is longer than ${MAX_DESCRIPTION} characters`);
    const email = at(cells, 'email') || null;
    if (email && !validEmail(email)) problems.push(`email "${email}" is not an e-mail address`);
    const redirectUrl = at(cells, 'redirectUrl') || defaults.defaultRedirectUrl || null;
    if (redirectUrl && !validUrl(redirectUrl)) problems.push(`redirectUrl "${redirectUrl}" is not an http(s) URL`);
    const languageText = at(cells, 'language');
    const language = languageText === '' ? null : (ROW_LANGUAGES[languageText.toLowerCase()] ?? null);
    if (languageText !== '' && !language) problems.push(`language "${languageText}" is not one of ru, en, kk (or kz)`);
    if (externalId) {
      if (externalId.length > MAX_EXTERNAL_ID) problems.push(`externalId is longer than ${MAX_EXTERNAL_ID} characters`);
      else if (seen.has(externalId)) problems.push(`externalId "${externalId}" repeats row ${seen.get(externalId)}`);
      else if (used.has(externalId)) problems.push(`externalId "${externalId}" was used by an earlier invoice`);
      if (!seen.has(externalId)) seen.set(externalId, row);
    }
    if (problems.length || !amount) errors.push({ row, externalId, error: problems.join('; ') });
    else valid.push({ row, amount, currency, description, email, externalId, redirectUrl, language });
  }
  if (valid.length === 0) throw noValidRows(rows.length, errors);
  return { total: rows.length, valid, errors };
}
