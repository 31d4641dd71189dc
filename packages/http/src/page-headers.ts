import type { Response } from 'express';

/**
 * Served with every page: nothing loads from elsewhere, no inline script or style runs, forms
 * post only here, and no other site may frame the page. Pages link their CSS and JS from
 * the service's own static assets.
 */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** The headers of every HTML page, a refusal's page included. */
export function setPageHeaders(res: Response): void {
  res.setHeader('Content-Security-Policy', PAGE_CSP);
  res.setHeader('Cache-Control', 'no-store');
  // same-origin, not no-referrer: a page's links still tell no other site where the payer
  // was (a pay link is a capability), but a browser then names our origin in `Origin` on the
  // page's own form posts, where no-referrer sends `Origin: null`, which the console's
  // sign-in must refuse (login CSRF).
  res.setHeader('Referrer-Policy', 'same-origin');
  res.setHeader('X-Content-Type-Options', 'nosniff');
}
