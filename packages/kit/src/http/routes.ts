import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { Static, TSchema } from '@sinclair/typebox';
import { ApiError, assertValid, compile, textAjv, toDetails, type ErrorCode } from '@pay/schemas';
import type { AuthContext } from '@pay/auth';
import { replayedError, withIdempotency, type IdempotencyStore } from './idempotency';

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
  auth: { key: RequestHandler[]; signed: RequestHandler[] };
  idempotency?: IdempotencyStore;
  /** In tests, every answer is checked against its declared schema, so contract drift fails loudly. */
  validateResponses?: boolean;
}

const JSON_TYPE = /^application\/(.+\+)?json\b/i;

/**
 * One declaration per operation feeds the router, the ajv validation at the edge and the
 * OpenAPI document, so the three can never disagree.
 */
export class Api {
  readonly router = Router();
  readonly operations: Operation[] = [];

  constructor(private readonly opts: ApiOptions) {}

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
    const guards = def.auth === 'none' ? [] : this.opts.auth[def.auth];
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
        return { status: reply.status ?? def.response.status, body: reply.body };
      };
      const result =
        def.idempotent && this.opts.idempotency
          ? await withIdempotency(this.opts.idempotency, `${req.auth?.merchantId ?? 'public'}:${def.method}:${def.path}`, req, res, run)
          : await run();
      const replayed = replayedError(result.body);
      if (replayed) throw replayed;
      if (this.opts.validateResponses && result.status === def.response.status) this.checkResponse(def, result.body);
      res.status(result.status).json(result.body);
    };
    this.router[def.method](def.path, ...guards, handle);
    return this;
  }

  private validateInput(def: RouteDef<TSchema | undefined, TSchema | undefined, TSchema | undefined>, req: Request) {
    const params = { ...req.params };
    if (def.params) assertValid(def.params, params, { ajv: textAjv, what: 'Path' });
    const query = { ...(req.query as Record<string, unknown>) };
    if (def.query) assertValid(def.query, query, { ajv: textAjv, what: 'Query' });
    let body: unknown = undefined;
    if (def.body) {
      const length = Number(req.headers['content-length'] ?? 0);
      const hasBody = length > 0 || req.headers['transfer-encoding'] !== undefined;
      if (hasBody && !JSON_TYPE.test(req.headers['content-type'] ?? '')) {
        throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Request body must be JSON with Content-Type: application/json');
      }
      body = req.body ?? {};
      assertValid(def.body, body, { what: 'Request body' });
    }
    return { params, query, body };
  }

  private checkResponse(def: RouteDef<TSchema | undefined, TSchema | undefined, TSchema | undefined>, body: unknown): void {
    const validate = compile(def.response.schema);
    // Round-trip through JSON so Dates and Decimals are checked as the client sees them.
    if (!validate(JSON.parse(JSON.stringify(body)))) {
      const problems = toDetails(validate.errors).map((d) => `${d.field} ${d.message}`).join('; ');
      throw new Error(`Response of ${def.method.toUpperCase()} ${def.path} breaks its schema: ${problems}`);
    }
  }
}
