/** What the pg driver adapter says about a failed query, when Prisma passes it on. */
interface DriverCause {
  kind?: string;
  /** Postgres SQLSTATE, e.g. 23505. */
  originalCode?: string;
  constraint?: { index?: string };
}

/** A query on the pg pool directly (hot paths) fails with pg's own error: SQLSTATE in `code`. */
interface PgError {
  code?: string;
  constraint?: string;
  severity?: string;
}

function failure(err: unknown): { code?: string; cause?: DriverCause } {
  const e = err as ({ code?: string; meta?: { driverAdapterError?: { cause?: DriverCause } } } & PgError) | null;
  if (e?.severity !== undefined && typeof e.code === 'string') {
    // pg's DatabaseError: read it as the adapter would have reported it.
    return { code: 'P2010', cause: { originalCode: e.code, constraint: e.constraint ? { index: e.constraint } : undefined } };
  }
  return { code: e?.code, cause: e?.meta?.driverAdapterError?.cause };
}

/** Socket-level failures of the pg driver (no server answer at all). */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const DRIVER_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection terminated unexpectedly)/;

/**
 * Whether a Prisma call or a pg pool query failed on a unique index: P2002 from typed writes,
 * Postgres's 23505 surfacing as P2010 from raw queries, or pg's own 23505. `index` narrows it to one index, so a retry meant for
 * one collision never swallows another.
 */
export function isUniqueViolation(err: unknown, index?: string): boolean {
  const { code, cause } = failure(err);
  const unique = code === 'P2002' || (code === 'P2010' && cause?.originalCode === '23505');
  return unique && (index === undefined || cause?.constraint?.index === index);
}

/** Driver-adapter error kinds that mean "the database cannot serve now", not "this request is wrong". */
const UNAVAILABLE_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
  'DatabaseDoesNotExist',
  'DatabaseAccessDenied',
  'AuthenticationFailed',
  'TlsConnectionError',
]);
/** Prisma's own codes for the same: unreachable, timed out, connection closed, pool exhausted. */
const UNAVAILABLE_CODES = new Set(['P1001', 'P1002', 'P1017', 'P2024']);

/**
 * Whether a Prisma call or a pg pool query failed because the database is unreachable or refusing connections
 * (including Postgres shutting down, 57P0x, or out of connections, 53300). Such a failure is
 * answered 503 with Retry-After: the request was fine and can be sent again.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const raw = err as { code?: unknown; message?: unknown } | null;
  if (typeof raw?.code === 'string' && NETWORK_CODES.has(raw.code)) return true;
  if (typeof raw?.message === 'string' && DRIVER_MESSAGES.test(raw.message)) return true;
  const { code, cause } = failure(err);
  if (code && UNAVAILABLE_CODES.has(code)) return true;
  if (cause?.kind && UNAVAILABLE_KINDS.has(cause.kind)) return true;
  const sqlState = cause?.originalCode ?? '';
  return sqlState.startsWith('57P') || sqlState === '53300';
}
