import type { Request, RequestHandler, Response, Router } from 'express';
import express from 'express';
import { Queue } from 'bullmq';
import { Queues } from '@pay/queue';
import { ApiError } from '@pay/schemas';
import type { ConsoleDeps } from '../../deps';
import { isOperator, QUEUES_PATH } from './operators';
import { consoleErrorPage } from './pages';

/**
 * Bull Board's page runs its own bundle from 'self' and reads its settings from a JSON script
 * element, but draws its loading placeholder with inline styles, so styles may be inline here
 * (and only here: every other console page has PAGE_CSP). Nothing loads from elsewhere (its
 * web font link is refused, and the page falls back to a system font).
 */
const BOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; " +
  "font-src 'self'; form-action 'self'; base-uri 'self'; frame-ancestors 'none'";


function refuse(res: Response, req: Request, err: ApiError): void {
  res.status(err.status).setHeader('Allow', 'GET, HEAD').type('html').send(consoleErrorPage(err, req).value);
}

/**
 * The queue dashboard for operators (Bull Board) at /console/queues, behind the console's own
 * session (`pageGuards`): every queue of the catalogue, of every service (they share Redis and
 * QUEUE_PREFIX), with counts, jobs, their data and failures. Jobs carry merchants' data, so
 * only the sessions of merchants named in CONSOLE_OPERATORS see it; for anyone else it does
 * not exist (404). It is read-only: Postgres is the source of truth for every job that
 * matters, and the reconcilers re-add what is due, so retrying or deleting jobs by hand is
 * never needed and could only do harm. Only GET reaches Bull Board, which also refuses
 * changes itself (`readOnlyMode`), so no change needs a CSRF token.
 * Bull Board is loaded with the first visit: a process that is never asked never loads it.
 */
export function queueDashboard(deps: ConsoleDeps, pageGuards: RequestHandler[]): Router {
  let board: Promise<RequestHandler> | undefined;
  const router = express.Router();
  router.use(QUEUES_PATH, ...pageGuards, (req, res, next) => {
    if (!isOperator(deps, req.auth!.merchantId)) return refuse(res, req, new ApiError('NOT_FOUND', `${QUEUES_PATH} is not a console page`));
    if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(res, req, new ApiError('METHOD_NOT_ALLOWED', 'The queue dashboard is read-only'));
    res.setHeader('Content-Security-Policy', BOARD_CSP);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Referrer-Policy', 'no-referrer');
    board ??= buildBoard(deps);
    board.then((handle) => handle(req, res, next), next);
  });
  return router;
}

async function buildBoard(deps: ConsoleDeps): Promise<RequestHandler> {
  const [{ createBullBoard }, { BullMQAdapter }, { ExpressAdapter }] = await Promise.all([
    import('@bull-board/api'),
    import('@bull-board/api/bullMQAdapter'),
    import('@bull-board/express'),
  ]);
  const server = new ExpressAdapter().setBasePath(QUEUES_PATH);
  const queues = Object.values(Queues).map((q) => new BullMQAdapter(new Queue(q.name, { connection: deps.queueRedis, prefix: deps.config.QUEUE_PREFIX }), { readOnlyMode: true }));
  createBullBoard({ queues, serverAdapter: server, options: { uiConfig: { boardTitle: 'Payments queues' } } });
  return server.getRouter() as RequestHandler;
}
