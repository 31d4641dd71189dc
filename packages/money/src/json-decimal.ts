/**
 * A decimal that must reach the client exactly as written. `JSON.stringify` can only emit
 * binary doubles, which misprint amounts beyond 15 significant digits, so `stringifyExact`
 * (@pay/http) writes these as the bare decimal text instead.
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
