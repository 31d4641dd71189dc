import { randomUUID } from 'node:crypto';
import express, { type Request, type Response, type Router } from 'express';
import { jsonMemberText } from '@pay/kit';
import type { InvoicingDeps } from '../../deps';
import { applyAcquirerReport } from './apply-state';
import type { TBankProvider } from './provider';
import { hasValidToken } from './token';

export const NOTIFICATION_PATH = '/providers/tbank/notifications';

/** The body's own text of a root member (a 20-digit PaymentId does not survive JSON.parse). */
function literal(raw: string, key: string): string | undefined {
  try {
    return jsonMemberText(raw, key);
  } catch {
    return undefined;
  }
}

/**
 * POST /providers/tbank/notifications: the acquirer's notifications (its NotificationURL).
 * The Token is checked first (constant-time) against the password of the terminal named in the
 * body; a bad one is refused with 403, logged, and changes nothing. A good one is applied
 * (applyAcquirerReport) and logged, and only then answered `OK`, so the acquirer keeps sending
 * any notification whose change was not committed.
 */
export function tbankNotificationRoutes(deps: Pick<InvoicingDeps, 'db' | 'clock' | 'logger'>, providers: TBankProvider[]): Router {
  const byTerminal = new Map(providers.map((p) => [p.client.terminalKey, p]));
  const router = express.Router();
  router.post(NOTIFICATION_PATH, async (req: Request, res: Response) => {
    const reply = (status: number, text: string) => res.status(status).type('text/plain').send(text);
    const body = req.body as Record<string, unknown> | undefined;
    const raw = (req as Request & { rawBody?: Buffer }).rawBody?.toString('utf8') ?? '';
    if (!body || typeof body !== 'object' || Array.isArray(body)) return reply(400, 'Expected a JSON object');
    const provider = byTerminal.get(String(body.TerminalKey ?? ''));
    if (!provider || !hasValidToken(body, provider.client.password, (key) => literal(raw, key))) {
      deps.logger.warn({ terminalKey: body.TerminalKey, paymentId: body.PaymentId, status: body.Status }, 'T-Bank notification refused: bad Token or unknown terminal');
      return reply(403, 'Invalid Token');
    }
    const paymentId = literal(raw, 'PaymentId')?.replace(/^"|"$/g, '') ?? String(body.PaymentId);
    const status = String(body.Status ?? '');
    try {
      const payment = await provider.payments.byPaymentId(paymentId);
      if (!payment) {
        // Not (yet) known here: not OK, so the acquirer sends it again.
        deps.logger.warn({ paymentId, status }, 'T-Bank notification for an unknown payment; not acknowledged');
        return reply(404, 'Unknown PaymentId');
      }
      const data = (body.Data ?? body.DATA ?? {}) as Record<string, unknown>;
      const confirmedSbp = status === 'CONFIRMED' && payment.method === 'sbp';
      const outcome = await applyAcquirerReport(deps, provider, payment, {
        status,
        amountKopecks: Number(body.Amount),
        payerBank: typeof data.BankName === 'string' ? data.BankName : null,
        sbpTransactionId: confirmedSbp ? await provider.sbpPaymentIdOf(payment) : null,
      });
      await provider.payments.logNotification({ paymentId, status, body, outcome }, randomUUID(), deps.clock.now());
      return reply(200, 'OK');
    } catch (err) {
      deps.logger.error({ err, paymentId, status }, 'T-Bank notification not applied; the acquirer will send it again');
      return reply(500, 'ERROR');
    }
  });
  return router;
}
