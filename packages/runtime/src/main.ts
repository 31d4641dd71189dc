import { ConfigError } from './config';

/**
 * Entry point of every service process: a configuration problem is the operator's to fix,
 * so it is printed plainly (no stack trace) before exiting non-zero.
 */
export function runMain(start: () => Promise<void>): void {
  start().catch((err: unknown) => {
    if (err instanceof ConfigError) console.error(err.message);
    else console.error(err);
    process.exit(1);
  });
}
