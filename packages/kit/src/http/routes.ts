import { Router, type Request, type RequestHandler, type Response } from 'express';
import { Type } from '@sinclair/typebox';
import type { Static, TSchema } from '@sinclair/typebox';
import { ApiError, assertValid, compile, textAjv, toDetails, type ErrorCode } from '@pay/schemas';
import type { AuthContext } from '@pay/auth';
import { replayedError, withIdempotency, type IdempotencyStore } from './idempotency';
import { stringifyExact } from './exact-json';

export type AuthLevel = 'none' | 'key' | 'signed';
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface Reply {
  status?: number;
  body: unknown;
}

type StaticOr<S, D> = S extends TSchema ? Static<S> : D;

export interface HandlerContext<B, Q, P> {
  req: Request;
  res: Response;
  body: StaticOr<B, undefined>;
  query: StaticOr<Q, Record<string, never>>;
  params: StaticOr<P, Record<string, never>>;
  /** The authenticated caller; present on every route whose auth is not 'none'. */
  auth: AuthContext;
}

export interface RouteDef<B extends TSchema | undefined, Q extends TSchema | undefined, P extends TSchema | undefined> {
  method: Method;
  /** Express-style path, e.g. `/api/v1/api-keys/:keyId`. */
  path: string;
  summary: string;
  description?: string;
  tags?: string[];
  auth: AuthLevel;
  body?: B;
  query?: Q;
  params?: P;
  /** Accepts `Idempotency-Key` (decisions.md §4). */
  idempotent?: boolean;
  response: { status: number; schema: TSchema; description?: string };
  /** Business and validation errors this operation documents, besides the auth ones. */
  errors?: ErrorCode[];
  handler: (ctx: HandlerContext<B, Q, P>) => Promise<Reply> | Reply;
}

/** What the OpenAPI builder needs to know of a route. */
export interface Operation {
  method: Method;
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  auth: AuthLevel;
  body?: TSchema;
  query?: TSchema;
  params?: TSchema;
  idempotent: boolean;
  response: { status: number; schema: TSchema; description?: string };
  errors: ErrorCode[];
}

export interface ApiOptions {
  /** Guards per auth level: authentication, then rate limiting (`none` is limited per client). */
  auth: { none?: RequestHandler[]; key: RequestHandler[]; signed: RequestHandler[] };
  idempotency?: IdempotencyStore;
  /** In tests, every answer is checked against its declared schema, so contract drift fails loudly. */
  validateResponses?: boolean;
}

const JSON_TYPE = /^application\/(.+\+)?json\b/i;

const requireJsonBody: RequestHandler = (req, _res, next) => {
  const length = Number(req.headers['content-length'] ?? 0);
  const hasBody = length > 0 || req.headers['transfer-encoding'] !== undefined;
  if (hasBody && !JSON_TYPE.test(req.headers['content-type'] ?? '')) {
    next(new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Request body must be JSON with Content-Type: application/json'));
    return;
  }
  next();
};

/** Keys are per merchant and per mode: a test request can never replay into live. */
function idempotencyScope(req: Request, def: { method: string; path: string }): string {
  const who = req.auth ? `${req.auth.merchantId}:${req.auth.isTestMode ? 'test' : 'live'}` : 'public';
  return `${who}:${def.method}:${def.path}`;
}

/**
 * One declaration per operation feeds the router, the ajv validation at the edge and the
 * OpenAPI document, so the three can never disagree.
 */
/** A route without a query schema takes no query parameters: a typo must not pass silently. */
const NO_QUERY = Type.Object({}, { additionalProperties: false });

/** Finds the first string holding a NUL character (Postgres text cannot store one). */
function nulField(value: unknown, path: string[] = []): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path.join('.') || '(body)' : null;
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const found = nulField(v, [...path, k]);
      if (found) return found;
    }
  }
  return null;
}

function assertNoNul(value: unknown, root: string): void {
  const field = nulField(value);
  if (field) {
    const name = root ? `${root}.${field}` : field;
    throw new ApiError('VALIDATION_ERROR', `${name} must not contain NUL characters`, [{ field: name, message: 'must not contain NUL characters' }]);
  }
}

