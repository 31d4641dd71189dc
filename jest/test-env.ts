/**
 * The environment every test process sees. Tests use their own databases (never the one the
 * local stack runs on) on the machine's real PostgreSQL and Redis: one database and one
 * Redis db per jest worker, so background loops of one test file never touch the rows of a
 * file running beside it. Files in one worker run one after another.
 */
export const MAX_WORKERS: number = require('./max-workers');

export function testEnv(workerId: string | number = process.env.JEST_WORKER_ID ?? '1'): Record<string, string> {
  const base = process.env.TEST_DATABASE_URL ?? 'postgresql://root@127.0.0.1:5432/payments_test';
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATABASE_URL: `${base}_w${workerId}`,
    REDIS_URL: `${process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'}/${Number(workerId) + 1}`,
    // A fast sandbox chain: 19 Tron confirmations take about 0.1 s.
    SANDBOX_BLOCK_MS: '5',
    TRACKER_INTERVAL_MS: '20',
    WITHDRAWAL_POLL_MS: '20',
    OUTBOX_INTERVAL_MS: '20',
    // Limits far above what tests send; rate-limit tests set their own.
    RATE_LIMIT_PER_SECOND: '100000',
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000',
    RATE_LIMIT_PAGES_PER_MINUTE: '100000',
    RATE_LIMIT_PAGE_PER_INVOICE_PER_MINUTE: '100000',
    // A fixed key is fine for throwaway test databases; real deployments set their own.
    SECRETS_KEY: '0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0',
  };
}
