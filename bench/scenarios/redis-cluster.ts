import { startRedisCluster } from '@pay/testing';
import { defineSuite, type Suite } from '../lib/types';

/**
 * Scenarios of `suite` again with the measured process on a Redis Cluster (`startRedisCluster`:
 * three masters from Debian's redis-server with a replica each, on private ports), configured as
 * ops would: REDIS_CLUSTER_NODES naming every node, a hash-tagged QUEUE_PREFIX. Named
 * `<scenario>@cluster`, against the same bare baseline as the direct ones in the same run (the
 * baseline touches no Redis). The cluster's six servers share the machine's cores with the
 * rest, as the one Redis of the direct runs does.
 */
export function onRedisCluster<D>(suite: Suite<D>, scenarios: string[]): Suite<D> {
  return defineSuite<D>({
    name: `${suite.name}@cluster`,
    async setup(config, env = {}) {
      const cluster = await startRedisCluster({ queuePrefix: '{bench}' });
      try {
        const running = await suite.setup(config, { ...cluster.env, ...env });
        return {
          ...running,
          stop: async () => {
            await running.stop();
            await cluster.stop();
          },
        };
      } catch (err) {
        await cluster.stop();
        throw err;
      }
    },
    scenarios: suite.scenarios.filter((s) => scenarios.includes(s.name)).map((s) => ({ ...s, name: `${s.name}@cluster` })),
  });
}
