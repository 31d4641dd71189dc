import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { jsonMemberText } from '@pay/http';
import type { AcquirerDeps } from '../acquirer';
import { acquirerNotifications, type NotificationOutcome } from '../metrics';
import { applyAcquirerReport } from './apply-state';
import type { TBankProvider } from './provider';
import { rankOf } from '../store/payments';
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

/** Statuses whose money is asked of GetState before anything is done: the amount it holds, and the payer's bank. */
const ASK_STATE = new Set(['CONFIRMED', 'PARTIAL_REFUNDED', 'REFUNDED']);

/**
 * POST /providers/tbank/notifications: the acquirer's notifications (its NotificationURL).
 * The Token is checked first (constant-time) against the password of the terminal named in the
 * body; a bad one is refused with 403, logged, and changes nothing. The payment is the
 * PaymentId's, and the body's OrderId must be that payment's invoice (400 otherwise). For a
 * status that moves money (CONFIRMED, the refund statuses), GetState is asked and its word is
 * applied: `Data` (outside the Token) is never taken from the notification itself, so the
 * payer's bank is GetState's. Applied (applyAcquirerReport), logged, and only then answered
 * `OK`, so the acquirer keeps sending any notification whose change was not committed.
 * Every answer is counted by its outcome (invoicing_acquirer_notifications_total).
 */
export function tbankNotificationRoutes(deps: AcquirerDeps, providers: TBankProvider[]): Router {
  const byTerminal = new Map(providers.map((p) => [p.client.terminalKey, p]));
  const router = express.Router();
  router.post(NOTIFICATION_PATH, async (req: Request, res: Response) => {
    const reply = (outcome: NotificationOutcome, status: number, text: string) => {
      acquirerNotifications.inc({ provider: 'tbank', outcome });
      return res.status(status).type('text/plain').send(text);
    };
    const body = req.body as Record<string, unknown> | undefined;
    const raw = (req as Request & { rawBody?: Buffer }).rawBody?.toString('utf8') ?? '';
    if (!body || typeof body !== 'object' || Array.isArray(body)) return reply('malformed', 400, 'Expected a JSON object');
    const provider = byTerminal.get(String(body.TerminalKey ?? ''));
    if (!provider || !hasValidToken(body, provider.client.password, (key) => literal(raw, key))) {
      deps.logger.warn({ terminalKey: body.TerminalKey, paymentId: body.PaymentId, status: body.Status }, 'T-Bank notification refused: bad Token or unknown terminal');
      return reply(provider ? 'bad_token' : 'unknown_terminal', 403, 'Invalid Token');
    }
    const paymentId = literal(raw, 'PaymentId')?.replace(/^"|"$/g, '') ?? String(body.PaymentId);
    const status = String(body.Status ?? '');
    try {
      const payment = await provider.payments.byPaymentId(paymentId);
      if (!payment) {
        // Not (yet) known here: not OK, so the acquirer sends it again.
        deps.logger.warn({ paymentId, status }, 'T-Bank notification for an unknown payment; not acknowledged');
        return reply('unknown_payment', 404, 'Unknown PaymentId');
      }
      if (String(body.OrderId ?? '') !== payment.invoiceId) {
        deps.logger.error({ paymentId, orderId: body.OrderId, invoiceId: payment.invoiceId, status }, 'T-Bank notification refused: its OrderId is not its payment’s invoice');
        return reply('order_mismatch', 400, 'OrderId does not match the payment');
      }
      const asked = ASK_STATE.has(status);
      const report = asked ? await provider.stateOf(payment) : { status, amountKopecks: Number(body.Amount), payerBank: null, sbpTransactionId: null };
      let outcome = '';
      if (status === 'CONFIRMED' && !payment.confirmedAt && rankOf(report.status) > rankOf('CONFIRMED')) {
        // Confirmed, and refunded since: the confirmation (its Amount is under the Token) is applied first.
        outcome = `${await applyAcquirerReport(deps, provider, payment, { ...report, status: 'CONFIRMED', amountKopecks: Number(body.Amount) })}; `;
      }
      // The row read again only where it may have moved since it was read above: while the acquirer
      // was asked (a call away), or by the confirmation just applied. Otherwise nothing ran between.
      const current = asked ? ((await provider.payments.byPaymentId(paymentId)) ?? payment) : payment;
      outcome += await applyAcquirerReport(deps, provider, current, report);
      await provider.payments.logNotification({ paymentId, status, body, outcome }, randomUUID(), deps.clock.now());
      return reply('applied', 200, 'OK');
    } catch (err) {
      deps.logger.error({ err, paymentId, status }, 'T-Bank notification not applied; the acquirer will send it again');
      return reply('error', 500, 'ERROR');
    }
  });
  return router;
}

/**
 * Counts a notification whose body the app's JSON parser refused before the route (answered 400
 * by the app's error handler, as every bad body is). Mounted on the app at NOTIFICATION_PATH:
 * a router's own error handlers never see an error raised before it.
 */
export function countUnreadableNotifications(err: unknown, _req: Request, _res: Response, next: NextFunction): void {
  acquirerNotifications.inc({ provider: 'tbank', outcome: 'malformed' });
  next(err);
}
