import { Type } from '@sinclair/typebox';
import { ConfigError, loadConfig, baseConfigProperties } from './config';

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
