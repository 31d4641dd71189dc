import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { acquirerToken, tokenMatches } from './token';

/** Payment statuses of the documentation's status model (the ones this emulator reaches). */
export type PaymentStatus = 'NEW' | 'FORM_SHOWED' | 'CONFIRMED' | 'REJECTED' | 'CANCELED' | 'DEADLINE_EXPIRED' | 'PARTIAL_REFUNDED' | 'REFUNDED';

export interface EmulatedPayment {
  paymentId: string;
  terminalKey: string;
  orderId: string;
  /** Kopecks asked by Init. */
  amount: number;
  /** Kopecks left after refunds. */
  remaining: number;
  status: PaymentStatus;
  description: string | null;
  notificationUrl: string | null;
  redirectDueDate: Date;
  data: Record<string, string>;
  /** How the payer paid: set when paid. */
  method: 'sbp' | 'card' | null;
  sbpPaymentId: string | null;
  /** The payer's bank, once paid (GetState's `Params` name it; see the README). */
  payerBank: string | null;
  createdAt: Date;
  /** Cancel answers by ExternalRequestId: a repeated request gets the state, not a second refund (cards only, as documented). */
  cancels: Map<string, Record<string, unknown>>;
  /** Kopecks of the last refund (GetQrState's Amount for SBP). */
  lastRefund: number | null;
}

export interface SentNotification {
  paymentId: string;
  status: string;
  body: Record<string, unknown>;
  /** Every delivery attempt's answer: HTTP status and body (or the error). */
  attempts: { status: number; body: string }[];
  delivered: boolean;
}

export interface EmulatorOptions {
  /** Terminals it accepts: TerminalKey → Password. */
  terminals: Record<string, string>;
  /** Waits between notification attempts until one is answered `OK` (the real service waits an hour; tests want seconds). */
  retryDelaysMs?: number[];
  now?: () => Date;
  /** Minimum amount of an SBP payment, kopecks (documented: 10 rubles). */
  minSbpAmount?: number;
}

/** The documentation's minimum lifetime of a RedirectDueDate, less leeway for the request's own trip. */
const MIN_DUE_MS = 60_000 - 5_000;
const MAX_DUE_MS = 90 * 24 * 3_600_000;
const DEFAULT_DUE_MS = 24 * 3_600_000;
const DEFAULT_RETRIES = [200, 500, 1000, 2000, 5000, 10_000];

/** Faults a test injects, each used once when named. */
interface Faults {
  /** Answer HTTP 503 to every API call while true (the acquirer is down). */
  down: boolean;
  /** Methods whose next call is processed and then has its connection destroyed before the answer. */
  dropAnswer: Set<string>;
  /** While true, status changes send no notification (a notification lost on the way). */
  muteNotifications: boolean;
  /** Methods whose next call is processed and then not answered until `releaseHeld()` (the caller can be killed meanwhile). */
  holdAnswer: Set<string>;
  /** Methods whose next call never reaches the acquirer: not processed, its connection cut (a request lost on the way). */
  dropRequest: Set<string>;
  /** While true, notifications are kept back (a notification late on the way) until `releaseNotifications()`. */
  holdNotifications: boolean;
}

type Answer = Record<string, unknown>;

/**
 * T-Bank's internet acquiring API v2 on loopback, as its public documentation describes it
 * (see this package's README for the page behind each behaviour and the choices made where
 * the documentation is silent). Payments live in memory.
 */
export class TBankEmulator {
  readonly payments = new Map<string, EmulatedPayment>();
  readonly notifications: SentNotification[] = [];
  /** Every API call that passed the Token check, in order: method and PaymentId (or OrderId). */
  readonly calls: { method: string; id: string }[] = [];
  readonly faults: Faults = { down: false, dropAnswer: new Set(), muteNotifications: false, holdAnswer: new Set(), dropRequest: new Set(), holdNotifications: false };
  /** Notifications kept back by faults.holdNotifications, in the order they were made. */
  private readonly heldNotifications: (() => void)[] = [];
  /** Answers processed and held back (faults.holdAnswer). */
  readonly held: (() => void)[] = [];
  private server: Server | null = null;
  private nextPaymentId = 4_000_000_000 + Math.floor(Math.random() * 1_000_000) * 1000;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly now: () => Date;
  private readonly retryDelays: number[];
  private readonly minSbpAmount: number;
  url = '';

