import { Type, type TSchema, type TUnsafe } from '@sinclair/typebox';

export const Uuid = Type.String({ format: 'uuid' });
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC' });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);
export const Email = Type.String({ format: 'email', maxLength: 254 });
export const HttpUrl = Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048 });

/** A decimal amount as a JSON number. Exact decimals are kept by the service. */
export const Amount = Type.Number({ description: 'Decimal amount' });

/** One failing field, or one failing row of an uploaded file (`row`, `externalId`: see ErrorDetail). */
export const ErrorDetailSchema = Type.Object({
  field: Type.String(),
  message: Type.String(),
  row: Type.Optional(Type.Integer({ minimum: 1, description: 'Row errors of an uploaded CSV file: the 1-based data row (header not counted)' })),
  externalId: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'Row errors of an uploaded CSV file: the row’s externalId, null when it has none' })),
}, { title: 'ErrorDetail' });

export const ErrorBody = Type.Object({
  code: Type.String(),
  message: Type.String(),
  details: Type.Optional(Type.Array(ErrorDetailSchema)),
});

/** Crypto and invoicing v2 error envelope. */
export const ErrorEnvelope = Type.Object({ success: Type.Literal(false), error: ErrorBody });
/** Invoicing v1 error body. */
export const BareErrorEnvelope = Type.Object({ error: ErrorBody });

/** `{ data }` with an optional `message`; the API's envelope adds `success: true`. */
export function DataBody<T extends TSchema>(data: T, opts: { message?: boolean } = {}) {
  return Type.Object({
    data,
    ...(opts.message ? { message: Type.String() } : {}),
  });
}

/** The crypto API's paged list: `data = { items, totalCount, page, pageSize }`. */
export function PagedData<T extends TSchema>(item: T) {
  // A page of named items is named after them (`InvoicePage`): one model per kind of page.
  return Type.Object(
    {
      items: Type.Array(item),
      totalCount: Type.Integer(),
      page: Type.Integer(),
      pageSize: Type.Integer(),
    },
    item.title ? { title: `${item.title}Page` } : {},
  );
}

/**
 * The furthest a list reaches: rows skipped (`offset`, or `(page - 1) * pageSize`) stay at most
 * this. Without a bound a query value such as 99999999999999999999 reached Postgres, which
 * refused it as out of range for bigint (a 500); 10^9 also fits Prisma's 32-bit `skip`.
 */
export const MAX_OFFSET = 1_000_000_000;
const MAX_PAGE_SIZE = 100;

export const PageQuery = {
  page: Type.Integer({ minimum: 1, maximum: MAX_OFFSET / MAX_PAGE_SIZE, default: 1, description: `Default 1, at most ${MAX_OFFSET / MAX_PAGE_SIZE}` }),
  pageSize: Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: 20, description: `Default 20, at most ${MAX_PAGE_SIZE}` }),
};

/** Invoicing v2 list query fields: `limit` (default 50, at most `maxLimit`) and `offset` (default 0, at most MAX_OFFSET). */
export function OffsetQuery(maxLimit: number) {
  return {
    limit: Type.Integer({ minimum: 1, maximum: maxLimit, default: 50, description: `Default 50, at most ${maxLimit}` }),
    offset: Type.Integer({ minimum: 0, maximum: MAX_OFFSET, default: 0, description: `Rows to skip: default 0, at most ${MAX_OFFSET}` }),
  };
}

/** Invoicing v2 paged list: `{ data: [...], pagination }` (the envelope adds `success`). */
export function OffsetPage<T extends TSchema>(item: T) {
  return Type.Object({
    data: Type.Array(item),
    pagination: Type.Object(
      {
        total: Type.Integer({ minimum: 0 }),
        limit: Type.Integer({ minimum: 1 }),
        offset: Type.Integer({ minimum: 0 }),
        pages: Type.Integer({ minimum: 0, description: 'ceil(total / limit)' }),
      },
      { title: 'Pagination' },
    ),
  });
}

/** A string enum as a union of literals, so the static type is the union of the values. */
export function StringEnum<T extends string>(values: readonly T[], options: { description?: string; default?: T; title?: string } = {}): TUnsafe<T> {
  // A JSON Schema `enum` (not anyOf of consts): ajv then says "must be one of: …".
  return Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });
}
