// The crypto payment page (paymentUrl) sits in a folder of its own: it reads invoices and their
// transfers, and neither domain depends on it.
import { Router, type Request, type RequestHandler, type Response } from 'express';
import QRCode from 'qrcode';
import { brandStylesheets, merchantBrand } from '@pay/accounts';
import { setPageHeaders, staticAssets, trustedHtml, type ErrorPageFor } from '@pay/http';
import { ApiError } from '@pay/schemas';
import type { CryptoDeps } from '../../deps';
import { currencyInfo } from '../../shared/currencies';
import { money } from '../../shared/money';
import { awaitingConfirmation } from '../../modules/transactions/transfers';
import { ASSETS_PATH, PUBLIC_DIR, SHARED_ASSETS_PATH, SHARED_DIR } from '../../assets';
import { invoiceById, type InvoiceRecord } from '../../modules/invoices/service';
import { paymentUri } from './payment-uri';
import { pageLanguage, TEXTS, type Language } from './i18n';
import { pageFacts, statusBody } from './presenter';
import { paymentPage as renderPage, problemPage } from './view';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A link that leads nowhere, in the payer's language: HTML for a browser, the API's JSON error otherwise. */
function sendProblem(req: Request, res: Response, status: number, language: Language, kind: 'notFound' | 'brokenLink' | 'tooMany'): void {
  const t = TEXTS[language];
  const [title, text] = kind === 'tooMany' ? [t.tooManyTitle, t.tooManyText] : [t.notFoundTitle, kind === 'notFound' ? t.notFoundText : t.brokenLinkText];
  setPageHeaders(res);
  res.status(status).type('html').send(problemPage(language, title, text));
}

/**
 * finishHttpApp's errorPage: a browser's refusal that no page route answered (an unknown path's
 * 404 among them) is the payment page's problem page in the payer's language. API paths, and
 * clients that prefer JSON, keep the API's JSON error (finishHttpApp decides, for every service).
 */
export const cryptoErrorPage: ErrorPageFor = (err, req) => {
  const language = pageLanguage(req).language;
  const t = TEXTS[language];
  const [title, text] = err.status === 404 ? [t.notFoundTitle, t.brokenLinkText] : err.status === 429 ? [t.tooManyTitle, t.tooManyText] : [t.errorTitle, t.errorText];
  // problemPage is our own template, its texts escaped there.
  return trustedHtml(problemPage(language, title, text));
};

/** Guards (the pages' rate limits) whose refusal is a page in the payer's language, or JSON for the status poll. */
function guarded(guards: RequestHandler[], as: 'page' | 'json'): RequestHandler[] {
  return guards.map(
    (guard): RequestHandler =>
      (req, res, next) =>
        guard(req, res, (err?: unknown) => {
          if (err === undefined || as === 'json' || !(err instanceof ApiError)) return next(err);
          sendProblem(req, res, err.status, pageLanguage(req).language, err.status === 429 ? 'tooMany' : 'brokenLink');
        }),
  );
}

/**
 * The invoice's `paymentUrl` (see view.ts for what it shows), its status poll, and the
 * answers for links that lead nowhere.
 *
 * Live status by polling a small JSON endpoint with `fetch`, not server-sent events: a poll is
 * one short request, so it passes every proxy and ingress as it is, holds no connection (nor a
 * database client) per open page for the whole hour an invoice lives, and counts against the
 * pages' per-client rate limit like any page load, where a stream would need limits of its
 * own. The page polls every 5 s (12 a minute, far under the limit), waits for `Retry-After` on
 * 429, pauses while hidden, and stops once the invoice can no longer change.
 *
 * It asks for what is still due: the amount less what was received (confirmed) and what is on
 * its way (seen, awaiting confirmations), so a payer who follows it after a partial payment
 * never overpays. The QR and the wallet link name the token the deployment watches
 * (Chain.paymentToken); a test-mode invoice has none on any real network, and shows a notice
 * saying so instead of anything a wallet could act on.
 */
export function paymentPage(deps: CryptoDeps, pageGuards: RequestHandler[] = []): Router {
  const router = Router();
  router.use(staticAssets(SHARED_ASSETS_PATH, SHARED_DIR));
  router.use(staticAssets(ASSETS_PATH, PUBLIC_DIR));

  const factsOf = async (invoice: InvoiceRecord) => {
    const unsettled = invoice.status === 'Pending' || invoice.status === 'PartiallyPaid';
    return pageFacts(invoice, deps.clock.now(), unsettled ? await awaitingConfirmation(deps, invoice) : money(0));
  };

  router.get('/pay/:invoiceId', ...guarded(pageGuards, 'page'), async (req, res) => {
    const id = String(req.params.invoiceId);
    if (!UUID.test(id)) return sendProblem(req, res, 404, pageLanguage(req).language, 'brokenLink');
    const invoice = await invoiceById(deps, id);
    if (!invoice) return sendProblem(req, res, 404, pageLanguage(req).language, 'notFound');
    // Who asks for the money, as the merchant wants payers to see it (@pay/accounts' one read of it).
    const [merchant, facts] = await Promise.all([merchantBrand(deps.db, invoice.merchantId), factsOf(invoice)]);
    // Neither the link nor the browser names one of ours: the merchant's language.
    const { language } = pageLanguage(req, merchant.defaultLanguage);
    const info = currencyInfo(invoice.currency);
    const token = invoice.isTest ? null : (deps.chains.live.get(info.network)?.paymentToken(invoice.currency) ?? null);
    const uri = facts.open && token && facts.due.gt(0) ? paymentUri(token, invoice.address, facts.due) : null;
    const qrSvg = uri ? await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }) : null;
    setPageHeaders(res);
    res.type('html').send(renderPage({ invoice, info, facts, merchant, language, uri, qrSvg }));
  });

  // The merchant's colour (GET /brand/<rrggbb>.css): the CSP runs no inline style.
  router.use(brandStylesheets());

  // The page's poll: public (the invoice id in the link is the capability), never cached.
  router.get('/pay/:invoiceId/status', ...guarded(pageGuards, 'json'), async (req, res) => {
    const id = String(req.params.invoiceId);
    const invoice = UUID.test(id) ? await invoiceById(deps, id) : null;
    if (!invoice) throw new ApiError('NOT_FOUND', 'This payment link does not lead to an invoice');
    const facts = await factsOf(invoice);
    res.setHeader('Cache-Control', 'no-store');
    res.json(statusBody(facts, TEXTS[pageLanguage(req).language].states[facts.state]));
  });

  // Anything else under /pay/ is a broken link: a page for a browser, never JSON.
  router.all(['/pay', '/pay/', '/pay/*rest'], (req, res, next) => {
    if (req.accepts(['html', 'json']) !== 'html') return next(new ApiError('NOT_FOUND', 'This payment link does not lead to an invoice'));
    sendProblem(req, res, 404, pageLanguage(req).language, 'brokenLink');
  });
  return router;
}
