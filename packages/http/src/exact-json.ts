import { randomBytes } from 'node:crypto';
import { ApiError } from '@pay/schemas';
import { JsonDecimal } from '@pay/money';

/**
 * A JSON value that must reach the client as the very text it was given: digits past a
 * double's (`12345678901234567890`), `2.50`, key order, escapes (what Node 22 calls
 * `JSON.rawJSON`). For values the service itself checked: text read back from a `json`
 * column, or found by `exactBodyMember` in a body that parsed. The text must be exactly one
 * JSON value (checked here), so embedding it can never change the document around it.
 */
export class RawJson {
  /** The value as JSON.parse reads it. */
  readonly value: unknown;
  constructor(readonly text: string) {
    this.value = JSON.parse(text);
  }
  /** Anything serialised without stringifyExact still gets the value, as JSON.parse reads it. */
  toJSON(): unknown {
    return this.value;
  }
}

// A per-process nonce: no string a client sends can forge the marker.
const MARK = `@@exact:${randomBytes(12).toString('hex')}:`;
const MARKED = new RegExp(`"${MARK}(\\d+)"`, 'g');

/**
 * Whether `value` holds something plain JSON.stringify would not write as it must: a RawJson
 * (its own text), a JsonDecimal whose digits a double does not print back as they are, or an
 * object of another class with a toJSON of its own (what it gives is not walked here), Dates
 * aside. Keys as JSON.stringify takes them: own, enumerable.
 */
function needsMarks(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (value instanceof JsonDecimal) return String(Number(value.text)) !== value.text;
  if (value instanceof RawJson) return true;
  if (Array.isArray(value)) return value.some(needsMarks);
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function' && !(value instanceof Date)) return true;
  for (const v of Object.values(value)) if (needsMarks(v)) return true;
  return false;
}

/**
 * JSON text in which every JsonDecimal is a number token with its exact digits, and every
 * RawJson its own text. Most answers hold only amounts a double prints as they are
 * (`1500.5`): those are written by plain JSON.stringify, a third of the time of the marking
 * replacer below, which JSON.stringify calls for every key of the document.
 */
export function stringifyExact(value: unknown): string {
  if (!needsMarks(value)) return JSON.stringify(value) ?? '';
  const exact: string[] = [];
  const text = JSON.stringify(value, function (this: Record<string, unknown>, key, v) {
    const original = this[key];
    return original instanceof JsonDecimal || original instanceof RawJson ? MARK + (exact.push(original.text) - 1) : v;
  });
  if (text === undefined) return '';
  return exact.length === 0 ? text : text.replace(MARKED, (_, i: string) => exact[Number(i)]!);
}

const isWhitespace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\r';

function skipWhitespace(text: string, i: number): number {
  while (isWhitespace(text[i])) i++;
  return i;
}

function need(text: string, i: number, c: string): void {
  if (text[i] !== c) throw new Error(`not JSON: expected ${c} at ${i}`);
}

/** From the opening quote of a string token to just after its closing quote. */
function endOfString(text: string, i: number): number {
  need(text, i, '"');
  for (let j = i + 1; j < text.length; j++) {
    if (text[j] === '\\') j++;
    else if (text[j] === '"') return j + 1;
  }
  throw new Error('not JSON: a string does not end');
}

/** From the first character of a value to just after it. Brackets inside strings do not count. */
function endOfValue(text: string, i: number): number {
  const c = text[i];
  if (c === '"') return endOfString(text, i);
  if (c === '{' || c === '[') {
    let depth = 0;
    for (let j = i; j < text.length; j++) {
      const d = text[j];
      if (d === '"') j = endOfString(text, j) - 1;
      else if (d === '{' || d === '[') depth++;
      else if ((d === '}' || d === ']') && --depth === 0) return j + 1;
    }
    throw new Error('not JSON: an object or array does not end');
  }
  let j = i;
  while (j < text.length && !isWhitespace(text[j]) && text[j] !== ',' && text[j] !== '}' && text[j] !== ']') j++;
  if (j === i) throw new Error(`not JSON: no value at ${i}`);
  return j;
}

/**
 * The source text of member `name` of the JSON object `text`, exactly as written, or undefined
 * when it has none (or is not an object). Node 20's JSON.parse gives no access to source
 * text. Meant for text JSON.parse has accepted (a request body): like JSON.parse, the last
 * member of a name wins, and keys are compared after their escapes are read
 * (`"meta\u0064ata"` is `metadata`).
 */
export function jsonMemberText(text: string, name: string): string | undefined {
  let i = skipWhitespace(text, 0);
  if (text[i] !== '{') return undefined;
  i = skipWhitespace(text, i + 1);
  if (text[i] === '}') return undefined;
  let found: string | undefined;
  for (;;) {
    const keyEnd = endOfString(text, i);
    const token = text.slice(i, keyEnd);
    const key = token.includes('\\') ? (JSON.parse(token) as string) : token.slice(1, -1);
    i = skipWhitespace(text, keyEnd);
    need(text, i, ':');
    const start = skipWhitespace(text, i + 1);
    const end = endOfValue(text, start);
    if (key === name) found = text.slice(start, end);
    i = skipWhitespace(text, end);
    if (text[i] === '}') return found;
    need(text, i, ',');
    i = skipWhitespace(text, i + 1);
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The exact text a client sent for a top-level member of its JSON body, for a value that must
 * come back as given (`metadata`): found in the bytes the HTTP layer keeps for signatures
 * (`req.rawBody`, read as UTF-8, the only encoding the JSON parser accepts) and checked to read
 * as the very value validation saw. Undefined when the body has no such member.
 */
export function exactBodyMember(req: { rawBody?: Buffer; body?: unknown }, name: string): RawJson | undefined {
  const parsed = (req.body as Record<string, unknown> | undefined)?.[name];
  if (parsed === undefined) return undefined;
  let body: string;
  try {
    body = utf8.decode(req.rawBody ?? Buffer.alloc(0));
  } catch {
    throw new ApiError('VALIDATION_ERROR', 'Request body must be valid UTF-8', [{ field: '(body)', message: 'must be valid UTF-8' }]);
  }
  const text = jsonMemberText(body, name);
  const exact = text === undefined ? undefined : new RawJson(text);
  if (!exact || JSON.stringify(exact.value) !== JSON.stringify(parsed)) throw new Error(`${name} was not found in the request body as it was parsed`);
  return exact;
}
