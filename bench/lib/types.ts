import type { BaselineName } from '../baseline/routes';
import type { BenchConfig } from './config';

/** One HTTP request as the load generator sends it, to the service and (under its prefix) to the baseline. */
export interface BenchRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** One measured request shape, run against the real service and against its bare baseline. */
export interface Scenario<D> {
  /** `<suite>.<what>`: the name the table shows and BENCH_ONLY selects. */
  name: string;
  /** Connections at saturation, unless BENCH_CONNECTIONS says otherwise. */
  connections: number;
  /** The bare route doing the same SQL, without auth, validation or logs (bench/baseline/routes.ts). */
  baseline: BaselineName;
  /**
   * Returns the request maker. It is called for every request of every run, baseline and
   * service alike, so both pay the same load-generator cost (e.g. signing).
   */
  requests(data: D): () => BenchRequest;
}

/** What a suite started: the measured service and the data its scenarios need. */
export interface RunningSuite<D> {
  url: string;
  data: D;
  /** The service's recent output, shown when a run had errors. */
  logs(): string;
  stop(): Promise<unknown>;
}

/** The scenarios of one service, and how to start that service with their data in place. */
export interface Suite<D> {
  name: string;
  setup(config: BenchConfig): Promise<RunningSuite<D>>;
  scenarios: Scenario<D>[];
}

/** Keeps a suite's data type checked between its setup and its scenarios. */
export function defineSuite<D>(suite: Suite<D>): Suite<D> {
  return suite;
}

/** A registry entry: the data type is private to each suite. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnySuite = Suite<any>;

/** One load run's figures (latencies in ms). */
export interface Figures {
  rps: number;
  p50: number;
  p99: number;
  /** non2xx + socketErrors. */
  errors: number;
  non2xx: number;
  /** Connection errors, timeouts included. */
  socketErrors: number;
  requests: number;
  statusCodes: Record<string, number>;
  /** Socket error codes (ECONNRESET, TIMEOUT...), where the load tool tells them. */
  socketErrorCodes?: Record<string, number>;
}

export type Mode = 'saturation' | 'fixed rate';

/** One row of the table: the service and its baseline under the same load. */
export interface Comparison {
  scenario: string;
  mode: Mode;
  connections: number;
  /** Offered req/s in fixed-rate mode (a share of the baseline's saturation throughput). */
  offeredRate: number | null;
  service: Figures;
  baseline: Figures;
  /** service req/s / baseline req/s. */
  ratio: number;
}

/** A figure that is not a request rate: how long a job takes end to end, say (in ms). */
export interface Measurement {
  /** `<suite>.<what>`. */
  name: string;
  /** Every measured sample (warm-up runs left out). */
  samples: number[];
  median: number;
  max: number;
  /** The figure this should stay under, when there is one. */
  goal?: number;
  note?: string;
}

/** A suite measured by its own code rather than by load (e.g. a batch upload until its e-mails arrive). */
export interface MeasuredSuite {
  name: string;
  run(config: BenchConfig): Promise<Measurement[]>;
}

export function measurementOf(name: string, samples: number[], extra: Pick<Measurement, 'goal' | 'note'> = {}): Measurement {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { name, samples, median, max: sorted[sorted.length - 1]!, ...extra };
}
