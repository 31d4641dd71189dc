import { Type } from '@sinclair/typebox';
import { ConfigError, loadConfig, baseConfigProperties, hashTagOf } from './config';
import { clusterNodesOf } from './redis';

const Schema = Type.Object({
  ...baseConfigProperties,
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3002 }),
});
const KEY = 'ab'.repeat(32);

describe('loadConfig', () => {
  it('coerces text and fills defaults', () => {
    const c = loadConfig(Schema, { SECRETS_KEY: KEY, PORT: '4000' });
    expect(c.PORT).toBe(4000);
    expect(c.DATABASE_URL).toBe('postgresql://root@127.0.0.1:5432/payments');
    expect(c.LOG_LEVEL).toBe('info');
  });

  it('reports every missing or bad value at once, with a hint', () => {
    let error: ConfigError | undefined;
    try {
      loadConfig(Schema, { PORT: 'eighty', DATABASE_URL: 'mysql://x', LOG_LEVEL: 'loud' });
    } catch (e) {
      error = e as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const text = error!.message;
    expect(text).toMatch(/SECRETS_KEY is required \(32-byte AES-256-GCM key/);
    expect(text).toMatch(/PORT must be integer/);
    expect(text).toMatch(/DATABASE_URL must match pattern .*postgresql:\/\/user@host/);
    expect(text).toMatch(/LOG_LEVEL/);
    expect(error!.problems.length).toBe(4);
  });

  it('refuses connection URLs that do not parse, naming the variable', () => {
    expect(() => loadConfig(Schema, { SECRETS_KEY: KEY, DATABASE_URL: 'postgresql://[bad', REDIS_URL: 'redis://127.0.0.1:notaport' })).toThrow(
      /DATABASE_URL must match format "parsable-url".*\n.*REDIS_URL must match format "parsable-url"/,
    );
    expect(() => loadConfig(Schema, { SECRETS_KEY: KEY, DATABASE_URL: 'postgres://u:p@db.internal:5432/pay', REDIS_URL: 'rediss://:pw@cache:6380/2' })).not.toThrow();
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig(Schema, { SECRETS_KEY: KEY, PORT: '' }).PORT).toBe(3002);
  });
});

describe('DATABASE_POOL_MAX', () => {
  it('is read from the environment (20 by default) and refused below 3', () => {
    const Schema = Type.Object(baseConfigProperties);
    const KEY = '0'.repeat(64);
    expect(loadConfig(Schema, { SECRETS_KEY: KEY }).DATABASE_POOL_MAX).toBe(20);
    expect(loadConfig(Schema, { SECRETS_KEY: KEY, DATABASE_POOL_MAX: '6' }).DATABASE_POOL_MAX).toBe(6);
    expect(() => loadConfig(Schema, { SECRETS_KEY: KEY, DATABASE_POOL_MAX: '2' })).toThrow(/DATABASE_POOL_MAX/);
  });


});

describe('REDIS_CLUSTER_NODES', () => {
  const Schema = Type.Object({ ...baseConfigProperties, QUEUE_PREFIX: Type.String({ default: 'bull' }) });
  const KEY = '0'.repeat(64);

  it('takes host:port, comma-separated, and refuses a URL', () => {
    expect(loadConfig(Schema, { SECRETS_KEY: KEY, REDIS_CLUSTER_NODES: 'redis-0.redis:6379, 10.0.0.2:6379', QUEUE_PREFIX: '{bull}' }).REDIS_CLUSTER_NODES).toBe('redis-0.redis:6379, 10.0.0.2:6379');
    expect(clusterNodesOf('redis-0.redis:6379, 10.0.0.2:6380')).toEqual([
      { host: 'redis-0.redis', port: 6379 },
      { host: '10.0.0.2', port: 6380 },
    ]);
    expect(() => loadConfig(Schema, { SECRETS_KEY: KEY, REDIS_CLUSTER_NODES: 'redis://10.0.0.2:6379', QUEUE_PREFIX: '{bull}' })).toThrow(/REDIS_CLUSTER_NODES must match pattern/);
  });

  it('needs a hash-tagged QUEUE_PREFIX, and says which', () => {
    const env = { SECRETS_KEY: KEY, REDIS_CLUSTER_NODES: '10.0.0.2:6379' };
    expect(() => loadConfig(Schema, env)).toThrow(/QUEUE_PREFIX must carry a hash tag on a Redis Cluster .*Set it to \{bull\} on every service/);
    // Redis hashes what lies between the first `{` and the first `}` after it, when not empty.
    expect(() => loadConfig(Schema, { ...env, QUEUE_PREFIX: '{}{bull}' })).toThrow(/QUEUE_PREFIX must carry a hash tag/);
    expect(loadConfig(Schema, { ...env, QUEUE_PREFIX: '{bull}' }).QUEUE_PREFIX).toBe('{bull}');
    expect(loadConfig(Schema, { ...env, QUEUE_PREFIX: 'pay:{bull}' }).QUEUE_PREFIX).toBe('pay:{bull}');
    expect(hashTagOf('rl:crypto:key:{m-1}:k:123')).toBe('m-1');
    // Without a cluster, any prefix.
    expect(loadConfig(Schema, { SECRETS_KEY: KEY }).QUEUE_PREFIX).toBe('bull');
  });
});
