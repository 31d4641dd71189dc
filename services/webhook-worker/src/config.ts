import { Type } from '@sinclair/typebox';
import { baseConfigProperties, loadConfig } from '@pay/runtime';
import { DELIVERY_TIMEOUT_MS, DEFAULT_WORKER_TTL_MS } from '@pay/webhooks';

export const WorkerConfigSchema = Type.Object({
  ...baseConfigProperties,
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3003, description: 'health and metrics listener' }),
  QUEUE_PREFIX: Type.String({ default: 'bull', description: 'BullMQ key prefix; the same as the services that wake the worker' }),
  WEBHOOK_CONCURRENCY: Type.Integer({ minimum: 1, default: 200, description: 'requests in flight at once, all endpoints together' }),
  WEBHOOK_ENDPOINT_CONCURRENCY: Type.Integer({ minimum: 1, default: 20, description: 'requests in flight at once to one endpoint' }),
  WEBHOOK_POLL_INTERVAL_MS: Type.Integer({ minimum: 1, default: 100, description: 'how often new events and due deliveries are looked for when nothing wakes the worker' }),
  WEBHOOK_TIMEOUT_MS: Type.Integer({ minimum: 1, default: DELIVERY_TIMEOUT_MS, description: 'a delivery request is abandoned after this long (10 s in the spec)' }),
  WEBHOOK_WORKER_TTL_MS: Type.Integer({ minimum: 300, default: DEFAULT_WORKER_TTL_MS, description: "a killed worker's deliveries are taken over after this long" }),
});

export function loadWorkerConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(WorkerConfigSchema, env);
}
export type WorkerConfig = ReturnType<typeof loadWorkerConfig>;
