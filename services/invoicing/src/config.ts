import { Type } from '@sinclair/typebox';
import { baseConfigProperties, loadConfig } from '@pay/kit';

export const InvoicingConfigSchema = Type.Object({
  ...baseConfigProperties,
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3001 }),
  PUBLIC_URL: Type.String({ default: 'http://127.0.0.1:3001', description: 'base_url as merchants see it' }),
});

export function loadInvoicingConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(InvoicingConfigSchema, env);
}
export type InvoicingConfig = ReturnType<typeof loadInvoicingConfig>;
