import Decimal from 'decimal.js';

/** What a receipt says, as read from its text (each null when it could not be found). */
export interface ReceiptFields {
  amount: Decimal | null;
  /** The payment's calendar date, `YYYY-MM-DD`. */
  date: string | null;
  bank: string | null;
  paymentType: PaymentType | null;
}

export type PaymentType = 'sbp' | 'card' | 'bank_transfer' | 'transfer';

/** JavaScript's `\b` knows ASCII letters only (`\bсбп\b` never matches): this one knows every script. */
const WORD_EDGE = '(?:(?<![\\p{L}\\p{N}])(?=[\\p{L}\\p{N}])|(?<=[\\p{L}\\p{N}])(?![\\p{L}\\p{N}]))';
const u = (re: RegExp) => new RegExp(re.source.replaceAll('\\b', WORD_EDGE), `${re.flags}u`);

/**
 * Banks recognised on receipts, each with the names their apps print (OCR reads `ё` as `е`
 * and mixes Latin into Cyrillic, so the patterns are loose). Order matters: the first match wins.
 */
const BANKS: [string, RegExp][] = [
  ['Sberbank', u(/сбер\s*банк|сбербанк|\bsber(bank)?\b|сбер\b/i)],
  ['T-Bank', u(/т[-\s]?банк|тинькофф|\bt[-\s]?bank\b|tinkoff/i)],
  ['Alfa-Bank', u(/альфа[-\s]?банк|\balfa[-\s]?bank\b/i)],
  ['VTB', u(/\bвтб\b|\bvtb\b/i)],
  ['Gazprombank', u(/газпромбанк|gazprombank/i)],
  ['Raiffeisenbank', u(/райффайзен|raiffeisen/i)],
  ['Otkritie', u(/открытие|otkritie/i)],
  ['Sovcombank', u(/совкомбанк|sovcombank/i)],
  ['Pochta Bank', u(/почта\s*банк|pochta\s*bank/i)],
  ['Rosbank', u(/росбанк|rosbank/i)],
  ['MTS Bank', u(/мтс\s*банк|mts\s*bank/i)],
  ['Ozon Bank', u(/озон\s*банк|ozon\s*bank/i)],
  ['Yandex Bank', u(/яндекс\s*банк|yandex\s*bank/i)],
  ['PSB', u(/промсвязьбанк|\bпсб\b|\bpsb\b/i)],
  ['Rosselkhozbank', u(/россельхозбанк|rosselkhozbank/i)],
];

/** Most specific first: a bank transfer's receipt names the card it was paid from too. */
const PAYMENT_TYPES: [PaymentType, RegExp][] = [
  ['sbp', u(/\bсбп\b|систем\S*\s+быстр\S*\s+платеж|\bsbp\b|faster\s+payments?/i)],
  ['bank_transfer', u(/по\s+реквизитам|плат[её]жн\S*\s+поручени|bank\s+transfer|wire\s+transfer/i)],
  ['card', u(/по\s+номеру\s+карты|\bкарт[аеуы]\b|card\s+(transfer|payment)|\bby\s+card\b/i)],
  ['transfer', u(/перевод|transfer/i)],
];

/** Lines naming the paid amount; the amount follows on the line or the next one. */
const AMOUNT_LABEL = u(/сумма|итого|к\s+оплате|списано|оплачено|\bamount\b|\btotal\b/i);
/** Lines with an amount that is not the payment's own. */
const NOT_THE_AMOUNT = u(/комисси|\bfee\b|баланс|остаток|balance|кешбэк|cashback|лимит|limit/i);
const DATE_LABEL = u(/дата|date|время|time/i);

/**
 * An amount: Russian style `1 490,90` / `1490,90` / `1490.90`, or English `1,490.90`; kopecks
 * optional (two digits). Dates (`23.11.2026`), times and long digit runs (account numbers) are
 * removed from the line before this runs.
 */
const MONEY = /(?<![\d])(\d{1,3}(?:,\d{3})+(?:\.\d{2})?|\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?:[.,]\d{2})?|\d{1,9}(?:[.,]\d{2})?)(?![\d])/g;
/** A currency mark beside an amount (OCR reads ₽ as Р, P or 2, so only the written-out forms count here). */
const CURRENCY = u(/₽|руб|\brub\b|\bр\.|\bp\.?$/i);

const MONTHS: Record<string, number> = {
  янв: 1, фев: 2, мар: 3, апр: 4, мая: 5, май: 5, июн: 6, июл: 7, авг: 8, сен: 9, окт: 10, ноя: 11, дек: 12,
  jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12,
};

