import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import { ApiError } from '@pay/schemas';
import { isDatabaseUnavailable } from '@pay/db';
import { sendJson } from './json-reply';
import type { SafeHtml } from './html';
import { setPageHeaders } from './page-headers';

/**
 * A browser navigating here (its Accept ranks HTML above JSON, as every browser's page load
 * does), not an API client or a page's own fetch (which send JSON or any type, and keep JSON).
 */
const prefersHtml = (req: Request): boolean => req.accepts(['application/json', 'text/html']) === 'text/html';

/**
 * A service's refusal as a page, for a browser: the HTML for `err`. Used for what no page route
 * answers: an unknown path (404), a method not allowed, an error before routing. errorHandler
 * asks for it only for a browser's navigation (prefersHtml) outside `/api/`: API paths and API
 * clients keep the JSON error, in every service alike.
 */
export type ErrorPageFor = (err: ApiError, req: Request) => SafeHtml;

/** Where a refusal is a page (errorHandler's errorPage), not JSON: a browser's page load, off the API. */
const wantsErrorPage = (req: Request): boolean => !req.path.startsWith('/api/') && prefersHtml(req);

/**
 * Crypto and invoicing v2 wrap errors in `{ success: false, error }`; invoicing v1 answers
 * bare `{ error }`. The app decides per request path.
 */
export type Envelope = 'success' | 'bare';
export type EnvelopeFor = (req: Request) => Envelope;

export function errorBody(err: ApiError, envelope: Envelope): Record<string, unknown> {
  const error = { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) };
  return envelope === 'success' ? { success: false, error } : { error };
}

/** body-parser's errors carry a `type`; these are the client's fault, never a 500. */
export function fromParserError(err: { type?: string; status?: number; limit?: number; body?: unknown }): ApiError | null {
  switch (err.type) {
    case 'entity.too.large':
      return new ApiError('PAYLOAD_TOO_LARGE', `Request body exceeds the limit of ${err.limit} bytes`);
    case 'entity.parse.failed': {
      // The parser is strict: valid JSON that is not an object or array (null, 42, "x") fails too.
      const isJson = typeof err.body === 'string' && (() => {
        try {
          JSON.parse(err.body as string);
          return true;
        } catch {
          return false;
        }
      })();
      const message = isJson ? 'must be a JSON object' : 'must be valid JSON';
      return new ApiError('VALIDATION_ERROR', `Request body ${message}`, [{ field: '(body)', message }]);
    }
    case 'encoding.unsupported':
      return new ApiError('UNSUPPORTED_MEDIA_TYPE', `Content-Encoding ${(err as { encoding?: string }).encoding ?? ''} is not accepted; send the body uncompressed`);
    case 'charset.unsupported':
      return new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Request body must be UTF-8 JSON');
    case 'request.aborted':
      return new ApiError('VALIDATION_ERROR', 'Request body was not received completely');
    default:
      return null;
  }
}

/** Other 4xx errors from express's stack (http-errors) are the client's fault too. */
function fromClientHttpError(err: { status?: unknown; message?: unknown }): ApiError | null {
  if (typeof err?.status !== 'number' || err.status < 400 || err.status >= 500) return null;
  const message = String(err.message ?? 'is malformed');
  return new ApiError('VALIDATION_ERROR', message, [{ field: '(request)', message }]);
}

export function errorHandler(envelopeFor: EnvelopeFor, errorPage?: ErrorPageFor): ErrorRequestHandler {
  /** The page for a browser, where the service renders one; else the JSON error. */
  const send = (req: Request, res: Parameters<ErrorRequestHandler>[2], apiError: ApiError) => {
    if (!errorPage || !wantsErrorPage(req)) return sendJson(res, apiError.status, errorBody(apiError, envelopeFor(req)));
    setPageHeaders(res);
    res.status(apiError.status).type('html').send(errorPage(apiError, req).value);
  };
  return (err, req, res, _next) => {
    let apiError = err instanceof ApiError ? err : (fromParserError(err) ?? fromClientHttpError(err));
    if (!apiError && isDatabaseUnavailable(err)) {
      // The request was fine; the database is not. Logged for ops, retryable for the caller.
      req.log?.error({ err }, 'database unavailable');
      apiError = new ApiError('SERVICE_UNAVAILABLE', 'The service cannot reach its database right now; retry shortly');
    }
    if (!apiError) {
      // Unknown failures are logged in full and answered without internals.
      req.log?.error({ err }, 'unhandled error');
      const internal = new ApiError('INTERNAL_ERROR', `Internal error; quote request id ${req.id} to support`);
      send(req, res, internal);
      return;
    }
    res.locals.errorCode = apiError.code; // for the request log line
    if ((apiError.code === 'RATE_LIMITED' || apiError.code === 'SERVICE_UNAVAILABLE') && !res.getHeader('Retry-After')) res.setHeader('Retry-After', '1');
    send(req, res, apiError);
  };
}

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new ApiError('NOT_FOUND', `No route for ${req.method} ${req.path}`));
};
