/** The package's test helpers (`@pay/webhooks/test`): for tests only, never for what ships. */
export * from './store';

/**
 * The request headers every webhook of an OpenAPI document declares, in order, with whether
 * each is required: X-SVC-Signatures only during a rotated secret's overlap. Written out here,
 * not derived from WEBHOOK_HEADERS, so that both services' documents are held to the spec.
 */
export const DOCUMENTED_WEBHOOK_HEADERS: [name: string, required: boolean][] = [
  ['Content-Type', true],
  ['X-SVC-Event', true],
  ['X-SVC-Signature', true],
  ['X-SVC-Signatures', false],
  ['X-SVC-Timestamp', true],
  ['X-SVC-Delivery', true],
];
