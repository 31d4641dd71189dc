/**
 * Runs work per endpoint with two bounds: at most `perEndpoint` items of one endpoint at once,
 * and at most `global` of all endpoints. Endpoints take turns, so a slow or dead receiver
 * holds at most its own share and the others keep flowing. Each endpoint may keep
 * `queuePerEndpoint` items waiting; beyond that `offer` refuses, and the caller gives the
 * item back to the database for later.
 */
export class EndpointPool<T extends { endpointId: string }> {
  private readonly queues = new Map<string, T[]>();
  private readonly inFlight = new Map<string, number>();
  /** Endpoints with waiting items and a free slot, in turn order. */
  private readonly ready = new Set<string>();
  private running = 0;
  private queued = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly o: { perEndpoint: number; global: number; queuePerEndpoint: number; run: (item: T) => Promise<void>; onError: (err: unknown, item: T) => void },
  ) {}

  /** Items waiting or running. */
  get size(): number {
    return this.queued + this.running;
  }

  /**
   * Items that hold the pool's turn: those running, and those waiting at an endpoint with a
   * free slot. Items waiting behind an endpoint already at its limit do not count, so a slow
   * endpoint's backlog never keeps the others from being fed.
   */
  get load(): number {
    let waiting = 0;
    for (const id of this.ready) waiting += this.queues.get(id)?.length ?? 0;
    return this.running + waiting;
  }

  /** Endpoints that cannot take another item now. */
  saturated(): string[] {
    return [...this.queues].filter(([, q]) => q.length >= this.o.queuePerEndpoint).map(([id]) => id);
  }

  offer(item: T): boolean {
    const q = this.queues.get(item.endpointId) ?? [];
    if (q.length >= this.o.queuePerEndpoint) return false;
    q.push(item);
    this.queues.set(item.endpointId, q);
    this.queued++;
    if ((this.inFlight.get(item.endpointId) ?? 0) < this.o.perEndpoint) this.ready.add(item.endpointId);
    this.pump();
    return true;
  }

  /** Resolves when nothing waits or runs. */
  idle(): Promise<void> {
    if (this.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private pump(): void {
    while (this.running < this.o.global && this.ready.size > 0) {
      const endpointId = this.ready.values().next().value as string;
      this.ready.delete(endpointId);
      const q = this.queues.get(endpointId)!;
      const item = q.shift()!;
      this.queued--;
      if (q.length === 0) this.queues.delete(endpointId);
      const n = (this.inFlight.get(endpointId) ?? 0) + 1;
      this.inFlight.set(endpointId, n);
      this.running++;
      // Back of the turn order, if it can take more.
      if (q.length > 0 && n < this.o.perEndpoint) this.ready.add(endpointId);
      void this.o
        .run(item)
        .catch((err) => this.o.onError(err, item))
        .finally(() => this.finish(endpointId));
    }
  }

  private finish(endpointId: string): void {
    this.running--;
    const n = this.inFlight.get(endpointId)! - 1;
    if (n === 0) this.inFlight.delete(endpointId);
    else this.inFlight.set(endpointId, n);
    if (this.queues.has(endpointId)) this.ready.add(endpointId);
    this.pump();
    if (this.size === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }
}
