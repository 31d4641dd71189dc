/**
 * Example values for the OpenAPI document, made from the schemas themselves: a field's own
 * `examples` (or `default`, `const`, first `enum` value) first, else a value its type and
 * format admit. A string whose `pattern` refuses that value must carry `examples`: no value
 * is guessed for a pattern. documents.test.ts checks every example against its schema with ajv, so an
 * example cannot drift from what the API accepts and answers.
 */

type Schema = Record<string, unknown>;

/** Sample values that cannot be mistaken for real ones, the same in every document. */
export const EXAMPLE_UUID = '00000000-0000-4000-8000-000000000001';
export const EXAMPLE_TIME = '2026-01-15T09:30:00.000Z';

const FORMATS: Record<string, string> = {
  uuid: EXAMPLE_UUID,
  'date-time': EXAMPLE_TIME,
  date: '2026-01-15',
  email: 'ann@example.com',
  uri: 'https://shop.example.com/orders/42',
  'parsable-url': 'https://shop.example.com/orders/42',
  binary: '(file bytes)',
};

function numberSample(s: Schema, integer: boolean): number {
  const lo = typeof s.minimum === 'number' ? s.minimum : typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + (integer ? 1 : 0.01) : undefined;
  const hi = typeof s.maximum === 'number' ? s.maximum : typeof s.exclusiveMaximum === 'number' ? s.exclusiveMaximum - (integer ? 1 : 0.01) : undefined;
  const preferred = integer ? 10 : 100;
  if ((lo === undefined || preferred >= lo) && (hi === undefined || preferred <= hi)) return preferred;
  return lo ?? hi ?? preferred;
}

function stringSample(s: Schema, where: string): string {
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  const max = typeof s.maxLength === 'number' ? s.maxLength : Infinity;
  const text = typeof s.format === 'string' && FORMATS[s.format] ? FORMATS[s.format]! : 'Order 42';
  const value = text.length >= min && text.length <= max ? text : 'x'.repeat(Math.max(min, 1));
  if (typeof s.pattern === 'string' && !new RegExp(s.pattern, 'u').test(value)) {
    throw new Error(`${where}: a string with the pattern ${s.pattern} needs \`examples\` in its schema (no example is guessed for a pattern)`);
  }
  return value;
}

/**
 * A value `schema` admits, every field filled (optional ones too, so the example shows them).
 * `resolve` turns a `$ref` into its schema.
 */
export function exampleOf(schema: Schema, resolve: (ref: string) => Schema, where = '(schema)'): unknown {
  if (typeof schema.$ref === 'string') {
    const own = pickOwn(schema);
    return own !== undefined ? own : exampleOf(resolve(schema.$ref), resolve, `${where} → ${schema.$ref}`);
  }
  const own = pickOwn(schema);
  if (own !== undefined) return own;
  if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) {
    const branches = (schema.anyOf ?? schema.oneOf) as Schema[];
    // The branch that says most: an object or a string rather than null.
    const branch = branches.find((b) => b.type !== 'null') ?? branches[0]!;
    return exampleOf(branch, resolve, where);
  }
  if (Array.isArray(schema.allOf)) {
    return Object.assign({}, ...(schema.allOf as Schema[]).map((s) => exampleOf(s, resolve, where)));
  }
  switch (schema.type) {
    case 'string':
      return stringSample(schema, where);
    case 'integer':
      return numberSample(schema, true);
    case 'number':
      return numberSample(schema, false);
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array': {
      const count = Math.max(1, typeof schema.minItems === 'number' ? schema.minItems : 1);
      return Array.from({ length: count }, () => exampleOf((schema.items ?? {}) as Schema, resolve, `${where}[]`));
    }
    case 'object':
    case undefined: {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      if (Object.keys(properties).length === 0) return schema.type === 'object' ? {} : 'any JSON value';
      return Object.fromEntries(Object.entries(properties).map(([name, prop]) => [name, exampleOf(prop, resolve, `${where}.${name}`)]));
    }
  }
  throw new Error(`${where}: no example for the schema ${JSON.stringify(schema).slice(0, 200)}`);
}

/** The value the schema itself gives. */
function pickOwn(schema: Schema): unknown {
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ('const' in schema) return schema.const;
  if ('default' in schema) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  return undefined;
}