  constructor(private readonly opts: EmulatorOptions) {
    this.now = opts.now ?? (() => new Date());
    this.retryDelays = opts.retryDelaysMs ?? DEFAULT_RETRIES;
    this.minSbpAmount = opts.minSbpAmount ?? 1000;
  }

  async start(port = 0, host = '127.0.0.1'): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(port, host, resolve));
    this.url = `http://${host}:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.releaseHeld();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** The v2 base URL (what TBANK_API_URL points at). */
  get apiUrl(): string {
    return `${this.url}/v2`;
  }

  paymentsOfOrder(orderId: string): EmulatedPayment[] {
    return [...this.payments.values()].filter((p) => p.orderId === orderId);
  }

  // ---- the payer's side (what the payer's bank or the card form does) ----

  /** The payer pays: SBP through the bank app (with the bank's name), or a card on the form. */
  pay(paymentId: string, how: { method: 'sbp' | 'card'; payerBank?: string; amount?: number }): EmulatedPayment {
    const p = this.mustFind(paymentId);
    if (p.status !== 'NEW' && p.status !== 'FORM_SHOWED') throw new Error(`payment ${paymentId} is ${p.status}: it cannot be paid`);
    if (this.now() > p.redirectDueDate) {
      this.move(p, 'DEADLINE_EXPIRED');
      throw new Error(`payment ${paymentId} is past its RedirectDueDate`);
    }
    p.method = how.method;
    p.payerBank = how.payerBank ?? null;
    if (how.method === 'sbp') p.sbpPaymentId = `A${randomBytes(16).toString('hex').toUpperCase().slice(0, 31)}`;
    // A payer's bank that sent another amount than asked: reported as it was paid.
    if (how.amount !== undefined) p.remaining = how.amount;
    this.move(p, 'CONFIRMED', how.payerBank ? { BankName: how.payerBank } : undefined);
    return p;
  }

  /** The payer's bank refuses the payment. */
  reject(paymentId: string): EmulatedPayment {
    const p = this.mustFind(paymentId);
    if (p.status !== 'NEW' && p.status !== 'FORM_SHOWED') throw new Error(`payment ${paymentId} is ${p.status}: it cannot be rejected`);
    this.move(p, 'REJECTED');
    return p;
  }

  /**
   * The merchant refunds in T-Bank's own account (not through this API): the payment moves to
   * PARTIAL_REFUNDED or REFUNDED, and its notification is sent like any other.
   */
  refundAtAcquirer(paymentId: string, amount?: number): EmulatedPayment {
    const p = this.mustFind(paymentId);
    if (p.status !== 'CONFIRMED' && p.status !== 'PARTIAL_REFUNDED') throw new Error(`payment ${paymentId} is ${p.status}: it cannot be refunded`);
    const kopecks = amount ?? p.remaining;
    if (!Number.isInteger(kopecks) || kopecks <= 0 || kopecks > p.remaining) throw new Error(`refund of ${kopecks} kopecks: ${p.remaining} left`);
    p.remaining -= kopecks;
    p.lastRefund = kopecks;
    this.move(p, p.remaining === 0 ? 'REFUNDED' : 'PARTIAL_REFUNDED');
    return p;
  }

  /** Sends the notifications kept back by faults.holdNotifications (and stops keeping them). */
  releaseNotifications(): void {
    this.faults.holdNotifications = false;
    for (const send of this.heldNotifications.splice(0)) send();
  }

  /** Sends the payment's current status again, as a duplicate notification would arrive. */
  renotify(paymentId: string): void {
    const p = this.mustFind(paymentId);
    this.notify(p);
  }

  // ---- HTTP ----

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const url = new URL(req.url ?? '/', this.url);
      const raw = await readBody(req);
      if (url.pathname === '/readyz') return send(res, 200, 'text/plain', 'ok');
      if (url.pathname.startsWith('/v2/') && req.method === 'POST') return this.api(url.pathname.slice(4), raw, req, res);
      if (url.pathname.startsWith('/control/')) return this.control(url, req.method ?? 'GET', raw, res);
      const form = /^\/(pay|sbp)\/(\d+)$/.exec(url.pathname);
      if (form) return this.payerPage(form[1] as 'pay' | 'sbp', form[2]!, req.method ?? 'GET', raw, res);
      send(res, 404, 'text/plain', 'not found');
    } catch (err) {
      send(res, 500, 'text/plain', (err as Error).message);
    }
  }

  private api(method: string, raw: string, req: IncomingMessage, res: ServerResponse): void {
    if (this.faults.down) return send(res, 503, 'text/html', '<html><body>Service Unavailable</body></html>');
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return json(res, failure('9999', 'Неверный формат запроса', 'The body is not JSON'));
    }
    const terminal = typeof body.TerminalKey === 'string' ? body.TerminalKey : '';
    const password = this.opts.terminals[terminal];
    if (password === undefined) return json(res, failure('501', 'Терминал не найден', `TerminalKey ${terminal}`));
    if (!tokenMatches(body, password)) return json(res, failure('204', 'Неверный токен. Проверьте пару TerminalKey/SecretKey', ''));
    if (this.faults.dropRequest.delete(method)) {
      // Lost on the way: the acquirer never sees it, and the caller gets no answer.
      req.socket.destroy();
      return;
    }
    this.calls.push({ method, id: String(body.PaymentId ?? body.OrderId ?? '') });
    const handler = this.methods[method];
    const answer = handler ? handler(body, terminal) : failure('9999', 'Метод не найден', method);
    if (this.faults.dropAnswer.delete(method)) {
      // Processed, then the connection dies before the answer: the caller cannot tell what happened.
      req.socket.destroy();
      return;
    }
    if (this.faults.holdAnswer.delete(method)) {
      this.held.push(() => json(res, { TerminalKey: terminal, ...answer }));
      return;
    }
    json(res, { TerminalKey: terminal, ...answer });
  }

  /**
   * No fault any more (tests call it between cases): answers, requests and notifications go
   * through again. What is already held back stays held until releaseHeld / releaseNotifications.
   */
  clearFaults(): void {
    Object.assign(this.faults, { down: false, muteNotifications: false, holdNotifications: false });
    for (const methods of [this.faults.dropAnswer, this.faults.holdAnswer, this.faults.dropRequest]) methods.clear();
  }

  /** Sends the answers held back by faults.holdAnswer (to callers still listening). */
  releaseHeld(): void {
    for (const answer of this.held.splice(0)) answer();
  }

  private readonly methods: Record<string, (b: Record<string, unknown>, terminal: string) => Answer> = {
    Init: (b, terminal) => {
      const amount = b.Amount;
      if (typeof amount !== 'number' || !Number.isInteger(amount) || amount <= 0 || String(amount).length > 10) {
        return failure('240', 'Поле Amount числовое значение должно укладываться в формат', `Amount ${String(amount)}: kopecks, an integer of at most 10 digits`);
      }
      const orderId = typeof b.OrderId === 'string' ? b.OrderId : '';
      if (orderId.length === 0 || orderId.length > 36) return failure('9999', 'Неверные параметры', 'OrderId: 1 to 36 characters');
      if (typeof b.Description === 'string' && b.Description.length > 140) return failure('9999', 'Неверные параметры', 'Description: at most 140 characters');
      const now = this.now();
      let due = new Date(now.getTime() + DEFAULT_DUE_MS);
      if (b.RedirectDueDate !== undefined) {
        const text = String(b.RedirectDueDate);
        if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/.test(text)) return failure('9999', 'Неверные параметры', 'RedirectDueDate: YYYY-MM-DDTHH24:MI:SS+GMT');
        due = new Date(text);
        const ahead = due.getTime() - now.getTime();
        if (ahead < MIN_DUE_MS || ahead > MAX_DUE_MS) return failure('9999', 'Неверные параметры', 'RedirectDueDate: from 1 minute to 90 days from now');
      }
      const data = (b.DATA && typeof b.DATA === 'object' ? b.DATA : {}) as Record<string, string>;
      const paymentId = String((this.nextPaymentId += 1));
      const p: EmulatedPayment = {
        paymentId,
        terminalKey: terminal,
        orderId,
        amount,
        remaining: amount,
        status: 'NEW',
        description: typeof b.Description === 'string' ? b.Description : null,
        notificationUrl: typeof b.NotificationURL === 'string' ? b.NotificationURL : null,
        redirectDueDate: due,
        data,
        method: null,
        sbpPaymentId: null,
        payerBank: null,
        createdAt: now,
        cancels: new Map(),
        lastRefund: null,
      };
      this.payments.set(paymentId, p);
      return { Success: true, ErrorCode: '0', Status: 'NEW', PaymentId: paymentId, OrderId: orderId, Amount: amount, PaymentURL: `${this.url}/pay/${paymentId}` };
    },

    GetQr: (b, terminal) => {
      const p = this.ofTerminal(b.PaymentId, terminal);
      if (!p) return failure('255', 'Платеж не найден', `PaymentId ${String(b.PaymentId)}`);
      if (p.status !== 'NEW' && p.status !== 'FORM_SHOWED') return failure('8', 'Неверный статус транзакции', `Status ${p.status}`);
      if (p.amount < this.minSbpAmount) return failure('251', `Неверная сумма. Сумма должна быть больше или равна ${this.minSbpAmount} копеек`, 'SBP minimum');
      const type = b.DataType ?? 'PAYLOAD';
      const payload = `${this.url}/sbp/${p.paymentId}`;
      const data =
        type === 'IMAGE'
          ? `<svg xmlns="http://www.w3.org/2000/svg"><text>${payload}</text></svg>`
          : type === 'PAYLOAD'
            ? payload
            : null;
      if (data === null) return failure('9999', 'Неверные параметры', 'DataType: PAYLOAD or IMAGE');
      return { Success: true, ErrorCode: '0', OrderId: p.orderId, PaymentId: Number(p.paymentId), Data: data };
    },

    GetState: (b, terminal) => {
      const p = this.ofTerminal(b.PaymentId, terminal);
      if (!p) return failure('255', 'Платеж не найден', `PaymentId ${String(b.PaymentId)}`);
      this.expireIfDue(p);
      const params = p.method ? [{ Key: 'Source', Value: p.method === 'sbp' ? 'qrsbp' : 'cards' }] : [];
      if (p.payerBank) params.push({ Key: 'BankName', Value: p.payerBank });
      // Amount: what the payment holds now (paid, less refunds); see the README.
      return { Success: true, ErrorCode: '0', Status: p.status, PaymentId: p.paymentId, OrderId: p.orderId, Amount: p.remaining, Params: params };
    },

    GetQrState: (b, terminal) => {
      const p = this.ofTerminal(b.PaymentId, terminal);
      if (!p) return failure('255', 'Платеж не найден', `PaymentId ${String(b.PaymentId)}`);
      if (p.method !== 'sbp' || p.lastRefund === null) return failure('8', 'Неверный статус транзакции', 'no SBP refund of this payment');
      return { Success: true, ErrorCode: '0', Status: p.status, OrderId: p.orderId, Amount: p.lastRefund };
    },

    CheckOrder: (b, terminal) => {
      const orderId = String(b.OrderId ?? '');
      const payments = this.paymentsOfOrder(orderId).filter((p) => p.terminalKey === terminal);
      return {
        Success: true,
        ErrorCode: '0',
        OrderId: orderId,
        Payments: payments.map((p) => ({ PaymentId: p.paymentId, Amount: p.amount, Status: p.status, Success: true, ErrorCode: '0', ...(p.sbpPaymentId ? { SbpPaymentId: p.sbpPaymentId } : {}) })),
      };
    },

    Cancel: (b, terminal) => {
      const p = this.ofTerminal(b.PaymentId, terminal);
      if (!p) return failure('255', 'Платеж не найден', `PaymentId ${String(b.PaymentId)}`);
      // "Параметр не работает для операций по СБП": an SBP payment's Cancel is never deduplicated.
      const key = typeof b.ExternalRequestId === 'string' && b.ExternalRequestId !== '' && p.method !== 'sbp' ? b.ExternalRequestId : null;
      const earlier = key ? p.cancels.get(key) : undefined;
      if (earlier) return { ...earlier, Status: p.status };
      this.expireIfDue(p);
      const original = p.remaining;
      let answer: Answer;
      if (p.status === 'NEW' || p.status === 'FORM_SHOWED') {
        // A payment not yet paid is cancelled whole; Amount is ignored (documented).
        this.move(p, 'CANCELED');
        answer = { Success: true, ErrorCode: '0', Status: 'CANCELED', OriginalAmount: original, NewAmount: 0 };
      } else if (p.status === 'CONFIRMED' || p.status === 'PARTIAL_REFUNDED') {
        const amount = b.Amount === undefined ? p.remaining : b.Amount;
        if (typeof amount !== 'number' || !Number.isInteger(amount) || amount <= 0) return failure('9999', 'Неверные параметры', 'Amount: kopecks, a positive integer');
        if (amount > p.remaining) return failure('330', 'Сумма в запросе больше чем в оригинальной транзакции', `Amount ${amount} > ${p.remaining}`);
        p.remaining -= amount;
        p.lastRefund = amount;
        this.move(p, p.remaining === 0 ? 'REFUNDED' : 'PARTIAL_REFUNDED');
        answer = { Success: true, ErrorCode: '0', Status: p.status, OriginalAmount: original, NewAmount: p.remaining };
      } else {
        return failure('8', 'Неверный статус транзакции', `Status ${p.status}`);
      }
      answer = { ...answer, OrderId: p.orderId, PaymentId: Number(p.paymentId), ...(key ? { ExternalRequestId: key } : {}) };
      if (key) p.cancels.set(key, answer);
      return answer;
    },
  };

  /** Test and developer controls: what the payer's bank would do, and faults. */
  private control(url: URL, method: string, raw: string, res: ServerResponse): void {
    const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    const m = /^\/control\/payments\/(\d+)\/(pay|reject|renotify|refund)$/.exec(url.pathname);
    if (m && method === 'POST') {
      const [, id, action] = m;
      try {
        if (action === 'pay') {
          const how = { method: (body.method === 'card' ? 'card' : 'sbp') as 'sbp' | 'card', payerBank: typeof body.payerBank === 'string' ? body.payerBank : undefined, amount: typeof body.amount === 'number' ? body.amount : undefined };
          return json(res, view(this.pay(id!, how)));
        }
        if (action === 'reject') return json(res, view(this.reject(id!)));
        if (action === 'refund') return json(res, view(this.refundAtAcquirer(id!, typeof body.amount === 'number' ? body.amount : undefined)));
        this.renotify(id!);
        return json(res, { ok: true });
      } catch (err) {
        return send(res, 409, 'application/json', JSON.stringify({ error: (err as Error).message }));
      }
    }
    if (url.pathname === '/control/payments' && method === 'GET') {
      const orderId = url.searchParams.get('orderId');
      return json(res, { payments: [...this.payments.values()].filter((p) => !orderId || p.orderId === orderId).map(view) });
    }
    if (url.pathname === '/control/faults' && method === 'POST') {
      if (typeof body.down === 'boolean') this.faults.down = body.down;
      if (typeof body.muteNotifications === 'boolean') this.faults.muteNotifications = body.muteNotifications;
      if (typeof body.dropAnswer === 'string') this.faults.dropAnswer.add(body.dropAnswer);
      if (typeof body.dropRequest === 'string') this.faults.dropRequest.add(body.dropRequest);
      if (body.holdNotifications === true) this.faults.holdNotifications = true;
      if (body.holdNotifications === false) this.releaseNotifications();
      return json(res, {
        down: this.faults.down,
        muteNotifications: this.faults.muteNotifications,
        holdNotifications: this.faults.holdNotifications,
        dropAnswer: [...this.faults.dropAnswer],
        dropRequest: [...this.faults.dropRequest],
      });
    }
    send(res, 404, 'text/plain', 'no such control');
  }

  /** PaymentURL (`/pay/{id}`: the card form) and the SBP payload (`/sbp/{id}`: the payer's bank app). */
  private payerPage(kind: 'pay' | 'sbp', id: string, method: string, raw: string, res: ServerResponse): void {
    const p = this.payments.get(id);
    if (!p) return send(res, 404, 'text/html', '<p>No such payment</p>');
    if (method === 'POST') {
      const form = new URLSearchParams(raw);
      try {
        if (form.get('action') === 'reject') this.reject(id);
        else this.pay(id, { method: kind === 'pay' ? 'card' : 'sbp', payerBank: kind === 'sbp' ? (form.get('bank') ?? 'Emulated Bank') : undefined });
      } catch (err) {
        return send(res, 409, 'text/html', `<p>${escapeHtml((err as Error).message)}</p>`);
      }
      return send(res, 200, 'text/html', `<p data-status="${p.status}">Payment ${p.paymentId}: ${p.status}</p>`);
    }
    if (kind === 'pay' && p.status === 'NEW') this.move(p, 'FORM_SHOWED');
    const rubles = (p.amount / 100).toFixed(2);
    const fields =
      kind === 'pay'
        ? '<label>Card number <input name="card" value="4300000000000777"></label>'
        : '<label>Your bank <input name="bank" value="Emulated Bank"></label>';
    send(
      res,
      200,
      'text/html',
      `<!doctype html><title>T-Bank emulator</title><h1>${rubles} RUB</h1><p>${escapeHtml(p.description ?? '')}</p><p data-status="${p.status}">Status: ${p.status}</p>` +
        `<form method="post">${fields}<button name="action" value="pay">Pay</button><button name="action" value="reject">Decline</button></form>`,
    );
  }

  // ---- state and notifications ----

  private mustFind(paymentId: string): EmulatedPayment {
    const p = this.payments.get(paymentId);
    if (!p) throw new Error(`no payment ${paymentId}`);
    return p;
  }

  private ofTerminal(paymentId: unknown, terminal: string): EmulatedPayment | null {
    const p = this.payments.get(String(paymentId ?? ''));
    return p && p.terminalKey === terminal ? p : null;
  }

  private expireIfDue(p: EmulatedPayment): void {
    if ((p.status === 'NEW' || p.status === 'FORM_SHOWED') && this.now() > p.redirectDueDate) this.move(p, 'DEADLINE_EXPIRED');
  }

  private move(p: EmulatedPayment, status: PaymentStatus, extra?: Record<string, string>): void {
    p.status = status;
    // FORM_SHOWED is not among the statuses the documentation notifies.
    if (status !== 'FORM_SHOWED') this.notify(p, extra);
  }

  /** Signs and sends the payment's status to its NotificationURL, retrying until the answer is `OK`. */
  private notify(p: EmulatedPayment, extra?: Record<string, string>): void {
    if (!p.notificationUrl || this.faults.muteNotifications) return;
    const password = this.opts.terminals[p.terminalKey]!;
    const fields: Record<string, unknown> = {
      TerminalKey: p.terminalKey,
      OrderId: p.orderId,
      Success: p.status !== 'REJECTED',
      Status: p.status,
      PaymentId: Number(p.paymentId),
      ErrorCode: p.status === 'REJECTED' ? '1051' : '0',
      Amount: p.status === 'CONFIRMED' ? p.remaining : p.amount,
      ...(p.method === 'card' ? { CardId: 322264, Pan: '430000******0777', ExpDate: '1130' } : {}),
    };
    const data = { ...extra };
    const body = { ...fields, Token: acquirerToken(fields, password), ...(Object.keys(data).length ? { Data: data } : {}) };
    const record: SentNotification = { paymentId: p.paymentId, status: p.status, body, attempts: [], delivered: false };
    this.notifications.push(record);
    const url = p.notificationUrl;
    if (this.faults.holdNotifications) this.heldNotifications.push(() => void this.deliver(url, record, 0));
    else void this.deliver(url, record, 0);
  }

  private async deliver(url: string, record: SentNotification, attempt: number): Promise<void> {
    let answer = { status: 0, body: '' };
    try {
      const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(record.body), signal: AbortSignal.timeout(10_000) });
      answer = { status: res.status, body: await res.text() };
    } catch (err) {
      answer = { status: 0, body: (err as Error).message };
    }
    record.attempts.push(answer);
    if (answer.status === 200 && answer.body === 'OK') {
      record.delivered = true;
      return;
    }
    const delay = this.retryDelays[attempt];
    if (delay === undefined || !this.server?.listening) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      void this.deliver(url, record, attempt + 1);
    }, delay);
    t.unref();
    this.timers.add(t);
  }
}

function failure(code: string, message: string, details: string): Answer {
  return { Success: false, ErrorCode: code, Message: message, Details: details };
}

function view(p: EmulatedPayment) {
  return {
    paymentId: p.paymentId,
    orderId: p.orderId,
    amount: p.amount,
    remaining: p.remaining,
    status: p.status,
    method: p.method,
    sbpPaymentId: p.sbpPaymentId,
    payerBank: p.payerBank,
    redirectDueDate: p.redirectDueDate.toISOString(),
    data: p.data,
    description: p.description,
    notificationUrl: p.notificationUrl,
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'Content-Type': `${type}; charset=utf-8` });
  res.end(body);
}

function json(res: ServerResponse, body: unknown): void {
  send(res, 200, 'application/json', JSON.stringify(body));
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
