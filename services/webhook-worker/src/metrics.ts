import { Counter, Gauge, Histogram } from 'prom-client';
import { metricsRegistry, oncePerScrape, scrapedGauge } from '@pay/runtime';

export type AttemptOutcome = 'succeeded' | 'http_error' | 'network_error' | 'refused' | 'not_sent';

type Depth = { undispatched: number; due: number; scheduled: number; inProcess: number; oldestDueSeconds: number; endpointsDisabled: number };

// Registered once per process in the process's registry (a second registration of a name
// throws); every DeliveryMetrics shares them.
const attempts = new Counter({
  name: 'webhook_attempts_total',
  help: 'Delivery attempts by outcome: succeeded (2xx), http_error (other status), network_error (no answer, timeout), refused (private address), not_sent (endpoint disabled)',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});
const attemptDuration = new Histogram({
  name: 'webhook_attempt_duration_seconds',
  help: 'Duration of one delivery request, until the answer was read',
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metricsRegistry],
});
const firstAttemptLatency = new Histogram({
  name: 'webhook_first_attempt_latency_seconds',
  help: 'From the event being recorded to the end of its first delivery attempt',
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [metricsRegistry],
});
const deliveryLatency = new Histogram({
  name: 'webhook_delivery_latency_seconds',
  help: 'From the event being recorded to the attempt that delivered it (retries included)',
  buckets: [0.05, 0.25, 1, 5, 30, 60, 300, 900, 3600, 4 * 3600, 6 * 3600],
  registers: [metricsRegistry],
});
let depthSource: (() => Promise<Depth>) | null = null;
/** One read of the depth per scrape, shared by the gauges below; null while no worker runs here. */
const depthNow = oncePerScrape(async () => (depthSource ? depthSource() : null));
new Gauge({
  name: 'webhook_queue_depth',
  help: 'Work waiting: events not yet turned into deliveries, deliveries due now, deliveries scheduled for a retry, and deliveries held in this process',
  labelNames: ['state'] as const,
  registers: [metricsRegistry],
  async collect() {
    const d = await depthNow();
    if (!d) return;
    this.set({ state: 'undispatched' }, d.undispatched);
    this.set({ state: 'due' }, d.due);
    this.set({ state: 'scheduled' }, d.scheduled);
    this.set({ state: 'in_process' }, d.inProcess);
  },
});

scrapedGauge(depthNow, 'webhook_oldest_due_delivery_age_seconds', 'How long the oldest delivery due now has been due (0 when none is): deliveries falling behind', (r) => r.oldestDueSeconds);
scrapedGauge(depthNow, 'webhook_endpoints_disabled', 'Webhook endpoints disabled after failing for too long (their deliveries wait for a re-enable in the console)', (r) => r.endpointsDisabled);

/**
 * The worker's delivery metrics, in the process's registry (served at /metrics with the HTTP
 * and queue metrics). `depth` is read at every scrape; the latest DeliveryMetrics made gives it.
 */
export class DeliveryMetrics {
  readonly attempts = attempts;
  readonly attemptDuration = attemptDuration;
  readonly firstAttemptLatency = firstAttemptLatency;
  readonly deliveryLatency = deliveryLatency;

  constructor(depth: () => Promise<Depth>) {
    depthSource = depth;
  }
}
