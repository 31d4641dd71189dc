import type { RequestHandler } from 'express';
import { ApiError } from '@pay/schemas';

/** Query parameter names a client might put a key under, compared without case, `-` or `_`. */
const KEY_NAMES = new Set(['apikey', 'xapikey', 'hmacsecret']);
/** Our keys' own shape, whatever the parameter is called. */
const KEY_VALUE = /\bsk_(?:test|live)_/i;

/**
 * A URL stays in browser history, proxy and server logs: an API key in a query string is
 * refused with 400 before any route sees it (so nothing acts on it), and the request log
 * records the path without its query, as for every request. The message says where the key
 * belongs, and to revoke it, since it has already left the client in the clear.
 */
export function refuseKeysInUrl(): RequestHandler {
  return (req, _res, next) => {
    const at = req.url.indexOf('?');
    if (at < 0) return next();
    const params = new URLSearchParams(req.url.slice(at + 1));
    for (const [name, value] of params) {
      if (KEY_NAMES.has(name.toLowerCase().replace(/[-_]/g, '')) || KEY_VALUE.test(value)) {
        return next(
          new ApiError(
            'VALIDATION_ERROR',
            `An API key must never be sent in a URL (query parameter "${name}"): URLs are kept in browser history and proxy logs. ` +
              'Send it in the X-Api-Key header (the console signs in with a form post), and revoke this key if the URL may have been recorded.',
          ),
        );
      }
    }
    next();
  };
}
