import type { BaselineName } from '../baseline/routes';
import type { BenchConfig } from './config';
import type { Stalls } from './stalls';

/** One HTTP request as the load generator sends it, to the service and (under its prefix) to the baseline. */
export interface BenchRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** How `load` (lib/load.ts) runs, and `paced` at a fixed rate. */
export interface LoadOptions {
  /** Base URL of the process under load. */
  url: string;
  /** Put before every path (the baseline mounts each route under its name). */
  prefix?: string;
  connections: number;
  seconds: number;
  /** Offered req/s over all connections; saturation (as fast as answers come) when absent. */
  rate?: number;
  next: () => BenchRequest;
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
  /** The service's process, whose CPU time per request is read. */
  pid?: number;
  data: D;
  /** The service's recent output, shown when a run had errors. */
  logs(): string;
  stop(): Promise<unknown>;
}

/** The scenarios of one service, and how to start that service with their data in place. */
export interface Suite<D> {
  name: string;
  /** `env` is added to the measured process's environment (e.g. RUN_WORKERS for the memory figures). */
  setup(config: BenchConfig, env?: Record<string, string>): Promise<RunningSuite<D>>;
  scenarios: Scenario<D>[];
}

/** Keeps a suite's data type checked between its setup and its scenarios. */
export function defineSuite<D>(suite: Suite<D>): Suite<D> {
  return suite;
}

/** A registry entry: the data type is private to each suite. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnySuite = Suite<any>;

/**
 * A figure that is not HTTP load against an endpoint: deliveries per second against a bare
 * BullMQ consumer, a batch end to end, OCR per receipt, resident memory. `baseline` and
 * `ratio` when it has a bare counterpart measured in the same run; `goal` when an issue sets one.
 */
export interface Measurement {
  scenario: string;
  /** What was measured, e.g. `drain 80,000 deliveries`. */
  what: string;
  value: number;
  unit: string;
  baseline?: { value: number; what: string };
  /** value / baseline.value (or its inverse for times, as the suite states in `what`). */
  ratio?: number;
  /** e.g. `>= 2000/s and >= 25%`; `met` says whether this run met it. */
  goal?: { text: string; met: boolean };
}

/** A suite that threw instead of giving its figures: reported by name, the others still run. */
export interface FailedSuite {
  suite: string;
  /** Its scenarios this run selected, which have no figures. */
  scenarios: string[];
  /** The error, with its stack (a suite puts the logs that explain it in its message). */
  error: string;
}

/** Suites of measurements: each runs what it needs and returns its rows. */
export interface MeasuredSuite {
  name: string;
  /** Scenario names, for BENCH_ONLY. */
  scenarios: string[];
  run(config: BenchConfig, only: (scenario: string) => boolean): Promise<Measurement[]>;
}

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
  /** CPU time the measured process spent per answered request (ms), where /proc tells it. */
  cpuMsPerRequest?: number | null;
  /** Stalls of the whole machine during the run (lib/stalls.ts). */
  stalls?: Stalls;
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
  /** baseline CPU per request / service CPU per request: the share of a bare endpoint's efficiency kept. */
  cpuRatio: number | null;
}

