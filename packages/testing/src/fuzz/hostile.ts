import fc from 'fast-check';

/** Builds `{"__proto__": …}` as an own key, as JSON.parse does for a request body. */
const own = (key: string, value: unknown) => JSON.parse(`{${JSON.stringify(key)}:${JSON.stringify(value)}}`) as Record<string, unknown>;

function nested(depth: number): unknown {
  let v: unknown = 'bottom';
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

/** Values no field should take gracefully wrong: each must be refused with a 4xx or handled. */
export const HOSTILE_VALUES: unknown[] = [
  '',
  ' ',
  'x'.repeat(5_000),
  '\u0000',
  'a\u0000b',
  '\ud800',
  '😀'.repeat(50),
  'Ω≈ç√∫˜µ≤≥÷',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '../../etc/passwd',
  '1e309',
  'NaN',
  '-0',
  -1,
  0,
  -0,
  0.001,
  1.005,
  1e-7,
  1e21,
  1e308,
  2 ** 53 + 1,
  -(2 ** 63),
  true,
  false,
  null,
  [],
  [null],
  {},
  own('__proto__', { polluted: true }),
  own('constructor', { prototype: { polluted: true } }),
  nested(40),
];

/** Whole bodies, as raw text: what JSON.stringify cannot produce. */
export const HOSTILE_RAW_BODIES: string[] = [
  '',
  'null',
  '[]',
  '"text"',
  '12',
  '{',
  '{"amount": NaN}',
  '{"amount": Infinity}',
  '{"amount": -Infinity}',
  '{"a":1,"a":2}',
  '{"__proto__": {"polluted": true}}',
  '{"constructor": {"prototype": {"polluted": true}}}',
  `${'['.repeat(5000)}${']'.repeat(5000)}`,
  `{"x": "${'y'.repeat(300_000)}"}`,
  '\uFEFF{}',
  Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]).toString('latin1'),
];

/** Path parameter values: malformed, unknown, encoded traversal, huge. */
export const HOSTILE_PATH_VALUES: string[] = [
  'x',
  '0',
  '-1',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-4fff-bfff-ffffffffffff',
  '%00',
  '..%2F..%2Fetc',
  '%F0%9F%98%80',
  '%E0%A4%A',
  'a'.repeat(2000),
  'null',
  '__proto__',
  'constructor',
  "1' OR '1'='1",
];

/**
 * Integers no field should take to the database unchecked: just past what a double holds
 * exactly (2^53 + 1), just past Postgres bigint (2^63), far past both, and negative. As text
 * (a query string is text; ajv coerces it) and as JSON numbers (the nearest doubles: 2^53 and
 * up, most past bigint).
 */
export const HUGE_INTEGER_TEXTS = ['9007199254740993', '9223372036854775808', '99999999999999999999', `1${'0'.repeat(40)}`, '-99999999999999999999'];
export const HUGE_INTEGERS = HUGE_INTEGER_TEXTS.map(Number);

/** Query values for declared and undeclared parameters. */
export const HOSTILE_QUERY: Record<string, string>[] = [
  { limit: '-1' },
  { limit: '0' },
  { limit: 'abc' },
  { limit: '1e9' },
  { limit: '99999999999999999999' },
  { offset: '-5' },
  { offset: '1.5' },
  { offset: '99999999999999999999' },
  { page: '0' },
  { page: '99999999999999999999' },
  { status: '__proto__' },
  { status: '' },
  { __proto__: 'x' } as Record<string, string>,
  { constructor: 'x' },
  { unknownParam: '1' },
  { from: 'not-a-date', to: '2020-13-45' },
  // Year 0, which Postgres reads as 1 BC: no ISO timestamp can show its buckets.
  { from: '0000-01-01', to: '0001-01-01' },
  { startDate: '0000-01-01', endDate: '0000-03-01' },
];

/** A value with one field (at any depth) replaced by a hostile value, or a key added. */
export function mutated(value: unknown): fc.Arbitrary<unknown> {
  const hostile = fc.constantFrom(...HOSTILE_VALUES);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return hostile;
  const keys = Object.keys(value as object);
  const replace = keys.length
    ? fc.tuple(fc.constantFrom(...keys), hostile).map(([k, v]) => ({ ...(value as object), [k]: v }))
    : hostile.map((v) => ({ field: v }));
  const drop = keys.length ? fc.constantFrom(...keys).map((k) => Object.fromEntries(Object.entries(value as object).filter(([key]) => key !== k))) : hostile;
  const addKey = fc.tuple(fc.constantFrom('__proto__', 'constructor', 'prototype', 'unexpectedField'), hostile).map(([k, v]) => ({ ...(value as object), ...own(k, v) }));
  return fc.oneof(replace, replace, drop, addKey, hostile);
}

interface ObjectSchema {
  type?: unknown;
  properties?: Record<string, ObjectSchema>;
}

/** Paths of a schema's integer fields, through nested objects (not arrays), up to `depth` levels. */
export function integerFields(schema: unknown, depth = 3): string[][] {
  const props = (schema as ObjectSchema | undefined)?.properties ?? {};
  return Object.entries(props).flatMap(([name, s]) => {
    const types = Array.isArray(s.type) ? s.type : [s.type];
    if (types.includes('integer')) return [[name]];
    return s.properties && depth > 1 ? integerFields(s, depth - 1).map((p) => [name, ...p]) : [];
  });
}

/**
 * Every variant of a valid value with one integer field of its schema set to one huge integer:
 * as text (query strings) or as a JSON number (bodies). Random mutations seldom pick an integer
 * field and a huge value together (an unbounded `offset` that Postgres refused as out of range
 * for bigint went unnoticed), so the fuzzer tries each of these on every operation.
 */
export function hugeIntegerVariants(value: unknown, schema: unknown, as: 'text' | 'number'): Record<string, unknown>[] {
  const values: unknown[] = as === 'text' ? HUGE_INTEGER_TEXTS : HUGE_INTEGERS;
  return integerFields(schema).flatMap((path) =>
    values.map((n) => {
      const root = (value !== null && typeof value === 'object' && !Array.isArray(value) ? structuredClone(value) : {}) as Record<string, unknown>;
      let at = root;
      for (const key of path.slice(0, -1)) {
        const next = at[key];
        at = at[key] = next !== null && typeof next === 'object' && !Array.isArray(next) ? (next as Record<string, unknown>) : {};
      }
      at[path[path.length - 1]!] = n;
      return root;
    }),
  );
}
