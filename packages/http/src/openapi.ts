import express, { Router, type RequestHandler } from 'express';
import type { TSchema } from '@sinclair/typebox';
import { ErrorDetailSchema, statusOf, type ErrorCode } from '@pay/schemas';
import { SIGNING_STYLES, type SigningStyle } from '@pay/auth';
import type { Envelope } from './errors';
import { exampleOf } from './openapi-examples';
import { ERROR_MEANINGS } from './openapi-errors';
import { pascalCase, plainSchema, SchemaComponents } from './openapi-components';
import { signingGuide, signingRule, type SignedExample } from './signing-guide';
import type { AuthLevel, Operation } from './routes';
import type { UploadSpec } from './upload';
import { docsPage, DOCS_PHONE_CSS } from './docs-page';

export interface OpenApiInfo {
  title: string;
  version: string;
  description: string;
  /** The base URL the document names by default (`servers`' `baseUrl` variable): the service's PUBLIC_URL. */
  serverUrl: string;
  /** How the signed operations sign, with the request each language's sample sends; absent when none is signed. */
  signing?: { style: SigningStyle; example: SignedExample };
  /** What else to say of credentials (e.g. that v1 takes the key alone), after the rule. */
  credentialsNote?: string;
}

const AUTH_ERRORS: Record<AuthLevel, ErrorCode[]> = {
  none: ['RATE_LIMITED'],
  session: ['UNAUTHORIZED', 'FORBIDDEN', 'RATE_LIMITED'],
  key: ['UNAUTHORIZED', 'FORBIDDEN', 'RATE_LIMITED'],
  signed: ['UNAUTHORIZED', 'FORBIDDEN', 'INVALID_SIGNATURE', 'TIMESTAMP_OUT_OF_WINDOW', 'REPLAYED_REQUEST', 'RATE_LIMITED', 'SERVICE_UNAVAILABLE'],
};

/** Every error code an operation can answer: its credentials', its own, and those of how it is sent. */
export function operationErrors(op: Operation): ErrorCode[] {
  const codes: ErrorCode[] = [...AUTH_ERRORS[op.auth], ...op.errors, 'VALIDATION_ERROR', 'METHOD_NOT_ALLOWED'];
  if (op.body || op.upload) codes.push('PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE');
  if (op.idempotent) codes.push('IDEMPOTENCY_CONFLICT', 'IDEMPOTENCY_IN_PROGRESS');
  return [...new Set(codes)];
}

type ObjectSchema = { properties?: Record<string, Record<string, unknown>>; required?: string[] };

/**
 * An input object schema as the client must fill it. TypeBox lists every field not marked
 * Optional as required, but validation fills a field that has a default (`limit`, `offset`,
 * `groupBy`): a request without it succeeds, so the document must not demand it.
 */
function requestSchema(schema: TSchema): ObjectSchema {
  const { required: all = [], title, ...rest } = plainSchema(schema) as ObjectSchema & { title?: string };
  const required = all.filter((name) => rest.properties?.[name]?.default === undefined);
  // Loosened, it is no longer the schema its title names (which an answer may use as it is).
  const named = required.length === all.length && title !== undefined ? { title } : {};
  return required.length > 0 ? { ...named, ...rest, required } : { ...named, ...rest };
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
  /** Request headers the receiver gets, with their meaning, and whether every request carries them. */
  headers: Record<string, { description: string; always: boolean }>;
}

