import { MAX_WORKERS, testEnv } from './test-env';

/**
 * Brings every worker's test database to the committed migrations, once per run, and names
 * the run, so tests of the built stack build it once per run (@pay/testing buildOncePerRun).
 * Workers start after this and inherit the variable.
 */
export default async function globalSetup(): Promise<void> {
  process.env.PAY_TEST_RUN = `${process.pid}-${Date.now()}`;
  const { deploy } = await import('../packages/migrate/src');
  for (let worker = 1; worker <= MAX_WORKERS; worker++) {
    await deploy({ databaseUrl: testEnv(worker).DATABASE_URL!, quiet: true });
  }
}
