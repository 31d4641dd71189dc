import { MAX_WORKERS, testEnv } from './test-env';

/** Brings every worker's test database to the committed migrations, once per run. */
export default async function globalSetup(): Promise<void> {
  const { deploy } = await import('../packages/migrate/src');
  for (let worker = 1; worker <= MAX_WORKERS; worker++) {
    await deploy({ databaseUrl: testEnv(worker).DATABASE_URL!, quiet: true });
  }
}
