import express, { Router, type RequestHandler } from 'express';
import type { TSchema } from '@sinclair/typebox';
import { ErrorDetailSchema, statusOf, type ErrorCode } from '@pay/schemas';
import type { Envelope } from './errors';
import type { AuthLevel, Operation } from './routes';
import type { UploadSpec } from './upload';
import { docsPage } from './docs-page';

export interface OpenApiInfo {
  title: string;
  version: string;
  description: string;
  serverUrl: string;
  /** How the signed operations sign (shown in the security scheme's description). */
  signing: string;
}

const AUTH_ERRORS: Record<AuthLevel, ErrorCode[]> = {
  none: ['RATE_LIMITED'],
  session: ['UNAUTHORIZED', 'FORBIDDEN', 'RATE_LIMITED'],
  key: ['UNAUTHORIZED', 'FORBIDDEN', 'RATE_LIMITED'],
  signed: ['UNAUTHORIZED', 'FORBIDDEN', 'INVALID_SIGNATURE', 'TIMESTAMP_OUT_OF_WINDOW', 'REPLAYED_REQUEST', 'RATE_LIMITED', 'SERVICE_UNAVAILABLE'],
};

/** TypeBox schemas are JSON Schema already; JSON round-trip drops its symbol markers. */
function plain(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}

function errorSchema(envelope: Envelope, codes: ErrorCode[]) {
  const error = {
    type: 'object',
    required: ['code', 'message'],
    properties: {
      code: { type: 'string', enum: codes },
      message: { type: 'string' },
      details: { type: 'array', items: plain(ErrorDetailSchema) },
    },
  };
  return envelope === 'success'
    ? { type: 'object', required: ['success', 'error'], properties: { success: { const: false }, error } }
    : { type: 'object', required: ['error'], properties: { error } };
}

type ObjectSchema = { properties?: Record<string, Record<string, unknown>>; required?: string[] };

/**
 * An input object schema as the client must fill it. TypeBox lists every field not marked
 * Optional as required, but validation fills a field that has a default (`limit`, `offset`,
 * `groupBy`): a request without it succeeds, so the document must not demand it.
 */
function requestSchema(schema: TSchema): ObjectSchema {
  const { required: all = [], ...rest } = plain(schema) as ObjectSchema;
  const required = all.filter((name) => rest.properties?.[name]?.default === undefined);
  return required.length > 0 ? { ...rest, required } : rest;
}

function parameters(schema: TSchema | undefined, where: 'query' | 'path') {
  if (!schema) return [];
  const s = requestSchema(schema);
  return Object.entries(s.properties ?? {}).map(([name, prop]) => ({
    name,
    in: where,
    required: where === 'path' || (s.required ?? []).includes(name),
    description: prop.description,
    schema: prop,
  }));
}

const SECURITY: Record<AuthLevel, Record<string, never[]>[]> = {
  none: [],
  key: [{ apiKey: [] }],
  signed: [{ apiKey: [], signature: [], timestamp: [] }],
  session: [{ session: [] }],
};

/** A multipart form as OpenAPI shows it: each file a binary string (its limits in the description), then the text fields. */
function uploadSchema(upload: UploadSpec, fields: TSchema | undefined) {
  const text = fields ? requestSchema(fields) : {};
  const files = Object.fromEntries(
    Object.entries(upload.files).map(([name, f]) => [
      name,
      { type: 'string', format: 'binary', description: `${f.types.join(', ')} (judged by content), at most ${f.maxBytes} bytes` },
    ]),
  );
  const required = [...Object.entries(upload.files).filter(([, f]) => f.required).map(([n]) => n), ...(text.required ?? [])];
  return { type: 'object', properties: { ...files, ...(text.properties ?? {}) }, required };
}

/** An outgoing request the service makes (OpenAPI 3.1 `webhooks`): what the receiver gets. */
export interface OutgoingWebhook {
  summary: string;
  description?: string;
  body: TSchema;
  /** A body as sent (with sample values), shown beside the schema. */
  example?: unknown;
  /** Request headers the receiver gets, with their meaning. */
  headers: Record<string, string>;
}

