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
  'req.headers["x-console-session"]',
  'res.headers["set-cookie"]',
  'apiKey',
  'hmacSecret',
  'secret',
  '*.apiKey',
  '*.hmacSecret',
  '*.secret',
];

/** Log lines are written once this much is buffered, or at the latest after FLUSH_MS. */
const LOG_BUFFER_BYTES = 4096;
const FLUSH_MS = 250;

/**
 * stdout, written without blocking: a synchronous write stalls the event loop whenever the
 * reader of the pipe falls behind (measured: a tenth of the crypto service's CPU under load).
 * Lines are gathered into writes of about 4 KB (a dozen request lines) rather than a system call
 * each, and flushed at least every 250 ms, so a quiet process still shows its lines at once;
 * pino flushes what is left synchronously when the process exits.
 */
function stdoutDestination(): pino.DestinationStream {
  const destination = pino.destination({ dest: 1, sync: false, minLength: LOG_BUFFER_BYTES });
  setInterval(() => {
    try {
      destination.flush();
    } catch {
      // Closed at exit, or a flush already under way: the next tick or pino's exit flush writes it.
    }
  }, FLUSH_MS).unref();
  return destination;
}

export function createLogger(service: string, level = 'info', destination: pino.DestinationStream = stdoutDestination()): Logger {
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
