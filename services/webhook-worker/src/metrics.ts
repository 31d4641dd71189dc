import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export type AttemptOutcome = 'succeeded' | 'http_error' | 'network_error' | 'refused' | 'not_sent';

/** The worker's Prometheus metrics, served at /metrics. */
export class DeliveryMetrics {
  readonly registry = new Registry();
  readonly attempts = new Counter({
    name: 'webhook_attempts_total',
    help: 'Delivery attempts by outcome: succeeded (2xx), http_error (other status), network_error (no answer, timeout), refused (private address), not_sent (endpoint disabled)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly attemptDuration = new Histogram({
    name: 'webhook_attempt_duration_seconds',
    help: 'Duration of one delivery request, until the answer was read',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly firstAttemptLatency = new Histogram({
    name: 'webhook_first_attempt_latency_seconds',
    help: 'From the event being recorded to the end of its first delivery attempt',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  readonly deliveryLatency = new Histogram({
    name: 'webhook_delivery_latency_seconds',
    help: 'From the event being recorded to the attempt that delivered it (retries included)',
    buckets: [0.05, 0.25, 1, 5, 30, 60, 300, 900, 3600, 4 * 3600, 6 * 3600],
    registers: [this.registry],
  });

  constructor(depth: () => Promise<{ undispatched: number; due: number; scheduled: number; inProcess: number }>) {
    collectDefaultMetrics({ register: this.registry });
    new Gauge({
      name: 'webhook_queue_depth',
      help: 'Work waiting: events not yet turned into deliveries, deliveries due now, deliveries scheduled for a retry, and deliveries held in this process',
      labelNames: ['state'] as const,
      registers: [this.registry],
      async collect() {
        const d = await depth();
        this.set({ state: 'undispatched' }, d.undispatched);
        this.set({ state: 'due' }, d.due);
        this.set({ state: 'scheduled' }, d.scheduled);
        this.set({ state: 'in_process' }, d.inProcess);
      },
    });
  }
}
