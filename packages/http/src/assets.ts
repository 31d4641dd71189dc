import express, { type Router } from 'express';
import { ApiError } from '@pay/schemas';

/**
 * A service's own CSS, JS and images for its pages (the pages' CSP allows scripts and styles
 * from 'self' only). `nosniff`, so a file is never run as a type it was not served as. A file
 * that is not there is a 404 NOT_FOUND, never handed on to other routes.
 */
export function staticAssets(urlPath: string, dir: string): Router {
  const router = express.Router();
  router.use(
    urlPath,
    express.static(dir, {
      index: false,
      fallthrough: true,
      maxAge: '1h',
      setHeaders: (res) => res.setHeader('X-Content-Type-Options', 'nosniff'),
    }),
    (req, _res, next) => next(new ApiError('NOT_FOUND', `No asset ${req.originalUrl.split('?')[0]}`)),
  );
  return router;
}
