import { sendJsonText } from './json-reply';
import express, { Router, type Request, type RequestHandler, type Response } from 'express';
import { Type } from '@sinclair/typebox';
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import { ApiError, assertValid, compile, textAjv, toDetails, type ErrorCode } from '@pay/schemas';
import type { AuthContext } from '@pay/auth';
import { replayedError, withIdempotency, type IdempotencyStore, type IdempotentRun } from './idempotency';
import { stringifyExact } from './exact-json';
import { fromParserError, type Envelope } from './errors';
import { html, type SafeHtml } from './html';
import { PAGE_CSP, setPageHeaders } from './page-headers';
import { parseUpload, type UploadedFiles, type UploadSpec } from './upload';

/**
 * Who may call: `key` (X-Api-Key), `signed` (key + request signature), `session` (a signed-in
 * web console session: cookie, and a CSRF token on changes), or `none`.
 */
export type AuthLevel = 'none' | 'key' | 'signed' | 'session';
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** What a handler returns: the body without its envelope (the Api adds `success: true`). */
export type Reply = { status?: number; body: Record<string, unknown> };

/**
 * What a download route's handler returns (`response.file`): stored bytes, sent as an
 * attachment under their sniffed type with `nosniff` and a sandboxing CSP, so a browser saves
 * the file and never renders or runs it.
 */
export interface FileReply {
  file: { bytes: Buffer; type: string; name: string };
}

/** Headers of a download: saved, never rendered as a page or run as script, whatever its bytes. */
export function sendAttachment(res: Response, file: FileReply['file']): void {
  res.setHeader('Content-Disposition', `attachment; filename="${file.name.replace(/[^\w.-]/g, '_')}"`);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
  res.setHeader('Cache-Control', 'private, no-store');
  res.status(200).type(file.type).send(file.bytes);
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
  /** Files of an `upload` route, by field (typed by content); empty otherwise. */
  files: UploadedFiles;
  /** On an `idempotent` route called with `Idempotency-Key`: the key, and whether an earlier request with it died mid-way. */
  idempotency?: IdempotentRun;
}

export interface RouteDef<B extends TSchema | undefined, Q extends TSchema | undefined, P extends TSchema | undefined> {
  method: Method;
  /** Express-style path, e.g. `/api/v1/api-keys/:keyId`. */
  path: string;
  /**
   * The operation's name in the OpenAPI document, unique in its service and never changed once
   * published: the merchant SDK's method for it is named after it (`createInvoice`; v1 ones `v1…`).
   */
  operationId: string;
  summary: string;
  description?: string;
  tags?: string[];
  auth: AuthLevel;
  /** A JSON body; or, with `upload`, the schema of the multipart form's text fields. */
  body?: B;
  /** The body is `multipart/form-data` with these files (and `body` as its text fields). */
  upload?: UploadSpec;
  query?: Q;
  params?: P;
  /** Accepts `Idempotency-Key`. */
  idempotent?: boolean;
  /**
   * The body's own fields; the Api's envelope (`success: true`) is added to the schema and the
   * answer. With `file` (the media types it may send), the route is a download: the handler
   * returns a FileReply and `schema` is not used.
   */
  response: { status: number; schema: TObject; description?: string; file?: readonly string[] };
  /** Business and validation errors this operation documents, besides the auth ones. */
  errors?: ErrorCode[];
  handler: (ctx: HandlerContext<B, Q, P>) => Promise<Reply | FileReply> | Reply | FileReply;
}

/** What the OpenAPI builder needs to know of a route. */
export interface Operation {
  method: Method;
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  auth: AuthLevel;
  body?: TSchema;
  upload?: UploadSpec;
  query?: TSchema;
  params?: TSchema;
  idempotent: boolean;
  /** The whole answer's schema, envelope included; `file`: a download of these media types. */
  response: { status: number; schema: TSchema; description?: string; file?: readonly string[] };
  errors: ErrorCode[];
  envelope: Envelope;
}

/** What a page handler returns: HTML, or a redirect (303 after a form post, so a reload does not post again). */
export type PageReply = { status?: number; html: SafeHtml } | { redirect: string; status?: 302 | 303 };

