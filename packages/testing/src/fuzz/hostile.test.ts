import { Type } from '@sinclair/typebox';
import { HUGE_INTEGER_TEXTS, hugeIntegerVariants, integerFields } from './hostile';

const Query = Type.Object({ limit: Type.Integer({ minimum: 1 }), offset: Type.Integer({ minimum: 0 }), status: Type.Optional(Type.String()) });
const Body = Type.Object({ name: Type.String(), nested: Type.Object({ count: Type.Optional(Type.Integer()) }), amount: Type.Number() });
const BIGINT_MAX = 2n ** 63n - 1n;

describe('huge integers for integer fields', () => {
  it('finds the integer fields of a schema, nested objects included', () => {
    expect(integerFields(Query)).toEqual([['limit'], ['offset']]);
    expect(integerFields(Body)).toEqual([['nested', 'count']]);
    expect(integerFields(Type.Object({ a: Type.String() }))).toEqual([]);
    expect(integerFields(undefined)).toEqual([]);
  });

  it('are past 2^53, most past Postgres bigint', () => {
    const values = HUGE_INTEGER_TEXTS.map((t) => BigInt(t));
    expect(values.every((n) => n > 2n ** 53n || n < -(2n ** 53n))).toBe(true);
    expect(values.filter((n) => n > BIGINT_MAX || n < -BIGINT_MAX - 1n)).toHaveLength(4);
  });

  it('set each integer field to each huge value in turn, as query text or JSON numbers, leaving the valid value as it was', () => {
    const valid = Object.freeze({ limit: 5, offset: 0, status: 'PAID' });
    const queries = hugeIntegerVariants(valid, Query, 'text');
    expect(queries).toHaveLength(2 * HUGE_INTEGER_TEXTS.length);
    expect(queries.filter((q) => q.offset === '99999999999999999999')).toEqual([{ limit: 5, offset: '99999999999999999999', status: 'PAID' }]);
    expect(queries.filter((q) => q.limit === '9223372036854775808')).toEqual([{ limit: '9223372036854775808', offset: 0, status: 'PAID' }]);
    const bodies = hugeIntegerVariants({ name: 'x', amount: 1 }, Body, 'number') as { nested: { count: number } }[];
    expect(bodies).toHaveLength(HUGE_INTEGER_TEXTS.length);
    for (const b of bodies) expect(Math.abs(b.nested.count)).toBeGreaterThanOrEqual(2 ** 53);
    expect(bodies.filter((b) => BigInt(b.nested.count) > BIGINT_MAX)).toHaveLength(3);
    expect(hugeIntegerVariants({ a: 1 }, Type.Object({ a: Type.String() }), 'text')).toEqual([]);
  });
});
