/** Who is calling, as established by `requireApiKey`. Routes read it from `req.auth`. */
export interface AuthContext {
  keyId: string;
  merchantId: string;
  isTestMode: boolean;
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
