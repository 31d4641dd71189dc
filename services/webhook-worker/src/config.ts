import { Type } from '@sinclair/typebox';
import { baseConfigProperties, loadConfig } from '@pay/kit';

export const WorkerConfigSchema = Type.Object({
  ...baseConfigProperties,
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3003, description: 'health and metrics listener' }),
});

export function loadWorkerConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(WorkerConfigSchema, env);
}
export type WorkerConfig = ReturnType<typeof loadWorkerConfig>;