export function buildOpenApi(info: OpenApiInfo, operations: Operation[], webhooks: Record<string, OutgoingWebhook> = {}) {
  assertUniqueOperationIds(operations);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const path = op.path.replace(/:(\w+)/g, '{$1}');
    const envelope = op.envelope;
    const codes = [...AUTH_ERRORS[op.auth], ...op.errors, 'VALIDATION_ERROR' as const, 'METHOD_NOT_ALLOWED' as const];
    if (op.body || op.upload) codes.push('PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE');
    if (op.idempotent) codes.push('IDEMPOTENCY_CONFLICT', 'IDEMPOTENCY_IN_PROGRESS');
    const byStatus = new Map<number, ErrorCode[]>();
    for (const code of new Set(codes)) {
      const status = statusOf(code);
      byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
    }
    const responses: Record<string, unknown> = {
      [op.response.status]: {
        description: op.response.description ?? 'Success',
        content: op.response.file
          ? Object.fromEntries(op.response.file.map((type) => [type, { schema: { type: 'string', format: 'binary' } }]))
          : { 'application/json': { schema: plain(op.response.schema) } },
      },
    };
    for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
      responses[status] = {
        description: list.join(', '),
        content: { 'application/json': { schema: errorSchema(envelope, list) } },
      };
    }
    const headers = op.idempotent
      ? [{ name: 'Idempotency-Key', in: 'header', required: false, description: 'A retry with the same key (up to 255 characters) within 24 h gets the first answer again instead of running twice; the same key with a different body is refused with 409 IDEMPOTENCY_CONFLICT', schema: { type: 'string', maxLength: 255 } }]
      : [];
    paths[path] ??= {};
    paths[path][op.method] = {
      operationId: op.operationId,
      summary: op.summary,
      description: op.description,
      tags: op.tags,
      security: SECURITY[op.auth],
      parameters: [...parameters(op.params, 'path'), ...parameters(op.query, 'query'), ...headers],
      ...(op.upload
        ? { requestBody: { required: true, content: { 'multipart/form-data': { schema: uploadSchema(op.upload, op.body) } } } }
        : op.body
          ? { requestBody: { required: true, content: { 'application/json': { schema: requestSchema(op.body) } } } }
          : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version, description: info.description },
    servers: [{ url: info.serverUrl }],
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
        timestamp: { type: 'apiKey', in: 'header', name: 'X-Timestamp', description: info.signing },
        signature: { type: 'apiKey', in: 'header', name: 'X-Signature', description: info.signing },
        session: { type: 'apiKey', in: 'cookie', name: 'console_session', description: 'Web console session; changes also carry X-CSRF-Token' },
      },
    },
    paths,
    ...(Object.keys(webhooks).length > 0 ? { webhooks: webhooksSection(webhooks) } : {}),
  };
}

/** Two operations of one document under one name would give the SDK two methods of one name. */
function assertUniqueOperationIds(operations: Operation[]): void {
  const seen = new Map<string, Operation>();
  for (const op of operations) {
    const first = seen.get(op.operationId);
    if (first) {
      throw new Error(`operationId "${op.operationId}" names both ${first.method.toUpperCase()} ${first.path} and ${op.method.toUpperCase()} ${op.path}: give each its own`);
    }
    seen.set(op.operationId, op);
  }
}

/** `invoice.paid` → `invoicePaidWebhook`: the stable operationId of an outgoing webhook. */
export function webhookOperationId(event: string): string {
  return `${event.replace(/[._](\w)/g, (_m, c: string) => c.toUpperCase())}Webhook`;
}

function webhooksSection(webhooks: Record<string, OutgoingWebhook>) {
  return Object.fromEntries(
    Object.entries(webhooks).map(([name, w]) => [
      name,
      {
        post: {
          operationId: webhookOperationId(name),
          summary: w.summary,
          description: w.description,
          parameters: Object.entries(w.headers).map(([header, description]) => ({ name: header, in: 'header', required: true, description, schema: { type: 'string' } })),
          requestBody: { required: true, content: { 'application/json': { schema: plain(w.body), ...(w.example === undefined ? {} : { example: w.example }) } } },
          // The platform calls the merchant: no credential of ours is asked of anyone.
          security: [],
          responses: { '2XX': { description: 'Any 2xx answer within 10 s marks the delivery succeeded; anything else is retried' } },
        },
      },
    ]),
  );
}

/**
 * /openapi.json and a readable /docs page. Swagger UI is served from the installed
 * swagger-ui-dist package, never from a CDN, so the docs work offline. Nothing of it is
 * loaded until the docs are first asked for; `build` makes the document then, once.
 */
export function docsRoutes(title: string, build: () => unknown): Router {
  const router = Router();
  let document: unknown;
  let page: string | undefined;
  let assets: RequestHandler | undefined;
  router.get('/openapi.json', (_req, res) => {
    res.json((document ??= build()));
  });
  router.get('/docs', (_req, res) => {
    res.type('html').send((page ??= docsPage(title)));
  });
  router.use('/docs/assets', (req, res, next) => {
    // The path helper only: the package's index evaluates the whole 1.5 MB bundle in Node.
    assets ??= express.static((require('swagger-ui-dist/absolute-path.js') as () => string)(), { index: false, maxAge: '1h' });
    assets(req, res, next);
  });
  return router;
}
