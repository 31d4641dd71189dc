import type { AuthContext } from '@pay/auth';
import type { Owner } from './ledger/ledger';

export interface PageQuery {
  page: number;
  pageSize: number;
}

/** Prisma's skip/take for a 1-based page. */
export function pageWindow(q: PageQuery): { skip: number; take: number } {
  return { skip: (q.page - 1) * q.pageSize, take: q.pageSize };
}

/** The crypto API's paged list: `{ items, totalCount, page, pageSize }`. */
export function pageOf<T>(items: T[], totalCount: number, q: PageQuery) {
  return { items, totalCount, page: q.page, pageSize: q.pageSize };
}

/** Whose data a request reads and writes: the merchant, in the mode of the calling key. */
export function ownerOf(auth: AuthContext): Owner {
  return { merchantId: auth.merchantId, isTest: auth.isTestMode };
}
