import { acquirerCalls, type CallOutcome } from '../metrics';
import { signed, type TBankParams } from './token';

/** The acquirer could not be asked: unreachable, timed out, or it answered no readable JSON. Safe to retry. */
export class AcquirerUnavailable extends Error {
  constructor(
    method: string,
    cause: string,
    readonly outcome: Exclude<CallOutcome, 'ok' | 'refused'>,
  ) {
    super(`T-Bank ${method}: ${cause}`);
    this.name = 'AcquirerUnavailable';
  }
}

/** The acquirer answered `Success: false`: it refused the request, with its own error code. */
export class AcquirerRefused extends Error {
  constructor(
    readonly method: string,
    readonly errorCode: string,
    readonly acquirerMessage: string,
    readonly acquirerDetails: string,
  ) {
    super(`T-Bank ${method} refused (ErrorCode ${errorCode}): ${[acquirerMessage, acquirerDetails].filter(Boolean).join('. ')}`);
    this.name = 'AcquirerRefused';
  }
}

export interface TBankClientOptions {
  /** The v2 base URL, e.g. https://securepay.tinkoff.ru/v2 */
  apiUrl: string;
  terminalKey: string;
  password: string;
  timeoutMs: number;
  /** The terminal's mode, as its calls are counted (invoicing_acquirer_calls_total). */
  mode: 'live' | 'test';
}

/** A successful answer: `Success: true`, `ErrorCode` "0", and the method's own fields. */
export type TBankAnswer = Record<string, unknown> & { Success: true; ErrorCode: string };

/**
 * The acquirer's HTTP API: every method is a POST of JSON to `{apiUrl}/{Method}` with
 * TerminalKey and the request Token; the answer says `Success` and `ErrorCode`.
 */
export class TBankClient {
  constructor(private readonly opts: TBankClientOptions) {}

  get terminalKey(): string {
    return this.opts.terminalKey;
  }

  get password(): string {
    return this.opts.password;
  }

  /** Calls `method`, counting how the call ended (invoicing_acquirer_calls_total). */
  async call(method: string, params: TBankParams): Promise<TBankAnswer> {
    const labels = { provider: 'tbank', mode: this.opts.mode, method };
    try {
      const answer = await this.send(method, params);
      acquirerCalls.inc({ ...labels, outcome: 'ok' });
      return answer;
    } catch (err) {
      acquirerCalls.inc({ ...labels, outcome: err instanceof AcquirerUnavailable ? err.outcome : 'refused' });
      throw err;
    }
  }

  private async send(method: string, params: TBankParams): Promise<TBankAnswer> {
    const body = JSON.stringify(signed({ TerminalKey: this.opts.terminalKey, ...params }, this.opts.password));
    let res: Response;
    try {
      res = await fetch(`${this.opts.apiUrl.replace(/\/+$/, '')}/${method}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body,
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
    } catch (err) {
      const timedOut = (err as Error).name === 'TimeoutError';
      throw new AcquirerUnavailable(method, timedOut ? `no answer in ${this.opts.timeoutMs} ms` : `unreachable (${(err as Error).message})`, timedOut ? 'timeout' : 'unreachable');
    }
    const text = await res.text().catch(() => null);
    if (!res.ok) throw new AcquirerUnavailable(method, `HTTP ${res.status}`, 'http_error');
    // The connection died while the body came (or the timeout struck then): no answer.
    if (text === null) throw new AcquirerUnavailable(method, 'the answer was cut off', 'unreachable');
    let answer: Record<string, unknown>;
    try {
      answer = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new AcquirerUnavailable(method, 'the answer is not JSON', 'bad_answer');
    }
    if (answer.Success !== true || String(answer.ErrorCode ?? '0') !== '0') {
      throw new AcquirerRefused(method, String(answer.ErrorCode ?? ''), String(answer.Message ?? ''), String(answer.Details ?? ''));
    }
    return answer as TBankAnswer;
  }
}
