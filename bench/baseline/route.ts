import type { Request } from 'express';
import type { Pool } from 'pg';

/**
 * A bare route of the baseline app: the SQL a service endpoint does, with no auth,
 * validation, logs or views. The app mounts it at `/<name><path>`; the bench sends it the
 * very requests it sends the service, under that prefix.
 */
export interface BaselineRoute {
  method: 'get' | 'post';
  /** The service's own path pattern, e.g. `/api/v1/invoices/:id`. */
  path: string;
  /** Creates what the route needs beyond the service's tables, once, when the app starts. */
  init?: (pool: Pool) => Promise<void>;
  handle: (pool: Pool, req: Request) => Promise<{ status: number; body: unknown }>;
}
