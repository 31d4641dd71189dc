import { Counter, Gauge } from 'prom-client';
import { metricsRegistry, oncePerScrape } from '@pay/runtime';

/**
 * The acquirers' metrics, one series per acquirer: labels name the provider (its registered
 * name, e.g. `tbank`) and the terminal's mode (`live`, `test`), never a terminal key, a payment
 * or an order id: each label takes a handful of values. The names are generic and stable
 * (infra/k8s/monitoring's alerts and dashboard read them); what an outcome means for one
 * acquirer (its methods, its timeout setting) is its own (T-Bank: docs/runbooks/acquirer.md).
 */

/** What became of a notification the acquirer sent: `applied`, or why it was refused or not processed. */
export type NotificationOutcome = 'applied' | 'malformed' | 'unknown_terminal' | 'bad_token' | 'unknown_payment' | 'order_mismatch' | 'error';

export const acquirerNotifications = new Counter({
  name: 'invoicing_acquirer_notifications_total',
  help:
    'Notifications an acquirer sent, by provider and outcome: applied (acknowledged), or not acknowledged and sent again by the acquirer: ' +
    'malformed (no JSON object), unknown_terminal, bad_token (403: its signature does not verify), unknown_payment (404: no payment with its id), ' +
    'order_mismatch (400: the order it names is not its payment’s invoice), error (500: asking the acquirer or the database failed while applying it)',
  labelNames: ['provider', 'outcome'] as const,
  registers: [metricsRegistry],
});

/** How a call to an acquirer ended: `ok`, `refused` (it answered with an error code; T-Bank: Success: false), or it could not be asked. */
export type CallOutcome = 'ok' | 'refused' | 'timeout' | 'unreachable' | 'http_error' | 'bad_answer';

export const acquirerCalls = new Counter({
  name: 'invoicing_acquirer_calls_total',
  help:
    'Calls to an acquirer’s API, by provider, mode, method (the acquirer’s own: T-Bank’s Init, GetQr, GetState, CheckOrder, Cancel) and outcome: ok, refused (it answered with an error code), ' +
    'timeout (no answer within its timeout setting, T-Bank’s TBANK_TIMEOUT_MS), unreachable (no connection, or it closed without an answer), http_error (an unexpected HTTP status), bad_answer (not JSON)',
  labelNames: ['provider', 'mode', 'method', 'outcome'] as const,
  registers: [metricsRegistry],
});

/** One provider and mode's reconciliation backlog (acquirerBacklog of store/payments.ts). */
export interface BacklogLine {
  provider: string;
  isTest: boolean;
  open: number;
  oldestCreatedAt: Date;
  unheardSince: Date;
}

interface BacklogSource {
  /** The terminals configured here, reported at 0 when nothing waits. */
  terminals: { provider: string; isTest: boolean }[];
  read: () => Promise<BacklogLine[]>;
}

/** Where the backlog is read from: the processes that run the reconciler (the background). */
let source: BacklogSource | null = null;

/** Reports the reconciliation backlog at every scrape while the reconciler runs here; the function returned stops it. */
export function watchAcquirerBacklog(s: BacklogSource): () => void {
  source = s;
  return () => {
    if (source === s) source = null;
  };
}

const modeOf = (isTest: boolean) => (isTest ? 'test' : 'live');

/** One statement per scrape, shared by the three gauges; null while no reconciler runs here, or the database is away. */
const backlogNow = oncePerScrape(async () => {
  if (!source) return null;
  const { terminals, read } = source;
  return read()
    .then((lines) => ({ terminals, lines, at: Date.now() }))
    .catch(() => null);
});

/** A gauge by provider and mode from the shared read; it keeps its last values while the read gives nothing. */
function backlogGauge(name: string, help: string, value: (line: BacklogLine, now: number) => number): Gauge {
  return new Gauge({
    name,
    help,
    labelNames: ['provider', 'mode'] as const,
    registers: [metricsRegistry],
    async collect() {
      const r = await backlogNow();
      if (!r) return;
      this.reset();
      for (const t of r.terminals) this.set({ provider: t.provider, mode: modeOf(t.isTest) }, 0);
      for (const line of r.lines) this.set({ provider: line.provider, mode: modeOf(line.isTest) }, value(line, r.at));
    },
  });
}

const secondsSince = (at: Date, now: number) => Math.max(0, (now - at.getTime()) / 1000);

backlogGauge(
  'invoicing_acquirer_payments_open',
  'Acquirer payments without a final state (opened at the acquirer, not yet paid, declined, cancelled or expired) older than the acquirer’s reconcile delay (T-Bank: TBANK_RECONCILE_AFTER_MS): the reconciler’s work',
  (l) => l.open,
);

backlogGauge(
  'invoicing_acquirer_payment_oldest_open_seconds',
  'Age of the oldest of those payments since it was created (0 when none is): bounded by the invoices’ lifetime while expiry can ask the acquirer',
  (l, now) => secondsSince(l.oldestCreatedAt, now),
);

backlogGauge(
  'invoicing_acquirer_payment_oldest_unheard_seconds',
  'The longest one of those payments has gone without word of the acquirer (an answer to the reconciler, or a notification) since it became due (0 when none is): grows when the acquirer cannot be asked or no reconciler runs',
  (l, now) => secondsSince(l.unheardSince, now),
);
