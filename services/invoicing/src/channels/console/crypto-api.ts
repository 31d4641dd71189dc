import { CONSOLE_SESSION_HEADER } from '@pay/accounts';

// The fields the console shows, as crypto's OpenAPI document (docs/openapi/crypto.json)
// declares them; amounts are JSON numbers there (at most 6 places).
export type WithdrawalStatus = 'Pending' | 'Processing' | 'Completed' | 'Failed';

export interface CryptoBalances {
  balances: { currency: string; currencyName: string; network: string; networkName: string; available: number; pending: number; total: number }[];
  totalUsdValue: number;
}

interface Paged<T> {
  items: T[];
  totalCount: number;
  page: number;
  pageSize: number;
}

export type CryptoTransactionPage = Paged<{
  id: string;
  invoiceId: string;
  txHash: string;
  amount: number;
  currency: string;
  network: string;
  status: 'Pending' | 'Confirmed' | 'Failed';
  confirmations: number;
  requiredConfirmations: number;
  createdAt: string;
}>;

export type CryptoWithdrawalPage = Paged<{ id: string; withdrawalNumber: string; status: WithdrawalStatus }>;

export interface CryptoWithdrawal {
  id: string;
  withdrawalNumber: string;
  toAddress: string;
  amount: number;
  fee: number;
  netAmount: number;
  currency: string;
  network: string;
  status: WithdrawalStatus;
  createdAt: string;
  txHash: string | null;
  failureReason: string | null;
}

/** A page waits this long for crypto's answer, then says crypto is unavailable. */
const TIMEOUT_MS = 5000;

/**
 * Crypto's merchant API did not give the data: unreachable, too slow, down (5xx, 429), or it
 * refused the session. The console shows `message` in place of the data, never an error page.
 */
export class CryptoUnavailable extends Error {
  constructor(message: string, readonly status: number | null) {
    super(message);
  }
}

/**
 * The console's reader of crypto's merchant API ({crypto_base_url}, `CRYPTO_BASE_URL`): the
 * very operations a merchant calls (getBalance, listTransactions, listWithdrawals,
 * getWithdrawal), authenticated with the merchant's own console session in `X-Console-Session`,
 * which crypto accepts for reading only (packages/accounts `apiKeyOrConsoleSession`). The
 * console holds no credential of its own for crypto, and no API key: keys are stored hashed.
 */
export class CryptoReader {
  constructor(
    private readonly baseUrl: string,
    private readonly session: string,
  ) {}

  balances(): Promise<CryptoBalances> {
    return this.get('/api/v1/withdrawals/balance');
  }

  transactions(page: number, pageSize: number): Promise<CryptoTransactionPage> {
    return this.get(`/api/v1/transactions?${new URLSearchParams({ page: String(page), pageSize: String(pageSize) })}`);
  }

  withdrawals(page: number, pageSize: number, status?: WithdrawalStatus): Promise<CryptoWithdrawalPage> {
    return this.get(`/api/v1/withdrawals?${new URLSearchParams({ page: String(page), pageSize: String(pageSize), ...(status ? { status } : {}) })}`);
  }

  withdrawal(id: string): Promise<CryptoWithdrawal> {
    return this.get(`/api/v1/withdrawals/${encodeURIComponent(id)}`);
  }

  private async get<T>(path: string): Promise<T> {
    let res: Response;
    let text: string;
    try {
      res = await fetch(this.baseUrl.replace(/\/+$/, '') + path, {
        headers: { accept: 'application/json', [CONSOLE_SESSION_HEADER]: this.session },
        signal: AbortSignal.timeout(TIMEOUT_MS),
        redirect: 'error',
      });
      text = await res.text();
    } catch (err) {
      const timedOut = err instanceof Error && err.name === 'TimeoutError';
      throw new CryptoUnavailable(timedOut ? `The crypto service did not answer within ${TIMEOUT_MS / 1000} s.` : 'The crypto service cannot be reached.', null);
    }
    let body: { data?: T; error?: { message?: string } } | undefined;
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      body = undefined;
    }
    if (res.ok && body?.data !== undefined) return body.data;
    if (res.status >= 500 || res.status === 429) throw new CryptoUnavailable(`The crypto service is unavailable (HTTP ${res.status}).`, res.status);
    throw new CryptoUnavailable(`The crypto service refused the request (HTTP ${res.status}${body?.error?.message ? `: ${body.error.message}` : ''}).`, res.status);
  }
}