export class Api {
  /** Mount this: the operations, then 405 with `Allow` for a known path asked with another method. */
  readonly router = Router();
  readonly operations: Operation[] = [];
  private readonly handlers = Router();
  private readonly fallback = Router();
  private readonly methodsByPath = new Map<string, Set<string>>();

  constructor(private readonly opts: ApiOptions) {
    this.router.use(this.handlers, this.fallback);
  }

  route<B extends TSchema | undefined = undefined, Q extends TSchema | undefined = undefined, P extends TSchema | undefined = undefined>(
    def: RouteDef<B, Q, P>,
  ): this {
    const op: Operation = {
      method: def.method,
      path: def.path,
      summary: def.summary,
      description: def.description,
      tags: def.tags ?? [],
      auth: def.auth,
      body: def.body,
      query: def.query,
      params: def.params,
      idempotent: def.idempotent ?? false,
      response: def.response,
      errors: def.errors ?? [],
    };
    this.operations.push(op);
    const guards = (def.auth === 'none' ? this.opts.auth.none : this.opts.auth[def.auth]) ?? [];
    // Before auth: a body the server cannot read must not be reported as a bad signature.
    const mediaType: RequestHandler[] = def.body ? [requireJsonBody] : [];
    const handle: RequestHandler = async (req, res) => {
      const input = this.validateInput(def, req);
      const ctx = {
        req,
        res,
        ...input,
        get auth(): AuthContext {
          if (!req.auth) throw new Error(`route ${def.method.toUpperCase()} ${def.path} has no authenticated caller`);
          return req.auth;
        },
      } as HandlerContext<B, Q, P>;
      const run = async () => {
        const reply = await def.handler(ctx);
        const status = reply.status ?? def.response.status;
        const text = stringifyExact(reply.body);
        if (this.opts.validateResponses && status === def.response.status) this.checkResponse(def, text);
        return { status, text };
      };
      const result =
        def.idempotent && this.opts.idempotency
          ? await withIdempotency(this.opts.idempotency, idempotencyScope(req, def), req, res, run)
          : await run();
      const replayed = replayedError(result);
      if (replayed) throw replayed;
      res.status(result.status).type('application/json').send(result.text);
    };
    this.handlers[def.method](def.path, ...mediaType, ...guards, handle);
    this.allowMethod(def.path, def.method);
    return this;
  }

  private allowMethod(path: string, method: Method): void {
    let methods = this.methodsByPath.get(path);
    if (!methods) {
      this.methodsByPath.set(path, (methods = new Set()));
      const allowed = () => {
        const list = [...methods!].map((m) => m.toUpperCase());
        return list.includes('GET') ? [...list, 'HEAD'] : list;
      };
      // In the handlers router, or express would answer OPTIONS itself with a text body.
      this.handlers.options(path, (_req, res) => {
        res.setHeader('Allow', allowed().join(', '));
        res.status(204).end();
      });
      this.fallback.all(path, (req, res, next) => {
        res.setHeader('Allow', allowed().join(', '));
        next(new ApiError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${req.path}; allowed: ${allowed().join(', ')}`));
      });
    }
    methods.add(method);
  }

  private validateInput(def: RouteDef<TSchema | undefined, TSchema | undefined, TSchema | undefined>, req: Request) {
    const params = { ...req.params };
    if (def.params) assertValid(def.params, params, { ajv: textAjv, what: 'Path' });
    assertNoNul(params, '');
    const query = { ...(req.query as Record<string, unknown>) };
    assertNoNul(query, '');
    assertValid(def.query ?? NO_QUERY, query, { ajv: textAjv, what: 'Query' });
    let body: unknown = undefined;
    if (def.body) {
      body = req.body ?? {};
      assertNoNul(body, '');
      assertValid(def.body, body, { what: 'Request body' });
    }
    return { params, query, body };
  }

  private checkResponse(def: RouteDef<TSchema | undefined, TSchema | undefined, TSchema | undefined>, text: string): void {
    const validate = compile(def.response.schema);
    // The text the client receives, parsed: checked as the client sees it.
    if (!validate(JSON.parse(text))) {
      const problems = toDetails(validate.errors).map((d) => `${d.field} ${d.message}`).join('; ');
      throw new Error(`Response of ${def.method.toUpperCase()} ${def.path} breaks its schema: ${problems}`);
    }
  }
}
