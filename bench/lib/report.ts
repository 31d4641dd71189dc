import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import type { BenchConfig } from './config';
import type { Comparison, FailedSuite, Measurement } from './types';

const HEADER = ['scenario', 'mode', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'baseline req/s', 'baseline p99 ms', 'ratio', 'cpu ms/req', 'baseline cpu ms/req', 'cpu ratio'];

export const rps = (n: number) => String(Math.round(n));
export const ms = (n: number) => (n < 10 ? n.toFixed(1) : String(Math.round(n)));
const percent = (n: number) => `${Math.round(n * 100)}%`;

export function mode(c: Comparison): string {
  return c.offeredRate === null ? `saturation, ${c.connections} conn` : `fixed ${c.offeredRate} req/s`;
}

function cells(c: Comparison): string[] {
  const baselineErrors = c.baseline.errors ? ` (${c.baseline.errors} errors)` : '';
  const cpu = (f: { cpuMsPerRequest?: number | null }) => (f.cpuMsPerRequest ? f.cpuMsPerRequest.toFixed(3) : '-');
  return [
    c.scenario,
    mode(c),
    rps(c.service.rps),
    ms(c.service.p50),
    ms(c.service.p99),
    String(c.service.errors),
    rps(c.baseline.rps) + baselineErrors,
    ms(c.baseline.p99),
    percent(c.ratio),
    cpu(c.service),
    cpu(c.baseline),
    c.cpuRatio ? percent(c.cpuRatio) : '-',
  ];
}

/** The table as printed: columns padded, numbers right-aligned. */
export function textTable(rows: Comparison[]): string {
  const table = [HEADER, ...rows.map(cells)];
  const widths = HEADER.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  return [line(table[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...table.slice(1).map(line)].join('\n');
}

export function markdownTable(rows: Comparison[]): string {
  const line = (r: string[]) => `| ${r.join(' | ')} |`;
  return [line(HEADER), `|${HEADER.map((_, i) => (i < 2 ? '---' : '---:')).join('|')}|`, ...rows.map((c) => line(cells(c)))].join('\n');
}

const MEASURE_HEADER = ['scenario', 'measured', 'value', 'baseline', 'ratio', 'goal'];

const number = (n: number) => (Math.abs(n) >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(n < 10 ? 2 : 1));

function measureCells(m: Measurement): string[] {
  return [
    m.scenario,
    m.what,
    `${number(m.value)} ${m.unit}`,
    m.baseline ? `${number(m.baseline.value)} (${m.baseline.what})` : '',
    m.ratio === undefined ? '' : percent(m.ratio),
    m.goal ? `${m.goal.text}: ${m.goal.met ? 'met' : 'MISSED'}` : '',
  ];
}

/** Measurements that are not HTTP load (deliveries/s, batch end to end, OCR, memory). */
export function measurementTable(rows: Measurement[]): string {
  const table = [MEASURE_HEADER, ...rows.map(measureCells)];
  const widths = MEASURE_HEADER.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((cell, i) => cell.padEnd(widths[i]!)).join('  ');
  return [line(table[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...table.slice(1).map(line)].join('\n');
}

function measurementMarkdown(rows: Measurement[]): string {
  const line = (r: string[]) => `| ${r.join(' | ')} |`;
  return [line(MEASURE_HEADER), `|${MEASURE_HEADER.map(() => '---').join('|')}|`, ...rows.map((m) => line(measureCells(m)))].join('\n');
}

function git(args: string[]): string | null {
  try {
    return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null; // not a git checkout
  }
}

/** Writes bench/results.json (every figure) and bench/results.md (the table) beside this folder. */
export function writeResults(config: BenchConfig, rows: Comparison[], measurements: Measurement[], failed: FailedSuite[], startedAt: Date): { json: string; md: string } {
  const dir = join(__dirname, '..');
  const status = git(['status', '--porcelain']);
  const run = {
    date: startedAt.toISOString(),
    commit: git(['rev-parse', 'HEAD']),
    uncommittedChanges: status === null ? null : status.length > 0,
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? null,
    seconds: config.seconds,
    warmupSeconds: config.warmupSeconds,
    rounds: config.rounds,
    rateFraction: config.rateFraction,
    serviceNodeArgs: config.serviceNodeArgs,
    rows,
    measurements,
    failed,
  };
  const json = join(dir, 'results.json');
  const md = join(dir, 'results.md');
  writeFileSync(json, `${JSON.stringify(run, null, 2)}\n`);
  writeFileSync(
    md,
    `# Bench results\n\n${run.date}, commit ${run.commit ?? 'unknown'}${run.uncommittedChanges ? ' (with uncommitted changes)' : ''}, ` +
      `node ${run.node}, ${run.cpus} CPUs, ${config.seconds} s per run, ${config.rounds} runs a side per mode (the least disturbed counts).\n\n` +
      (rows.length ? `${markdownTable(rows)}\n` : '') +
      (measurements.length ? `\n${measurementMarkdown(measurements)}\n` : '') +
      failed.map((f) => `\n**FAILED ${f.suite}** (${f.scenarios.join(', ')}), no figures: ${f.error.split('\n')[0]}\n`).join(''),
  );
  return { json, md };
}
