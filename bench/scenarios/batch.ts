/**
 * A 1,000-row CSV batch end to end on the real service (bundle, workers on, pooled SMTP to a
 * local smtp-server): the upload's answer, the batch `completed` (written by the queue
 * worker), and every payment-link e-mail received by the SMTP server.
 */
import { startTestSmtp } from '@pay/testing';
import { startService } from '../lib/service';
import type { MeasuredSuite, Measurement } from '../lib/types';
import { invoicingEnv, merchant } from './invoicing';

const ROWS = 1000;
const RUNS = 5;
const GOAL_MS = 2000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

const csvOf = (run: number) =>
  ['amount,currency,description,email,externalId']
    .concat(Array.from({ length: ROWS }, (_, i) => `${100 + i}.${String(i % 100).padStart(2, '0')},${i % 2 ? 'RUB' : 'KZT'},Order ${i + 1},payer${i + 1}@bench.test,run${run}-${i + 1}`))
    .join('\n');

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

export const batchSuite: MeasuredSuite = {
  name: 'batch',
  scenarios: ['batch.1000-rows'],
  async run(config): Promise<Measurement[]> {
    const smtp = await startTestSmtp();
    const m = await merchant(config);
    const svc = await startService(
      'invoicing',
      { ...invoicingEnv(config), RUN_WORKERS: 'true', SMTP_HOST: '127.0.0.1', SMTP_PORT: String(smtp.port), QUEUE_PREFIX: `bench-batch-${Date.now()}` },
      config.serviceNodeArgs,
    );
    const api = (path: string, init: RequestInit = {}) => fetch(`${svc.url}${path}`, { ...init, headers: { 'x-api-key': m.apiKey, ...(init.headers ?? {}) } });
    try {
      const enabled = await api('/api/v1/settings/currencies', {
        method: 'PUT',
        headers: { 'content-type': 'application/json', 'x-api-key': m.liveKey },
        body: JSON.stringify({ enabledCurrencies: ['RUB', 'KZT'] }),
      });
      if (enabled.status !== 200) throw new Error(`enabling currencies failed: ${enabled.status}`);
      const answered: number[] = [];
      const completed: number[] = [];
      const mailed: number[] = [];
      for (let run = 0; run <= RUNS; run++) {
        const before = smtp.received.length;
        const form = new FormData();
        form.append('sendEmails', 'true');
        form.append('file', new Blob([csvOf(run)], { type: 'text/csv' }), 'invoices.csv');
        const t0 = performance.now();
        const res = await api('/api/v1/batch/invoices', { method: 'POST', body: form });
        const body = (await res.json()) as { batchId?: string; created?: number };
        const t1 = performance.now();
        if (res.status !== 201 || body.created !== ROWS) throw new Error(`batch upload failed: ${res.status} ${JSON.stringify(body).slice(0, 500)}\n${svc.logs().slice(-2000)}`);
        await until('the batch to complete', async () => ((await (await api(`/api/v1/batch/invoices/${body.batchId}`)).json()) as { status: string }).status === 'completed');
        const t2 = performance.now();
        await until('the e-mails', () => smtp.received.length - before >= ROWS);
        const t3 = performance.now();
        if (run === 0) continue; // warm-up: JIT, pools, prepared statements
        answered.push(t1 - t0);
        completed.push(t2 - t0);
        mailed.push(t3 - t0);
        console.log(`  batch run ${run}: answer ${Math.round(t1 - t0)} ms, completed ${Math.round(t2 - t0)} ms, ${ROWS} e-mails received ${Math.round(t3 - t0)} ms`);
      }
      const row = (what: string, samples: number[], goal?: boolean): Measurement => ({
        scenario: 'batch.1000-rows',
        what: `${what}, median of ${samples.length} runs (max ${Math.round(Math.max(...samples))} ms)`,
        value: median(samples),
        unit: 'ms',
        ...(goal ? { goal: { text: `< ${GOAL_MS} ms`, met: median(samples) < GOAL_MS } } : {}),
      });
      return [
        row(`${ROWS}-row CSV upload to its answer`, answered),
        row(`${ROWS}-row CSV upload to batch completed`, completed),
        row(`${ROWS}-row CSV upload to every e-mail received (sendEmails, SMTP pool of 10)`, mailed, true),
      ];
    } finally {
      await svc.stop();
      await smtp.close();
    }
  },
};
