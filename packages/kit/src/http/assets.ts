import express, { type Router } from 'express';

/**
 * A service's own CSS, JS and images for its pages (the pages' CSP allows scripts and styles
 * from 'self' only). `nosniff`, so a file is never run as a type it was not served as.
 */
export function staticAssets(urlPath: string, dir: string): Router {
  const router = express.Router();
  router.use(
    urlPath,
    express.static(dir, {
      index: false,
      fallthrough: false,
      maxAge: '1h',
      setHeaders: (res) => res.setHeader('X-Content-Type-Options', 'nosniff'),
    }),
  );
  return router;
}
