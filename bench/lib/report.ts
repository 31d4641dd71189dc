import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import type { BenchConfig } from './config';
import type { Comparison, Measurement } from './types';

const HEADER = ['scenario', 'mode', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'baseline req/s', 'baseline p99 ms', 'ratio'];

export const rps = (n: number) => String(Math.round(n));
export const ms = (n: number) => (n < 10 ? n.toFixed(1) : String(Math.round(n)));
const percent = (n: number) => `${Math.round(n * 100)}%`;

export function mode(c: Comparison): string {
  return c.offeredRate === null ? `saturation, ${c.connections} conn` : `fixed ${c.offeredRate} req/s`;
}

function cells(c: Comparison): string[] {
  const baselineErrors = c.baseline.errors ? ` (${c.baseline.errors} errors)` : '';
  return [c.scenario, mode(c), rps(c.service.rps), ms(c.service.p50), ms(c.service.p99), String(c.service.errors), rps(c.baseline.rps) + baselineErrors, ms(c.baseline.p99), percent(c.ratio)];
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

function git(args: string[]): string | null {
  try {
    return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null; // not a git checkout
  }
}

const MEASURED_HEADER = ['measurement', 'median ms', 'max ms', 'goal ms', 'samples'];
const measuredCells = (m: Measurement) => [m.name, ms(m.median), ms(m.max), m.goal === undefined ? '' : String(m.goal), String(m.samples.length)];

/** The measured suites' figures, as printed. */
export function measuredTable(rows: Measurement[]): string {
  const table = [MEASURED_HEADER, ...rows.map(measuredCells)];
  const widths = MEASURED_HEADER.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((cell, i) => (i < 1 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  return [line(table[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...table.slice(1).map(line)].join('\n');
}

function measuredMarkdown(rows: Measurement[]): string {
  if (rows.length === 0) return '';
  const line = (r: string[]) => `| ${r.join(' | ')} |`;
  return `\n${line(MEASURED_HEADER)}\n|---|${MEASURED_HEADER.slice(1).map(() => '---:').join('|')}|\n${rows.map((m) => line(measuredCells(m))).join('\n')}\n`;
}

/** Writes bench/results.json (every figure) and bench/results.md (the table) beside this folder. */
export function writeResults(config: BenchConfig, rows: Comparison[], startedAt: Date, measurements: Measurement[] = []): { json: string; md: string } {
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
    rateFraction: config.rateFraction,
    serviceNodeArgs: config.serviceNodeArgs,
    rows,
    measurements,
  };
  const json = join(dir, 'results.json');
  const md = join(dir, 'results.md');
  writeFileSync(json, `${JSON.stringify(run, null, 2)}\n`);
  writeFileSync(
    md,
    `# Bench results\n\n${run.date}, commit ${run.commit ?? 'unknown'}${run.uncommittedChanges ? ' (with uncommitted changes)' : ''}, ` +
      `node ${run.node}, ${run.cpus} CPUs, ${config.seconds} s per run.\n\n${rows.length ? `${markdownTable(rows)}\n` : ''}${measuredMarkdown(measurements)}`,
  );
  return { json, md };
}
