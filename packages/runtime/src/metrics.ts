import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { stuckParts } from './liveness';
import { openPools } from '@pay/db';

/**
 * The process's Prometheus metrics, served at /metrics by every service (`createHttpApp`).
 * One registry per process, like prom-client's own default: a process is one service, and
 * the request path, the queue workers and the webhook worker all add to it without being
 * handed a registry.
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

/** Per route pattern (`/api/v2/invoices/:id`), never per raw path, so ids do not multiply series. */
export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP requests by method, route pattern (unmatched for paths no route knows) and status, until the answer was sent',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metricsRegistry],
});

export const queueJobOutcomes = new Counter({
  name: 'queue_jobs_total',
  help: 'Jobs this process ran, by queue and outcome (completed, failed: a failed job is retried per its queue options)',
  labelNames: ['queue', 'outcome'] as const,
  registers: [metricsRegistry],
});

/**
 * A read shared by the gauges that one scrape collects (each gauge collects on its own): `read`
 * runs at most once a second, and its answer (or its failure) serves the calls in between.
 */
export function oncePerScrape<T>(read: () => Promise<T>): () => Promise<T> {
  let last: { at: number; value: Promise<T> } | null = null;
  return () => {
    if (!last || Date.now() - last.at > 1000) last = { at: Date.now(), value: read() };
    return last.value;
  };
}

/**
 * A gauge set at each scrape from a shared read (`oncePerScrape`). While the read gives null
 * (nothing to report in this process, or the source is away) the gauge keeps its last value.
 */
export function scrapedGauge<T>(read: () => Promise<T | null>, name: string, help: string, value: (r: T) => number): Gauge {
  return new Gauge({
    name,
    help,
    registers: [metricsRegistry],
    async collect() {
      const r = await read();
      if (r !== null) this.set(value(r));
    },
  });
}

/**
 * What a labelled gauge reads at each scrape, by label: a later `watch` of the same label
 * replaces the earlier one, and the function it returns removes it (if it is still the one).
 */
function scrapeSources<T>() {
  const sources = new Map<string, T>();
  return {
    sources,
    watch(label: string, source: T): () => void {
      sources.set(label, source);
      return () => {
        if (sources.get(label) === source) sources.delete(label);
      };
    },
  };
}

const depth = scrapeSources<() => Promise<Record<string, number>>>();

/** Reports a queue's job counts by state at every scrape (registered by the queue's consumer). */
export const watchQueueDepth = depth.watch;

new Gauge({
  name: 'queue_jobs',
  help: 'Jobs in each queue this process consumes, by state (waiting, active, delayed, failed)',
  labelNames: ['queue', 'state'] as const,
  registers: [metricsRegistry],
  async collect() {
    this.reset();
    await Promise.all(
      [...depth.sources].map(async ([queue, counts]) => {
        try {
          for (const [state, n] of Object.entries(await counts())) this.set({ queue, state }, n);
        } catch {
          // Redis away: the scrape still answers, without this queue's depth.
        }
      }),
    );
  },
});

new Gauge({
  name: 'db_pool_connections',
  help: "Postgres connections of this process's pool for a schema: open (total), idle, the queries waiting for one (waiting), and the pool's size (max, DATABASE_POOL_MAX's share)",
  labelNames: ['schema', 'state'] as const,
  registers: [metricsRegistry],
  collect() {
    this.reset();
    for (const [schema, p] of openPools()) {
      this.set({ schema, state: 'total' }, p.totalCount);
      this.set({ schema, state: 'idle' }, p.idleCount);
      this.set({ schema, state: 'waiting' }, p.waitingCount);
      this.set({ schema, state: 'max' }, p.options.max ?? 10);
    }
  },
});

const readiness = scrapeSources<() => Promise<boolean>>();

/** Reports whether the service would answer /readyz 200, evaluated at every scrape (healthRoutes registers it). */
export const watchReadiness = readiness.watch;

new Gauge({
  name: 'service_ready',
  help: 'Whether the service would answer /readyz 200 now (1) or 503 (0): its database and Redis answer and it is not shutting down',
  labelNames: ['service'] as const,
  registers: [metricsRegistry],
  async collect() {
    this.reset();
    await Promise.all([...readiness.sources].map(async ([service, ready]) => this.set({ service }, (await ready().catch(() => false)) ? 1 : 0)));
  },
});

new Gauge({
  name: 'process_stuck',
  help: 'Parts of this process stuck in a way only a restart ends (1 each): a queue worker leaving jobs waiting with a slot free. /healthz answers 503 while any is',
  labelNames: ['part'] as const,
  registers: [metricsRegistry],
  collect() {
    this.reset();
    for (const part of Object.keys(stuckParts())) this.set({ part }, 1);
  },
});
