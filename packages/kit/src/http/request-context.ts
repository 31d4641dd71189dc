import { randomUUID } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from 'pino';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Every response carries X-Request-Id; a well-formed id sent by the client is echoed so
 * merchants can correlate their logs with ours.
 */
export function requestContext(logger: Logger): RequestHandler[] {
  return [
    pinoHttp({
      logger,
      genReqId: (req, res) => {
        const sent = req.headers['x-request-id'];
        const id = typeof sent === 'string' && SAFE_ID.test(sent) ? sent : `req_${randomUUID()}`;
        res.setHeader('X-Request-Id', id);
        return id;
      },
      customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
      // Only method, path and status: bodies and credential headers never reach the log.
      serializers: {
        req: (req) => ({ id: req.id, method: req.method, url: req.url?.split('?')[0] }),
        res: (res) => ({ statusCode: res.statusCode }),
      },
      autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/readyz' },
      // A refusal's code (set by the error handler) tells an operator why, without the body.
      customSuccessObject: (_req, res, value) => {
        const errorCode = (res as Response).locals?.errorCode as string | undefined;
        return errorCode ? { ...value, errorCode } : value;
      },
    }),
  ];
}
