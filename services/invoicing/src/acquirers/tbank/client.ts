import { signed, type TBankParams } from './token';

/** The acquirer could not be asked: unreachable, timed out, or it answered no readable JSON. Safe to retry. */
export class AcquirerUnavailable extends Error {
  constructor(method: string, cause: string) {
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

  async call(method: string, params: TBankParams): Promise<TBankAnswer> {
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
      throw new AcquirerUnavailable(method, (err as Error).name === 'TimeoutError' ? `no answer in ${this.opts.timeoutMs} ms` : `unreachable (${(err as Error).message})`);
    }
    const text = await res.text().catch(() => '');
    if (!res.ok) throw new AcquirerUnavailable(method, `HTTP ${res.status}`);
    let answer: Record<string, unknown>;
    try {
      answer = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new AcquirerUnavailable(method, 'the answer is not JSON');
    }
    if (answer.Success !== true || String(answer.ErrorCode ?? '0') !== '0') {
      throw new AcquirerRefused(method, String(answer.ErrorCode ?? ''), String(answer.Message ?? ''), String(answer.Details ?? ''));
    }
    return answer as TBankAnswer;
  }
}
