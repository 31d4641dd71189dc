/**
 * Resident memory per service (issues 7, 12 and 21): each production bundle idle, and its peak
 * under load, the figures the Kubernetes memory requests and limits are sized from. Crypto is
 * started by its own HTTP suite with its background work on (RUN_WORKERS=true, the larger
 * figure); invoicing as Kubernetes runs it, apart: its API (RUN_WORKERS=false) loaded at
 * saturation with its create scenario, and its workers (RUN_WORKERS=true) checking receipts
 * (OCR of PNGs, text of PDFs) and KYC sessions (face model, MRZ reader) at once. The webhook
 * worker drains a backlog of deliveries to a loopback receiver.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAccountsDb } from '@pay/accounts/src/testing';
import { createWebhooksDb } from '@pay/webhooks';
import type { BenchConfig } from '../lib/config';
import { load } from '../lib/load';
import { startService } from '../lib/service';
import type { AnySuite, MeasuredSuite, Measurement } from '../lib/types';
import { apiClient, eventually, openBrowser, spawnBuiltService, expectStatus } from '@pay/testing';
import { signedHeaders } from '@pay/auth';
import { invoicingEnv, merchant } from './invoicing';
import { cryptoSuite } from './crypto';
import { invoicingSuite } from './invoicing';
import { ENDPOINTS, receiver, record, subscribedMerchant, workerEnv } from './webhooks';
import { moscowDay, multipartBody, receiptPdf, receiptPng, documentForm, postDocuments } from '@pay/invoicing/test';

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

function rows(service: string, idle: number, peak: number, load: string, runs = 'with its background work'): Measurement[] {
  return [
    {
      scenario: `memory.${service}`,
      what: `${service}: resident memory idle (production bundle ${runs}, ${SETTLE_MS / 1000} s after start and first request)`,
      value: idle,
      unit: 'MB',
      goal: { text: `< ${IDLE_GOAL_MB} MB`, met: idle < IDLE_GOAL_MB },
    },
    { scenario: `memory.${service}`, what: `${service}: peak resident memory under load (${load})`, value: peak, unit: 'MB' },
  ];
}

/** An API: its suite's own setup, then its create scenario at saturation. */
async function api(config: BenchConfig, suite: AnySuite, scenarioName: string, runWorkers: boolean, name = suite.name): Promise<Measurement[]> {
  const running = await suite.setup(config, { RUN_WORKERS: String(runWorkers) });
  try {
    await sleep(SETTLE_MS);
    const idle = residentMb(running.pid!).now;
    const scenario = suite.scenarios.find((s) => s.name === scenarioName)!;
    const figures = await load({ url: running.url, connections: scenario.connections, seconds: config.seconds, next: scenario.requests(running.data) });
    const peak = residentMb(running.pid!).peak;
    console.log(`  memory.${name}: idle ${idle.toFixed(0)} MB, peak ${peak.toFixed(0)} MB under ${Math.round(figures.rps)} req/s`);
    return rows(name, idle, peak, `${scenarioName}, ${scenario.connections} connections for ${config.seconds} s`, runWorkers ? 'with its background work' : 'API only, RUN_WORKERS=false');
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

const WORKER_RECEIPTS = Number(process.env.BENCH_WORKER_RECEIPTS ?? 12);
const WORKER_KYC = Number(process.env.BENCH_WORKER_KYC ?? 3);

/**
 * Invoicing's workers (the invoicing-workers Deployment): the bundle from the checkout (where it
 * finds the OCR language data and the face model's weights), RUN_WORKERS=true, API idle; receipts
 * (PNG by OCR, PDF by text) and KYC sessions (document and selfie: MRZ reader, face model)
 * submitted together, until every one is decided. The peak is what the limit must hold.
 */
async function invoicingWorkers(config: BenchConfig): Promise<Measurement[]> {
  const m = await merchant(config);
  const browser = await openBrowser();
  const pngs: Buffer[] = [];
  for (let i = 0; i < WORKER_RECEIPTS / 2; i++) pngs.push(await receiptPng(browser.context, { amount: '1 490,90 ₽', date: `${moscowDay(0)} 10:${String(i).padStart(2, '0')}` }));
  await browser.close();
  const pdf = await receiptPdf({ amount: '1,490.90 RUB', date: moscowDay(0) });
  // Receipt files in a folder of the run's own: the default (data/receipts) is in the checkout,
  // where a run's uploads were once committed by mistake.
  const receiptsDir = mkdtempSync(join(tmpdir(), 'bench-receipts-'));
  const svc = await spawnBuiltService('invoicing', { ...invoicingEnv(config), RUN_WORKERS: 'true', RECEIPTS_DIR: receiptsDir });
  try {
    const v2 = apiClient(svc.url, { apiKey: m.apiKey, hmacSecret: m.hmacSecret }, 'v2');
    const invoice = async (extra: object = {}) => expectStatus(await v2.signed('POST', '/api/v2/invoices', { amount: 1490.9, ...extra }), 201, 'invoice').invoice.id as string;
    await sleep(SETTLE_MS);
    const idle = residentMb(svc.child.pid!).now;
    const receipts: string[] = [];
    for (const bytes of [...pngs, ...pngs.map(() => pdf)]) {
      const path = `/api/v2/invoices/${await invoice()}/receipts`;
      const { body, contentType } = multipartBody('file', 'receipt', 'application/octet-stream', bytes);
      const res = await fetch(`${svc.url}${path}`, {
        method: 'POST',
        headers: { 'x-api-key': m.apiKey, 'content-type': contentType, ...signedHeaders('v2', m.hmacSecret, { method: 'POST', path, body }) },
        body,
      });
      receipts.push(((await res.json()) as { receipt: { id: string } }).receipt.id);
    }
    const sessions: string[] = [];
    for (let i = 0; i < WORKER_KYC; i++) {
      const session = expectStatus(await v2.signed('POST', '/api/v2/kyc/sessions', { invoiceId: await invoice({ kycRequired: true }) }), 201, 'kyc session').session;
      expect303(await postDocuments(svc.url, session.sessionId, documentForm()));
      sessions.push(session.id);
    }
    await eventually(
      async () => {
        for (const id of receipts) if (expectStatus(await v2.signed('GET', `/api/v2/receipts/${id}`), 200, 'receipt').receipt.status === 'PENDING') throw new Error(`receipt ${id} pending`);
        for (const id of sessions) if (['NOT_STARTED', 'IN_PROGRESS'].includes(expectStatus(await v2.signed('GET', `/api/v2/kyc/sessions/${id}`), 200, 'kyc').session.status)) throw new Error(`kyc ${id} undecided`);
      },
      300_000,
      500,
    );
    const peak = residentMb(svc.child.pid!).peak;
    console.log(`  memory.invoicing-workers: idle ${idle.toFixed(0)} MB, peak ${peak.toFixed(0)} MB over ${receipts.length} receipts and ${sessions.length} KYC checks`);
    return rows('invoicing-workers', idle, peak, `${receipts.length} receipts (half PNG by OCR, half PDF) and ${sessions.length} KYC checks (MRZ, face model) at once`, 'RUN_WORKERS=true');
  } finally {
    await svc.stop();
    rmSync(receiptsDir, { recursive: true, force: true });
  }
}

function expect303(res: { status: number; text?: string }) {
  if (res.status !== 303) throw new Error(`KYC documents: expected 303, got ${res.status} ${res.text ?? ''}`);
}

export const memorySuite: MeasuredSuite = {
  name: 'memory',
  scenarios: ['memory.invoicing-api', 'memory.invoicing-workers', 'memory.crypto', 'memory.webhook-worker'],
  async run(config, only) {
    const out: Measurement[] = [];
    if (only('memory.invoicing-api')) out.push(...(await api(config, invoicingSuite, 'invoicing.v2-create', false, 'invoicing-api')));
    if (only('memory.invoicing-workers')) out.push(...(await invoicingWorkers(config)));
    if (only('memory.crypto')) out.push(...(await api(config, cryptoSuite, 'crypto.create-invoice', true)));
    if (only('memory.webhook-worker')) out.push(...(await webhookWorker(config)));
    return out;
  },
};
