import { startPgBouncer } from '@pay/testing';
import { defineSuite, type Suite } from '../lib/types';

/**
 * Scenarios of `suite` again with the measured process behind PgBouncer in transaction pooling
 * (Debian's pgbouncer in front of the bench database, `startPgBouncer`: the service's schema
 * entry as DATABASE_URL, DATABASE_POOLING=transaction, so its prepared statements go unnamed),
 * named `<scenario>@pgbouncer`, against the same bare baseline as the direct ones in the same
 * run. PgBouncer's pool per entry is the service's own DATABASE_POOL_MAX (20): the same number
 * of server connections as directly.
 */
export function throughPgBouncer<D>(suite: Suite<D>, service: string, scenarios: string[]): Suite<D> {
  return defineSuite<D>({
    name: `${suite.name}@pgbouncer`,
    async setup(config, env = {}) {
      const bouncer = await startPgBouncer(config.databaseUrl, { poolSize: 20 });
      try {
        const running = await suite.setup(config, { ...bouncer.envFor(service), ...env });
        return {
          ...running,
          logs: () => `${running.logs()}\n--- pgbouncer ---\n${bouncer.logs().slice(-2000)}`,
          stop: async () => {
            await running.stop();
            await bouncer.stop();
          },
        };
      } catch (err) {
        await bouncer.stop();
        throw err;
      }
    },
    scenarios: suite.scenarios.filter((s) => scenarios.includes(s.name)).map((s) => ({ ...s, name: `${s.name}@pgbouncer` })),
  });
}
