import fc from 'fast-check';

/** The JSON Schema fields the generators read (TypeBox schemas are plain JSON Schema). */
interface Schema {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  patternProperties?: Record<string, Schema>;
  items?: Schema;
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  multipleOf?: number;
}

const MAX_DEPTH = 4;

/**
 * Values that satisfy a JSON Schema, mostly: the starting point the fuzzer mutates, so most
 * cases get past the first field's validation and reach the deeper checks and the handler.
 * Patterns use fast-check's `stringMatching`; formats the common generators.
 */
export function arbitraryOf(schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > MAX_DEPTH) return fc.constant(null);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives?.length) return fc.oneof(...alternatives.map((s) => arbitraryOf(s, depth + 1)));
  if (schema.allOf?.length) return arbitraryOf(Object.assign({}, ...schema.allOf), depth);
  if (Array.isArray(schema.type)) return fc.oneof(...schema.type.map((type) => arbitraryOf({ ...schema, type }, depth)));
  switch (schema.type) {
    case 'string':
      return stringOf(schema);
    case 'integer': {
      const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -1000);
      const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : Math.max(min, 0) + 1000);
      return fc.integer({ min: Math.ceil(min), max: Math.floor(Math.max(min, max)) });
    }
    case 'number': {
      const min = schema.minimum ?? schema.exclusiveMinimum ?? -1000;
      const max = schema.maximum ?? schema.exclusiveMaximum ?? Math.max(min, 0) + 100_000;
      // Whole cents: amounts are the usual number field, and most refuse more decimals.
      return fc.integer({ min: Math.ceil(min * 100) + 1, max: Math.max(Math.ceil(min * 100) + 1, Math.floor(Math.min(max, 1e9) * 100)) }).map((c) => c / 100);
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(arbitraryOf(schema.items, depth + 1), { minLength: schema.minItems ?? 0, maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 3, 3)) });
    case 'object': {
      if (schema.properties) {
        const record = Object.fromEntries(Object.entries(schema.properties).map(([k, s]) => [k, arbitraryOf(s, depth + 1)]));
        return fc.record(record, { requiredKeys: (schema.required ?? []).filter((k) => k in record) });
      }
      return fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.boolean()), { maxKeys: 3 });
    }
    default:
      return fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.boolean(), fc.constant(null));
  }
}

function stringOf(s: Schema): fc.Arbitrary<string> {
  const clip = (a: fc.Arbitrary<string>) => (s.maxLength !== undefined ? a.filter((v) => v.length <= s.maxLength!) : a);
  switch (s.format) {
    case 'uuid':
      return fc.uuid();
    case 'email':
      return clip(fc.emailAddress());
    case 'date-time':
      return fc.date({ min: new Date('2020-01-01'), max: new Date('2035-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
    case 'date':
      return fc.date({ min: new Date('2020-01-01'), max: new Date('2035-01-01'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
    case 'uri':
      return clip(fc.webUrl());
  }
  if (s.pattern) {
    try {
      return clip(fc.stringMatching(new RegExp(s.pattern)));
    } catch {
      // A pattern the generator cannot read: plain text, refused or not by the validator.
    }
  }
  return fc.string({ minLength: s.minLength ?? 0, maxLength: Math.max(s.minLength ?? 0, Math.min(s.maxLength ?? 40, 40)) });
}
