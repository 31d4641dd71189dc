/**
 * Resident memory per service (issues 7 and 12): each production bundle idle, and its peak
 * under load. The APIs are started by their own HTTP suites (their data made, a first request
 * served) with their background work on (RUN_WORKERS=true, the default, so the larger figure)
 * and loaded at saturation with their create scenario; the webhook worker drains a backlog of
 * deliveries to a loopback receiver.
 */
import { readFileSync } from 'node:fs';
import { createAccountsDb } from '@pay/accounts';
import { createWebhooksDb } from '@pay/webhooks';
import type { BenchConfig } from '../lib/config';
import { load } from '../lib/load';
import { startService } from '../lib/service';
import type { AnySuite, MeasuredSuite, Measurement } from '../lib/types';
import { cryptoSuite } from './crypto';
import { invoicingSuite } from './invoicing';
import { ENDPOINTS, receiver, record, subscribedMerchant, workerEnv } from './webhooks';

const IDLE_GOAL_MB = 150;
/** How long a process sits untouched before its idle figure is read: start-up garbage is collected by then. */
const SETTLE_MS = 3000;
const LOADED_EVENTS = 5000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** VmRSS (now) and VmHWM (the peak since start) of a process, in MB, from /proc/<pid>/status. */
export function residentMb(pid: number): { now: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { now: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

function rows(service: string, idle: number, peak: number, load: string): Measurement[] {
  return [
    {
      scenario: `memory.${service}`,
      what: `${service}: resident memory idle (production bundle with its background work, ${SETTLE_MS / 1000} s after start and first request)`,
      value: idle,
      unit: 'MB',
      goal: { text: `< ${IDLE_GOAL_MB} MB`, met: idle < IDLE_GOAL_MB },
    },
    { scenario: `memory.${service}`, what: `${service}: peak resident memory under load (${load})`, value: peak, unit: 'MB' },
  ];
}

/** An API: its suite's own setup, then its create scenario at saturation. */
async function api(config: BenchConfig, suite: AnySuite, scenarioName: string): Promise<Measurement[]> {
  const running = await suite.setup(config, { RUN_WORKERS: 'true' });
  try {
    await sleep(SETTLE_MS);
    const idle = residentMb(running.pid!).now;
    const scenario = suite.scenarios.find((s) => s.name === scenarioName)!;
    const figures = await load({ url: running.url, connections: scenario.connections, seconds: config.seconds, next: scenario.requests(running.data) });
    const peak = residentMb(running.pid!).peak;
    console.log(`  memory.${suite.name}: idle ${idle.toFixed(0)} MB, peak ${peak.toFixed(0)} MB under ${Math.round(figures.rps)} req/s`);
    return rows(suite.name, idle, peak, `${scenarioName}, ${scenario.connections} connections for ${config.seconds} s`);
  } finally {
    await running.stop();
  }
}

async function webhookWorker(config: BenchConfig): Promise<Measurement[]> {
  const accounts = createAccountsDb(config.databaseUrl, 1);
  const db = createWebhooksDb(config.databaseUrl, 2);
  const target = await receiver();
  const worker = await startService('webhook-worker', workerEnv(config));
  try {
    const owner = await subscribedMerchant(accounts, db, target.url);
    await sleep(SETTLE_MS);
    const idle = residentMb(worker.child.pid!).now;
    await record(db, owner, LOADED_EVENTS);
    const deliveries = LOADED_EVENTS * ENDPOINTS;
    while (target.seen.size < deliveries) await sleep(20);
    const peak = residentMb(worker.child.pid!).peak;
    console.log(`  memory.webhook-worker: idle ${idle.toFixed(0)} MB, peak ${peak.toFixed(0)} MB over ${deliveries} deliveries`);
    return rows('webhook-worker', idle, peak, `a backlog of ${deliveries.toLocaleString('en-US')} deliveries`);
  } finally {
    await worker.stop();
    target.server.close();
    await Promise.all([accounts.$disconnect(), db.$disconnect()]);
  }
}

export const memorySuite: MeasuredSuite = {
  name: 'memory',
  scenarios: ['memory.invoicing', 'memory.crypto', 'memory.webhook-worker'],
  async run(config, only) {
    const out: Measurement[] = [];
    if (only('memory.invoicing')) out.push(...(await api(config, invoicingSuite, 'invoicing.v2-create')));
    if (only('memory.crypto')) out.push(...(await api(config, cryptoSuite, 'crypto.create-invoice')));
    if (only('memory.webhook-worker')) out.push(...(await webhookWorker(config)));
    return out;
  },
};
