import { ApiError } from '@pay/schemas';

/** Who is calling, as established by `requireApiKey`. Routes read it from `req.auth`. */
export interface AuthContext {
  keyId: string;
  merchantId: string;
  isTestMode: boolean;
}

/**
 * Whose data a request reads and writes: the merchant, in the mode of the calling key. Test
 * and live data never mix, so every query of merchant data filters by both.
 */
export interface Owner {
  merchantId: string;
  isTest: boolean;
}

export function ownerOf(auth: AuthContext): Owner {
  return { merchantId: auth.merchantId, isTest: auth.isTestMode };
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The body bytes exactly as received; signatures are computed over these, not over a re-serialisation. */
      rawBody?: Buffer;
      auth?: AuthContext;
    }
  }
}

/**
 * Actions that reach live credentials or live event delivery need a live key: a test key
 * (often handed to CI or staging) must never be able to take over the live account.
 */
export function assertLiveKey(auth: AuthContext, action: string): void {
  if (auth.isTestMode) {
    throw new ApiError('FORBIDDEN', `A test key cannot ${action}; use a live key (sk_live_…)`);
  }
}
