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

/** Query values for declared and undeclared parameters. */
export const HOSTILE_QUERY: Record<string, string>[] = [
  { limit: '-1' },
  { limit: '0' },
  { limit: 'abc' },
  { limit: '1e9' },
  { limit: '99999999999999999999' },
  { offset: '-5' },
  { offset: '1.5' },
  { page: '0' },
  { status: '__proto__' },
  { status: '' },
  { __proto__: 'x' } as Record<string, string>,
  { constructor: 'x' },
  { unknownParam: '1' },
  { from: 'not-a-date', to: '2020-13-45' },
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
