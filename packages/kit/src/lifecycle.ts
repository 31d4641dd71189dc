import type { Logger } from 'pino';

type Closer = { name: string; close: () => Promise<unknown> | unknown };

/**
 * Ordered shutdown: closers run in the order they were registered (listener first, so no new
 * work arrives; then workers finish their jobs; pools close last). A timeout bounds the whole.
 */
export class Lifecycle {
  private readonly closers: Closer[] = [];
  private shuttingDown: Promise<void> | null = null;
  private timedOutFlag = false;

  constructor(
    private readonly logger: Logger,
    /** The bound on the whole shutdown; closers may plan within it. */
    readonly timeoutMs: number,
  ) {}

  onShutdown(name: string, close: Closer['close']): void {
    this.closers.push({ name, close });
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown !== null;
  }

  /** True when shutdown gave up waiting on a closer; the process then exits 1. */
  get timedOut(): boolean {
    return this.timedOutFlag;
  }

  shutdown(reason: string): Promise<void> {
    if (this.shuttingDown) return this.shuttingDown;
    this.logger.info({ reason }, 'shutting down');
    const run = (async () => {
      for (const c of this.closers) {
        try {
          await c.close();
          this.logger.debug({ closer: c.name }, 'closed');
        } catch (err) {
          this.logger.error({ err, closer: c.name }, 'close failed');
        }
      }
    })();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.timedOutFlag = true;
        this.logger.warn({ timeoutMs: this.timeoutMs }, 'shutdown timed out');
        resolve();
      }, this.timeoutMs);
      timer.unref();
    });
    this.shuttingDown = Promise.race([run, timeout]).finally(() => clearTimeout(timer));
    return this.shuttingDown;
  }

  /** Wires SIGTERM/SIGINT to an orderly exit. */
  handleSignals(): void {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      process.once(signal, () => {
        void this.shutdown(signal).then(() => process.exit(this.timedOut ? 1 : 0));
      });
    }
  }
}
