import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { TSchema, Static } from '@sinclair/typebox';
import { ApiError, type ErrorDetail } from './errors';

/**
 * Two compilers: bodies are validated as sent (a string is never silently turned into a
 * number), while query strings and environment variables only exist as text, so their
 * compiler coerces and fills defaults.
 */
function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    strict: false,
    coerceTypes: coerce,
    useDefaults: true,
    removeAdditional: false,
    // Errors carry their schema, so a bound can be said the way its schema writes it
    // (`x-limits`, see toDetails). Only failed validations pay for it.
    verbose: true,
  });
  addFormats(ajv);
  // A URL that Node's own parser (and so every client library) accepts: RFC 3986 'uri'
  // lets through what drivers then refuse at connect time, e.g. a port that is not a number.
  ajv.addFormat('parsable-url', (value: string) => URL.canParse(value));
  return ajv;
}

export const bodyAjv = makeAjv(false);
export const textAjv = makeAjv(true);

const compiled = new WeakMap<Ajv, WeakMap<object, ValidateFunction>>();

/** Compiles once per (compiler, schema) pair; schemas are module-level constants. */
export function compile(schema: TSchema, ajv: Ajv = bodyAjv): ValidateFunction {
  let byschema = compiled.get(ajv);
  if (!byschema) compiled.set(ajv, (byschema = new WeakMap()));
  let fn = byschema.get(schema);
  if (!fn) byschema.set(schema, (fn = ajv.compile(schema)));
  return fn;
}

const LIMIT_OPERATORS: Record<string, string> = { minimum: '>=', maximum: '<=', exclusiveMinimum: '>', exclusiveMaximum: '<' };

/** Turns ajv's errors into one `{ field, message }` per failing field, in request terms. */
export function toDetails(errors: ErrorObject[] | null | undefined, root = ''): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const seen = new Set<string>();
  for (const e of errors ?? []) {
    let field = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'required') {
      field = [field, (e.params as { missingProperty: string }).missingProperty].filter(Boolean).join('.');
      message = 'is required';
    } else if (e.keyword === 'additionalProperties') {
      field = [field, (e.params as { additionalProperty: string }).additionalProperty].filter(Boolean).join('.');
      message = 'is not a known field';
    } else if (e.keyword === 'enum') {
      message = `must be one of: ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
    } else if (e.keyword in LIMIT_OPERATORS && (e.parentSchema as { 'x-limits'?: Record<string, string> } | undefined)?.['x-limits']?.[e.keyword]) {
      // A bound that is not a short decimal (1/60 of an hour) in the words the schema gives it.
      message = `must be ${LIMIT_OPERATORS[e.keyword]} ${(e.parentSchema as { 'x-limits': Record<string, string> })['x-limits'][e.keyword]}`;
    } else if (e.keyword === 'type') {
      message = `must be ${(e.params as { type: string }).type}`;
    } else if (e.keyword === 'errorMessage' || e.keyword === 'anyOf' || e.keyword === 'if') {
      continue;
    }
    const name = [root, field].filter(Boolean).join('.') || root || '(root)';
    if (seen.has(name)) continue;
    seen.add(name);
    details.push({ field: name, message });
  }
  return details;
}

/** Validates `value` or throws VALIDATION_ERROR listing every failing field. */
export function assertValid<S extends TSchema>(
  schema: S,
  value: unknown,
  opts: { ajv?: Ajv; root?: string; what?: string } = {},
): asserts value is Static<S> {
  const fn = compile(schema, opts.ajv);
  if (!fn(value)) {
    const details = toDetails(fn.errors, opts.root);
    const what = opts.what ?? 'Request';
    throw new ApiError(
      'VALIDATION_ERROR',
      `${what} is invalid: ${details.map((d) => `${d.field} ${d.message}`).join('; ')}`,
      details,
    );
  }
}
