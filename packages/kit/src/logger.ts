import pino, { type Logger } from 'pino';

/**
 * Paths that may carry credentials. Request bodies are never logged at all, so the secrets
 * they return (API keys, HMAC secrets) cannot leak through the logger either.
 */
export const REDACTED_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers["x-signature"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
  'apiKey',
  'hmacSecret',
  'secret',
  '*.apiKey',
  '*.hmacSecret',
  '*.secret',
];

/**
 * Logs go to stdout without blocking: a synchronous write stalls the event loop whenever the
 * reader of the pipe falls behind (measured: a tenth of the crypto service's CPU under load).
 * pino flushes what is buffered synchronously when the process exits.
 */
export function createLogger(service: string, level = 'info', destination: pino.DestinationStream = pino.destination({ dest: 1, sync: false })): Logger {
  return pino(
    {
      name: service,
      level,
      base: { service },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}

export type { Logger };
