import { Type, type TObject, type Static, type TProperties } from '@sinclair/typebox';
import { compile, StringEnum, textAjv, toDetails } from '@pay/schemas';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Reads the environment against a schema, coercing text to numbers and booleans and filling
 * defaults. Every problem is reported at once, so an operator fixes them in one go.
 */
export function loadConfig<T extends TObject>(schema: T, env: NodeJS.ProcessEnv = process.env): Static<T> {
  const values: Record<string, unknown> = {};
  for (const name of Object.keys(schema.properties)) {
    const raw = env[name];
    if (raw !== undefined && raw !== '') values[name] = raw;
  }
  const validate = compile(schema, textAjv);
  if (!validate(values)) {
    const problems = toDetails(validate.errors).map((d) => {
      const prop = schema.properties[d.field] as { description?: string } | undefined;
      const hint = prop?.description ? ` (${prop.description})` : '';
      return `${d.field} ${d.message}${hint}`;
    });
    throw new ConfigError(problems);
  }
  const clusterProblem = queuePrefixOnClusterProblem(values);
  if (clusterProblem) throw new ConfigError([clusterProblem]);
  return values as Static<T>;
}

/**
 * A key's hash tag as Redis Cluster reads it: what lies between the first `{` and the first `}`
 * after it, when not empty; null when the whole key is hashed.
 */
export function hashTagOf(key: string): string | null {
  const open = key.indexOf('{');
  const close = open < 0 ? -1 : key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : null;
}

/**
 * BullMQ's scripts touch many keys of a queue at once, which a Redis Cluster refuses
 * (CROSSSLOT) unless they hash to one slot: on a cluster the prefix must carry a hash tag.
 * Every service that shares queues must use the same prefix, so it is refused, not rewritten.
 */
function queuePrefixOnClusterProblem(values: Record<string, unknown>): string | null {
  const prefix = values.QUEUE_PREFIX;
  if (!values.REDIS_CLUSTER_NODES || typeof prefix !== 'string' || hashTagOf(prefix) !== null) return null;
  return `QUEUE_PREFIX must carry a hash tag on a Redis Cluster (REDIS_CLUSTER_NODES is set): BullMQ's scripts touch several keys of a queue, which must share one slot. Set it to {${prefix}} on every service`;
}

/** Variables every service reads; each service extends this with its own. */
export const baseConfigProperties = {
  NODE_ENV: StringEnum(['development', 'test', 'production'] as const, { default: 'development' }),
  LOG_LEVEL: StringEnum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, { default: 'info' }),
  HOST: Type.String({ default: '127.0.0.1' }),
  DATABASE_URL: Type.String({
    pattern: '^postgres(ql)?://',
    format: 'parsable-url',
    default: 'postgresql://root@127.0.0.1:5432/payments',
    description: 'PostgreSQL connection URL, postgresql://user@host:port/db',
  }),
  DATABASE_POOLING: StringEnum<'session' | 'transaction'>(['session', 'transaction'], {
    default: 'session',
    description:
      "transaction: DATABASE_URL is a PgBouncer in transaction pooling, so statements are sent unnamed (no named prepared statements) and the schema's search_path comes from the PgBouncer database entry (connect_query), not from the connection; session: Postgres itself or a session pooler",
  }),
  DATABASE_DIRECT_URL: Type.Optional(
    Type.String({
      pattern: '^postgres(ql)?://',
      format: 'parsable-url',
      description: 'Postgres itself, past any PgBouncer: LISTEN/NOTIFY and migrations need a session of their own; unset: DATABASE_URL',
    }),
  ),
  DATABASE_POOL_MAX: Type.Integer({
    minimum: 3,
    maximum: 500,
    default: 20,
    description:
      "the most Postgres connections this process opens: the size of its one pool (its client's, which the packages' tables share); pods x this must stay below Postgres' max_connections",
  }),
  REDIS_URL: Type.String({ pattern: '^rediss?://', format: 'parsable-url', default: 'redis://127.0.0.1:6379', description: 'redis://host:port' }),
  REDIS_CLUSTER_NODES: Type.Optional(
    Type.String({
      pattern: '^\\s*[^\\s,:]+:\\d{1,5}\\s*(,\\s*[^\\s,:]+:\\d{1,5}\\s*)*$',
      description:
        'a Redis Cluster instead of REDIS_URL: some of its nodes as host:port, comma-separated (the rest are found through them); QUEUE_PREFIX must then carry a hash tag, e.g. {bull}',
    }),
  ),
  BODY_LIMIT: Type.String({ default: '100kb', pattern: '^[0-9]+(b|kb|mb)$', description: 'e.g. 100kb' }),
  SHUTDOWN_TIMEOUT_MS: Type.Integer({ minimum: 0, default: 10000, description: 'bound on closing (listener, workers, pools) after the drain window' }),
  METRICS_TOKEN: Type.Optional(Type.String({ minLength: 16, description: 'when set, GET /metrics needs Authorization: Bearer <token>' })),
  SHUTDOWN_DRAIN_MS: Type.Integer({
    minimum: 0,
    default: 0,
    description: 'after SIGTERM, keep serving this long while /readyz answers 503, so a balancer stops sending first (set it above the readiness probe period behind one)',
  }),
  ALLOW_PRIVATE_WEBHOOK_URLS: Type.Boolean({
    default: false,
    description: 'let webhook URLs point to private, loopback or link-local addresses (local development only)',
  }),
  TRUST_PROXY: Type.String({
    default: '',
    pattern: '^(|\\d+|[0-9A-Fa-f:.]+(/\\d+)?(\\s*,\\s*[0-9A-Fa-f:.]+(/\\d+)?)*)$',
    description:
      'behind a proxy or ingress: how many proxy hops to trust (a number), or the proxies’ addresses/CIDRs (comma-separated), so that rate limits key on the client’s address from X-Forwarded-For; empty (default): the socket’s address, X-Forwarded-For ignored',
  }),
  RATE_LIMIT_PER_SECOND: Type.Integer({ minimum: 1, default: 100, description: 'requests per second per API key' }),
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: Type.Integer({ minimum: 1, default: 30, description: 'unauthenticated API requests (registration, console sign-in) per minute per client address' }),
  RATE_LIMIT_PAGES_PER_MINUTE: Type.Integer({
    minimum: 1,
    default: 600,
    description: "hosted pages (payment, KYC) and their status polls per minute per client address: many customers can share one carrier's address",
  }),
  SECRETS_KEY: Type.String({
    pattern: '^([0-9a-fA-F]{64}|[A-Za-z0-9+/_-]{43}=?)$',
    description: '32-byte AES-256-GCM key for HMAC secrets at rest, as 64 hex chars or base64; the same on every service',
  }),
} satisfies TProperties;

/** The base URL merchants see, when PUBLIC_URL is not set: this listener's own address. */
export function publicUrlOf(config: { PUBLIC_URL?: string; HOST: string; PORT: number }): string {
  if (config.PUBLIC_URL) return config.PUBLIC_URL.replace(/\/$/, '');
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
  return `http://${host}:${config.PORT}`;
}
