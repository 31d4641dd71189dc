import { randomBytes } from 'node:crypto';

/**
 * A decimal that must reach the client exactly as written. `JSON.stringify` can only emit
 * binary doubles, which misprint amounts beyond 15 significant digits, so `stringifyExact`
 * writes these as the bare decimal text instead.
 */
export class JsonDecimal {
  constructor(readonly text: string) {
    if (!/^-?\d+(\.\d+)?$/.test(text)) throw new Error(`not a plain decimal: ${text}`);
  }
  /** Anything serialised without stringifyExact still gets the nearest number. */
  toJSON(): number {
    return Number(this.text);
  }
}

// A per-process nonce: no string a client sends can forge the marker.
const MARK = `@@decimal:${randomBytes(12).toString('hex')}:`;
const MARKED = new RegExp(`"${MARK}(-?\\d+(?:\\.\\d+)?)"`, 'g');

/** JSON text in which every JsonDecimal is a number token with its exact digits. */
export function stringifyExact(value: unknown): string {
  const text = JSON.stringify(value, function (this: Record<string, unknown>, key, v) {
    const original = this[key];
    return original instanceof JsonDecimal ? MARK + original.text : v;
  });
  return text === undefined ? '' : text.replace(MARKED, '$1');
}