export interface PageDef<Q extends TSchema | undefined, P extends TSchema | undefined, F extends TSchema | undefined> {
  method: 'get' | 'post';
  path: string;
  /** For the operator reading the code; pages are not part of the OpenAPI document. */
  summary: string;
  auth: AuthLevel;
  params?: P;
  /** Without a schema, query parameters are ignored (links get tracking parameters appended). */
  query?: Q;
  /** POST only: the `application/x-www-form-urlencoded` form, validated as text (numbers coerced). */
  form?: F;
  /** POST only: the form is `multipart/form-data` with these files (and `form` as its text fields). */
  upload?: UploadSpec;
  handler: (ctx: {
    req: Request;
    res: Response;
    params: StaticOr<P, Record<string, never>>;
    query: StaticOr<Q, Record<string, never>>;
    form: StaticOr<F, undefined>;
    files: UploadedFiles;
    auth: AuthContext | undefined;
  }) => Promise<PageReply> | PageReply;
}

export { PAGE_CSP, setPageHeaders } from './page-headers';

const FORM_TYPE = /^application\/x-www-form-urlencoded\b/i;

const requireFormBody: RequestHandler = (req, _res, next) => {
  if (!FORM_TYPE.test(req.headers['content-type'] ?? '')) {
    next(new ApiError('UNSUPPORTED_MEDIA_TYPE', 'This form must be posted as application/x-www-form-urlencoded'));
    return;
  }
  next();
};