const DATE_PATTERNS: { re: RegExp; parts: (m: RegExpExecArray) => [number, number, number] | null }[] = [
  // 2026-11-23
  { re: /\b(\d{4})-(\d{2})-(\d{2})\b/, parts: (m) => [+m[1]!, +m[2]!, +m[3]!] },
  // 23.11.2026, 23/11/2026, 23.11.26
  { re: /\b(\d{1,2})[./](\d{1,2})[./](\d{4}|\d{2})\b/, parts: (m) => [year(m[3]!), +m[2]!, +m[1]!] },
  // 23 ноября 2026, 23 November 2026
  { re: /\b(\d{1,2})\s+([a-zа-яё]{3,})\.?\s+(\d{4})\b/i, parts: (m) => month(m[2]!, (mo) => [+m[3]!, mo, +m[1]!]) },
  // November 23, 2026
  { re: /\b([a-z]{3,})\.?\s+(\d{1,2}),?\s+(\d{4})\b/i, parts: (m) => month(m[1]!, (mo) => [+m[3]!, mo, +m[2]!]) },
];

function year(y: string): number {
  return y.length === 2 ? 2000 + Number(y) : Number(y);
}

function month(name: string, make: (m: number) => [number, number, number]): [number, number, number] | null {
  const n = MONTHS[name.toLowerCase().replace('ё', 'е').slice(0, 3)];
  return n ? make(n) : null;
}

function isoDate([y, m, d]: [number, number, number]): string | null {
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d || y < 2000 || y > 2100) return null;
  return date.toISOString().slice(0, 10);
}

function findDate(line: string): string | null {
  for (const p of DATE_PATTERNS) {
    const m = p.re.exec(line);
    const parts = m && p.parts(m);
    const iso = parts && isoDate(parts);
    if (iso) return iso;
  }
  return null;
}

/** The line without what looks like money but is not: dates, times, card and account numbers. */
function moneyPart(line: string): string {
  return line
    .replace(/\b\d{4}-\d{2}-\d{2}\b/g, ' ')
    .replace(/\b\d{1,2}[./]\d{1,2}[./]\d{2,4}\b/g, ' ')
    .replace(/\b\d{1,2}:\d{2}(:\d{2})?\b/g, ' ')
    .replace(/[*•]+\s*\d{2,4}\b/g, ' ')
    .replace(/\+?\d[\d\s()-]{9,}\d/g, (run) => (/[.,]\d{2}$/.test(run) || /^\d{1,3}( \d{3})+$/.test(run.trim()) ? run : ' '));
}

function parseMoney(token: string): Decimal | null {
  let t = token.replace(/[ \u00a0\u202f]/g, '');
  if (/^\d{1,3}(,\d{3})+(\.\d{2})?$/.test(t)) t = t.replace(/,/g, '');
  else t = t.replace(',', '.');
  const d = new Decimal(t);
  // Past any invoice's amount (numeric(20,2) below 10^9 rubles): an account number, not money.
  return d.gt(0) && d.lt(1e9) ? d : null;
}

function amountsIn(line: string): { value: Decimal; marked: boolean }[] {
  const part = moneyPart(line);
  const out: { value: Decimal; marked: boolean }[] = [];
  for (const m of part.matchAll(MONEY)) {
    const value = parseMoney(m[1]!);
    if (!value) continue;
    const after = part.slice(m.index! + m[0].length, m.index! + m[0].length + 6);
    const hasKopecks = /[.,]\d{2}$/.test(m[1]!);
    out.push({ value, marked: CURRENCY.test(after) || hasKopecks });
  }
  return out;
}

/** The paid amount: the one labelled (Сумма, Итого, Amount, Total…) or else the first one marked as money. */
function findAmount(lines: string[]): Decimal | null {
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!AMOUNT_LABEL.test(line) || NOT_THE_AMOUNT.test(line)) continue;
    const after = line.slice(line.search(AMOUNT_LABEL));
    const here = amountsIn(after);
    if (here[0]) return here[0].value;
    const next = lines[i + 1];
    if (next !== undefined && !NOT_THE_AMOUNT.test(next)) {
      const below = amountsIn(next);
      if (below[0]) return below[0].value;
    }
  }
  for (const line of lines) {
    if (NOT_THE_AMOUNT.test(line)) continue;
    const marked = amountsIn(line).find((a) => a.marked);
    if (marked) return marked.value;
  }
  return null;
}

/** Reads amount, date, bank and payment type from a receipt's text (OCR output or a PDF's text layer). */
export function extractReceiptFields(text: string): ReceiptFields {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.replace(/[\u00a0\u202f\t]/g, ' ').replace(/\s+/g, ' ').trim())
    .filter(Boolean);
  const labelled = lines.filter((l) => DATE_LABEL.test(l)).map(findDate).find(Boolean);
  const date = labelled ?? lines.map(findDate).find(Boolean) ?? null;
  const all = lines.join('\n');
  return {
    amount: findAmount(lines),
    date,
    bank: BANKS.find(([, re]) => re.test(all))?.[0] ?? null,
    paymentType: PAYMENT_TYPES.find(([, re]) => re.test(all))?.[0] ?? null,
  };
}