/** Response headers the services send (request-context, rate limits, idempotency), declared once under `components.headers`. */
const HEADERS = {
  'X-Request-Id': { description: 'The request’s id (yours, if you sent a well-formed X-Request-Id): quote it to support', schema: { type: 'string' } },
  'X-RateLimit-Limit': { description: 'Requests allowed in the current window (per API key per second; per client address per minute without a key)', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window', schema: { type: 'integer' } },
  'Retry-After': { description: 'Seconds to wait before sending the request again', schema: { type: 'integer' } },
  'Idempotent-Replayed': { description: '`true` when this is the stored answer of an earlier request with the same Idempotency-Key', schema: { type: 'string', enum: ['true'] } },
};
type HeaderName = keyof typeof HEADERS;
const headerRefs = (names: HeaderName[]) => Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${n}` }]));

/** The headers of an answer of `op` with `status`. */
function responseHeaders(op: Operation, status: number): Record<string, unknown> {
  const names: HeaderName[] = ['X-Request-Id'];
  // Counted once the caller is known (the key's limit), or at once (the address's, for `none`).
  if (op.auth !== 'session' && status !== 401) names.push('X-RateLimit-Limit', 'X-RateLimit-Remaining');
  if (status === 429 || status === 503) names.push('Retry-After');
  if (op.idempotent && status < 500) names.push('Idempotent-Replayed');
  return headerRefs(names);
}

/** The error envelope of an API face, named once: v2 and crypto `{ success: false, error }`, invoicing v1 `{ error }`. */
const ENVELOPE_NAME: Record<Envelope, string> = { success: 'ErrorResponse', bare: 'V1ErrorResponse' };

function errorComponents(envelopes: Set<Envelope>, codes: ErrorCode[], components: SchemaComponents) {
  const schemas: Record<string, unknown> = {
    ErrorCode: { title: 'ErrorCode', type: 'string', enum: codes, description: 'Every code this API answers; each operation lists its own in its error responses (`x-error-codes`)' },
    Error: {
      title: 'Error',
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: SchemaComponents.ref('ErrorCode'),
        message: { type: 'string', description: 'What went wrong and what to fix, in English' },
        details: { type: 'array', items: components.use(ErrorDetailSchema), description: 'Each failing field (or row of an uploaded file)' },
      },
      additionalProperties: false,
    },
  };
  if (envelopes.has('success')) {
    schemas.ErrorResponse = { title: 'ErrorResponse', type: 'object', required: ['success', 'error'], properties: { success: { const: false }, error: SchemaComponents.ref('Error') }, additionalProperties: false };
  }
  if (envelopes.has('bare')) {
    schemas.V1ErrorResponse = { title: 'V1ErrorResponse', type: 'object', required: ['error'], properties: { error: SchemaComponents.ref('Error') }, additionalProperties: false };
  }
  for (const schema of Object.values(schemas)) components.use(schema);
}

/** The error answers of `op` by status: the envelope's `$ref`, the codes (words and `x-error-codes`), an example of each code. */
function errorResponses(op: Operation): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of operationErrors(op)) {
    const status = statusOf(code);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, unknown> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const example = (code: ErrorCode) => {
      const error = { code, message: ERROR_MEANINGS[code] };
      return op.envelope === 'success' ? { success: false, error } : { error };
    };
    responses[status] = {
      description: codes.map((c) => `${c}: ${ERROR_MEANINGS[c]}`).join('. '),
      headers: responseHeaders(op, status),
      'x-error-codes': codes,
      content: {
        'application/json': {
          schema: SchemaComponents.ref(ENVELOPE_NAME[op.envelope]),
          examples: Object.fromEntries(codes.map((c) => [c, { summary: c, value: example(c) }])),
        },
      },
    };
  }
  return responses;
}

export function buildOpenApi(info: OpenApiInfo, operations: Operation[], webhooks: Record<string, OutgoingWebhook> = {}) {
  assertUniqueOperationIds(operations);
  const components = new SchemaComponents();
  // The error schemas first: the codes of every operation, in the order of the ErrorCode list.
  const codes = new Set(operations.flatMap(operationErrors));
  errorComponents(new Set(operations.map((op) => op.envelope)), [...codes].sort(), components);
  const resolve = (ref: string) => components.schemas[ref.replace('#/components/schemas/', '')] as Record<string, unknown>;
  const example = (schema: Record<string, unknown>, where: string) => exampleOf(schema, resolve, where);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const path = op.path.replace(/:(\w+)/g, '{$1}');
    const name = pascalCase(op.operationId);
    const where = `${op.method.toUpperCase()} ${op.path}`;
    const success = op.response.file
      ? Object.fromEntries(op.response.file.map((type) => [type, { schema: { type: 'string', format: 'binary' } }]))
      : (() => {
          const schema = components.useNamed(`${name}Response`, op.response.schema);
          return { 'application/json': { schema, example: example(schema, `${where} answer`) } };
        })();
    const responses: Record<string, unknown> = {
      [op.response.status]: { description: op.response.description ?? 'Success', headers: responseHeaders(op, op.response.status), content: success },
      ...errorResponses(op),
    };
    const parameters = [
      ...parameterList(op.params, 'path', components),
      ...parameterList(op.query, 'query', components),
      ...(op.idempotent
        ? [{ name: 'Idempotency-Key', in: 'header', required: false, description: 'A retry with the same key (up to 255 characters) within 24 h gets the first answer again instead of running twice; the same key with a different body is refused with 409 IDEMPOTENCY_CONFLICT', schema: { type: 'string', maxLength: 255 }, example: 'order-42-create' }]
        : []),
    ].map((p) => ({ ...p, example: p.example ?? example(p.schema as Record<string, unknown>, `${where} ${p.name}`) }));
    let requestBody: Record<string, unknown> | undefined;
    if (op.upload) {
      // A form: each file a binary string, then the text fields.
      const schema = components.useNamed(`${name}Form`, uploadSchema(op.upload, op.body));
      requestBody = { required: true, content: { 'multipart/form-data': { schema } } };
    } else if (op.body) {
      const schema = components.useNamed(`${name}Request`, requestSchema(op.body));
      requestBody = { required: true, content: { 'application/json': { schema, example: example(schema, `${where} body`) } } };
    }
    paths[path] ??= {};
    paths[path][op.method] = {
      operationId: op.operationId,
      summary: op.summary,
      description: op.description,
      tags: op.tags,
      security: SECURITY[op.auth],
      parameters,
      ...(requestBody ? { requestBody } : {}),
      responses,
    };
  }
  const tags = [...new Set(operations.flatMap((op) => op.tags))];
  return {
    openapi: '3.1.0',
    info: {
      title: info.title,
      version: info.version,
      description: [info.description, info.signing ? signingGuide(info.signing.style, info.signing.example) : '', info.credentialsNote ?? ''].filter(Boolean).join('\n\n'),
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [
      {
        url: '{baseUrl}',
        description: 'Your deployment of the service',
        variables: { baseUrl: { default: info.serverUrl, description: 'The service’s public base URL (its PUBLIC_URL), without a trailing slash' } },
      },
    ],
    tags: tags.map((name) => ({ name, description: TAG_WORDS[name] ?? `Operations on ${name}` })),
    components: {
      schemas: components.schemas,
      headers: HEADERS,
      // Only the schemes an operation uses: a declared but unused one is noise to a generator (and a linter warning).
      securitySchemes: usedSchemes(operations, {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'The merchant’s API key (live or test: a test key works in test mode, with the sandbox)' },
        ...(info.signing
          ? {
              timestamp: { type: 'apiKey', in: 'header', name: SIGNING_STYLES[info.signing.style].timestampHeader, description: signingRule(info.signing.style) },
              signature: { type: 'apiKey', in: 'header', name: SIGNING_STYLES[info.signing.style].signatureHeader, description: signingRule(info.signing.style) },
            }
          : {}),
        session: { type: 'apiKey', in: 'cookie', name: 'console_session', description: 'Web console session; changes also carry X-CSRF-Token' },
      }),
    },
    paths,
    ...(Object.keys(webhooks).length > 0 ? { webhooks: webhooksSection(webhooks, components) } : {}),
  };
}

function usedSchemes(operations: Operation[], schemes: Record<string, unknown>): Record<string, unknown> {
  const used = new Set(operations.flatMap((op) => SECURITY[op.auth].flatMap((s) => Object.keys(s))));
  return Object.fromEntries(Object.entries(schemes).filter(([name]) => used.has(name)));
}

/** Tags whose words say more than their name. */
const TAG_WORDS: Record<string, string> = {};

function parameterList(schema: TSchema | undefined, where: 'query' | 'path', components: SchemaComponents) {
  if (!schema) return [];
  const s = requestSchema(schema);
  return Object.entries(s.properties ?? {}).map(([name, prop]) => ({
    name,
    in: where,
    required: where === 'path' || (s.required ?? []).includes(name),
    description: prop.description as string | undefined,
    schema: components.use(prop) as Record<string, unknown>,
    example: undefined as unknown,
  }));
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

function webhooksSection(webhooks: Record<string, OutgoingWebhook>, components: SchemaComponents) {
  return Object.fromEntries(
    Object.entries(webhooks).map(([name, w]) => [
      name,
      {
        post: {
          operationId: webhookOperationId(name),
          summary: w.summary,
          description: w.description,
          parameters: Object.entries(w.headers).map(([header, { description, always }]) => ({ name: header, in: 'header', required: always, description, schema: { type: 'string' } })),
          requestBody: {
            required: true,
            content: { 'application/json': { schema: components.useNamed(`${pascalCase(name)}Event`, w.body), ...(w.example === undefined ? {} : { example: w.example }) } },
          },
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
  router.get('/docs/phone.css', (_req, res) => {
    res.type('css').set('Cache-Control', 'public, max-age=3600').send(DOCS_PHONE_CSS);
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
