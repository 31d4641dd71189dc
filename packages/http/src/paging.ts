/**
 * The two list shapes of the contract, computed in one place:
 * - the crypto API pages by number: `{ items, totalCount, page, pageSize }`;
 * - invoicing v2 pages by offset: `{ data, pagination: { total, limit, offset, pages } }`.
 * Their query schemas are `PageQuery` and `OffsetQuery` in @pay/schemas.
 */

export interface PageQuery {
  page: number;
  pageSize: number;
}

/** SQL/Prisma window for a 1-based page. */
export function pageWindow(q: PageQuery): { skip: number; take: number } {
  return { skip: (q.page - 1) * q.pageSize, take: q.pageSize };
}

/** The crypto API's paged list. */
export function pageOf<T>(items: T[], totalCount: number, q: PageQuery) {
  return { items, totalCount, page: q.page, pageSize: q.pageSize };
}

export interface OffsetQuery {
  limit: number;
  offset: number;
}

/** The v2 pagination block: `pages` counts pages of `limit` rows (0 when nothing matches). */
export function paginationOf(total: number, q: OffsetQuery) {
  return { total, limit: q.limit, offset: q.offset, pages: Math.ceil(total / q.limit) };
}