/** The page shown for a refusal (bad link, unknown invoice, business rule) when the Api has no page of its own. */
function defaultErrorPage(err: ApiError): SafeHtml {
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${err.message}</title><link rel="icon" href="data:,"></head>
<body><h1>${err.status === 404 ? 'Not found' : 'Cannot continue'}</h1><p data-testid="error">${err.message}</p></body></html>`;
}

export interface ApiOptions {
  /**
   * How this API wraps answers: `success` adds `success: true` in front of
   * every body (crypto, invoicing v2), `bare` sends the body as it is (invoicing v1).
   */
  envelope: Envelope;
  /** Guards per auth level: authentication, then rate limiting (`none` is limited per client). A level without guards cannot be declared. */
  auth: Partial<Record<AuthLevel, RequestHandler[]>>;
  /** Renders a refusal raised by a page (its status is the error's); JSON errors stay for the API. */
  errorPage?: (err: ApiError, req: Request) => SafeHtml;
  /** Form bodies of pages; default 100kb. */
  formLimit?: string;
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

/** Deeper than any operation's input: such a body is refused before anything walks it. */
const MAX_INPUT_DEPTH = 32;

/**
 * Refuses input that no schema should have to see: strings holding a NUL character
 * (Postgres text cannot store one), numbers that are not finite (JSON.parse reads `1e309` as
 * Infinity, and ajv's coercion turns `?page=1e309` into one; ajv counts Infinity as an
 * integer), and nesting deeper than MAX_INPUT_DEPTH. Walks with its own stack, so a body of
 * 100 KB of brackets cannot exhaust the call stack.
 */
function assertPlainInput(value: unknown, where: string): void {
  const stack: { value: unknown; path: string[] }[] = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!;
    const name = path.join('.') || where;
    if (typeof v === 'string' && v.includes('\u0000')) {
      throw new ApiError('VALIDATION_ERROR', `${name} must not contain NUL characters`, [{ field: name, message: 'must not contain NUL characters' }]);
    }
    if (typeof v === 'number' && !Number.isFinite(v)) {
      throw new ApiError('VALIDATION_ERROR', `${name} must be a finite number`, [{ field: name, message: 'must be a finite number' }]);
    }
    if (v === null || typeof v !== 'object') continue;
    if (path.length >= MAX_INPUT_DEPTH) {
      const message = `must not nest deeper than ${MAX_INPUT_DEPTH} levels`;
      throw new ApiError('VALIDATION_ERROR', `${where} ${message}`, [{ field: where, message }]);
    }
    for (const [k, child] of Object.entries(v)) stack.push({ value: child, path: [...path, k] });
  }
}

/** A request body is a JSON object, named `(body)` in error details as the parser names it. */
function assertObjectBody(body: unknown): void {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new ApiError('VALIDATION_ERROR', 'Request body must be a JSON object', [{ field: '(body)', message: 'must be a JSON object' }]);
  }
}

/** An operation without a body schema takes no body: fields sent to it must not pass silently. */
function assertNoBody(body: unknown): void {
  const empty = body === undefined || (typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0);
  if (!empty) {
    throw new ApiError('VALIDATION_ERROR', 'This operation takes no request body', [{ field: '(body)', message: 'must be empty' }]);
  }
}

export class Api {
  /** Mount this: the operations, then 405 with `Allow` for a known path asked with another method. */
  readonly router = Router();
  readonly operations: Operation[] = [];
  /** Pages, listed for tests and operators; not in the OpenAPI document. */
  readonly pages: { method: 'get' | 'post'; path: string; summary: string }[] = [];
  private readonly handlers = Router();
  private readonly fallback = Router();
  private readonly methodsByPath = new Map<string, Set<string>>();

  constructor(private readonly opts: ApiOptions) {
    this.router.use(this.handlers, this.fallback);
  }

  route<B extends TSchema | undefined = undefined, Q extends TSchema | undefined = undefined, P extends TSchema | undefined = undefined>(
    def: RouteDef<B, Q, P>,
  ): this {
    const responseSchema = this.wrap(def.response.schema);
    const op: Operation = {
      method: def.method,
      path: def.path,
      operationId: def.operationId,
      summary: def.summary,
      description: def.description,
      tags: def.tags ?? [],
      auth: def.auth,
      body: def.body,
      upload: def.upload,
      query: def.query,
      params: def.params,
      idempotent: def.idempotent ?? false,
      response: { ...def.response, schema: responseSchema },
      errors: def.errors ?? [],
      envelope: this.opts.envelope,
    };
    this.operations.push(op);
    const guards = this.guardsFor(def.auth, def.path);
    // Before auth: a body the server cannot read must not be reported as a bad signature.
    // Uploads are parsed before auth as well: a signed upload signs its bytes as sent.
    const mediaType: RequestHandler[] = def.upload ? [parseUpload(def.upload)] : def.body ? [requireJsonBody] : [];
    const handle: RequestHandler = async (req, res) => {
      const input = this.validateInput(def, req);
      const ctx = {
        req,
        res,
        ...input,
        files: req.uploads ?? {},
        get auth(): AuthContext {
          if (!req.auth) throw new Error(`route ${def.method.toUpperCase()} ${def.path} has no authenticated caller`);
          return req.auth;
        },
      } as HandlerContext<B, Q, P>;
      const run = async (idempotency?: IdempotentRun) => {
        ctx.idempotency = idempotency; // not spread: `auth` is a getter that throws without a caller
        const reply = await def.handler(ctx);
        if ('file' in reply) throw new Error(`route ${def.method.toUpperCase()} ${def.path} returned a file but does not declare response.file`);
        const status = reply.status ?? def.response.status;
        const text = stringifyExact(this.opts.envelope === 'success' ? { success: true, ...reply.body } : reply.body);
        if (this.opts.validateResponses && status === def.response.status) this.checkResponse(def, responseSchema, text);
        return { status, text };
      };
      if (def.response.file) {
        const reply = await def.handler(ctx);
        if (!('file' in reply)) throw new Error(`download route ${def.method.toUpperCase()} ${def.path} returned JSON`);
        sendAttachment(res, reply.file);
        return;
      }
      const result =
        def.idempotent && this.opts.idempotency
          ? await withIdempotency(this.opts.idempotency, idempotencyScope(req, def), req, res, run)
          : await run();
      const replayed = replayedError(result);
      if (replayed) throw replayed;
      sendJsonText(res, result.status, result.text);
    };
    this.handlers[def.method](def.path, ...mediaType, ...guards, handle);
    this.allowMethod(def.path, def.method);
    return this;
  }

  /**
   * A server-rendered page (hosted payment and KYC pages, the console): same guards and input
   * validation as an operation, HTML out, a strict Content-Security-Policy, never cached.
   * A refusal (ApiError) is rendered as an HTML page with its status, not as JSON.
   */
  page<Q extends TSchema | undefined = undefined, P extends TSchema | undefined = undefined, F extends TSchema | undefined = undefined>(
    def: PageDef<Q, P, F>,
  ): this {
    this.pages.push({ method: def.method, path: def.path, summary: def.summary });
    const guards = this.guardsFor(def.auth, def.path);
    const refuse = (err: ApiError, req: Request, res: Response) => {
      res.locals.errorCode = err.code;
      res.status(err.status).type('html').send((this.opts.errorPage ?? defaultErrorPage)(err, req).value);
    };
    // A form that cannot be read, or a guard's refusal (429, 401), is a page too, not JSON.
    const asPage =
      (parse: RequestHandler): RequestHandler =>
      (req, res, next) =>
        parse(req, res, (err?: unknown) => {
          if (err === undefined) return next();
          const known = err instanceof ApiError ? err : fromParserError(err as object);
          if (!known) return next(err);
          res.setHeader('Content-Security-Policy', PAGE_CSP);
          refuse(known, req, res);
        });
    const form: RequestHandler[] = (
      def.method !== 'post'
        ? []
        : def.upload
          ? [parseUpload(def.upload)]
          : [requireFormBody, express.urlencoded({ extended: false, limit: this.opts.formLimit ?? '100kb', parameterLimit: 100 })]
    ).map(asPage);
    const handle: RequestHandler = async (req, res, next) => {
      setPageHeaders(res);
      try {
        const params = { ...req.params };
        if (def.params) assertValid(def.params, params, { ajv: textAjv, what: 'Link' });
        const query = def.query ? { ...(req.query as Record<string, unknown>) } : {};
        if (def.query) assertValid(def.query, query, { ajv: textAjv, what: 'Link' });
        let formValues: unknown;
        if (def.form) {
          formValues = { ...(req.body as Record<string, unknown>) };
          assertPlainInput(formValues, '(form)');
          assertValid(def.form, formValues, { ajv: textAjv, what: 'Form' });
        }
        const reply = await def.handler({ req, res, params, query, form: formValues, files: req.uploads ?? {}, auth: req.auth } as Parameters<typeof def.handler>[0]);
        if ('redirect' in reply) {
          res.redirect(reply.status ?? 303, reply.redirect);
          return;
        }
        res.status(reply.status ?? 200).type('html').send(reply.html.value);
      } catch (err) {
        if (!(err instanceof ApiError)) return next(err);
        refuse(err, req, res);
      }
    };
    this.handlers[def.method](def.path, ...form, ...guards.map(asPage), handle);
    this.allowMethod(def.path, def.method);
    return this;
  }

  private guardsFor(level: AuthLevel, path: string): RequestHandler[] {
    const guards = this.opts.auth[level];
    if (!guards && level !== 'none') throw new Error(`${path}: this Api has no guards for auth level "${level}"`);
    return guards ?? [];
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
    assertPlainInput(params, '(path)');
    // Text input is checked after ajv has coerced it: a number is only a number from then on.
    const query = { ...(req.query as Record<string, unknown>) };
    assertValid(def.query ?? NO_QUERY, query, { ajv: textAjv, what: 'Query' });
    assertPlainInput(query, '(query)');
    if (def.upload) {
      // Multipart text fields exist only as text, like a query string.
      const fields = { ...(req.body as Record<string, unknown>) };
      assertValid(def.body ?? NO_QUERY, fields, { ajv: textAjv, what: 'Form' });
      assertPlainInput(fields, '(form)');
      return { params, query, body: def.body ? fields : undefined };
    }
    if (!def.body) {
      assertNoBody(req.body);
      return { params, query, body: undefined };
    }
    const body: unknown = req.body ?? {};
    assertPlainInput(body, '(body)');
    assertObjectBody(body);
    assertValid(def.body, body, { what: 'Request body' });
    return { params, query, body };
  }

  /** The answer's schema as the client sees it: the body's fields behind the envelope's. */
  private wrap(body: TObject): TSchema {
    if (this.opts.envelope === 'bare') return body;
    return Type.Object({ success: Type.Literal(true), ...body.properties }, { additionalProperties: body.additionalProperties });
  }

  private checkResponse(def: RouteDef<TSchema | undefined, TSchema | undefined, TSchema | undefined>, schema: TSchema, text: string): void {
    const validate = compile(schema);
    // The text the client receives, parsed: checked as the client sees it.
    if (!validate(JSON.parse(text))) {
      const problems = toDetails(validate.errors).map((d) => `${d.field} ${d.message}`).join('; ');
      throw new Error(`Response of ${def.method.toUpperCase()} ${def.path} breaks its schema: ${problems}`);
    }
  }
}
