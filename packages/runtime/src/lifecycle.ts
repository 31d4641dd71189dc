import type { Logger } from 'pino';

type Closer = { name: string; close: () => Promise<unknown> | unknown };

/**
 * Work given up because its process is shutting down (an engine closed under a running job),
 * not because it failed: nothing was decided, and it runs again elsewhere without counting as
 * one of its job's attempts (see @pay/queue's startWorker).
 */
export class ShutdownAbort extends Error {
  override readonly name = 'ShutdownAbort';
}

/**
 * Ordered shutdown. First a drain window (`drainMs`): the process still serves, but
 * `isShuttingDown` is already true, so /readyz answers 503 and a balancer (a Kubernetes
 * Service, an upstream proxy) stops sending new requests before any connection is refused.
 * Then closers run in the order they were registered (listener first, so no new work
 * arrives; then workers finish their jobs; pools close last), bounded by `timeoutMs`.
 */
export class Lifecycle {
  private readonly closers: Closer[] = [];
  private shuttingDown: Promise<void> | null = null;
  private timedOutFlag = false;

  constructor(
    private readonly logger: Logger,
    /** The bound on the closers, after the drain; closers may plan within it. */
    readonly timeoutMs: number,
    /** How long the process keeps serving, reported not ready, before it starts closing. */
    readonly drainMs = 0,
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
    this.logger.info({ reason, drainMs: this.drainMs }, 'shutting down');
    let timer: NodeJS.Timeout | undefined;
    const run = (async () => {
      if (this.drainMs > 0) await new Promise((r) => setTimeout(r, this.drainMs));
      for (const c of this.closers) {
        try {
          await c.close();
          this.logger.debug({ closer: c.name }, 'closed');
        } catch (err) {
          this.logger.error({ err, closer: c.name }, 'close failed');
        }
      }
    })();
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.timedOutFlag = true;
        this.logger.warn({ timeoutMs: this.timeoutMs }, 'shutdown timed out');
        resolve();
      }, this.drainMs + this.timeoutMs);
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
