/**
 * `pnpm bench`: each scenario against the real service and against a bare express + pg app
 * doing the same SQL (bench/baseline), in the same run, alternately. See bench/README.md.
 */
import { deploy, dropDatabase, parseDatabaseUrl } from '@pay/migrate';
import { startBaseline, type BaselineProcess } from './lib/baseline-process';
import { connectionsFor, readConfig, type BenchConfig } from './lib/config';
import { cpuMs } from './lib/cpu';
import { load } from './lib/load';
import { leastDisturbed } from './lib/rounds';
import { watchStalls } from './lib/stalls';
import { measurementTable, mode, ms, rps, textTable, writeResults } from './lib/report';
import type { AnySuite, Comparison, FailedSuite, Figures, LoadOptions, Measurement, RunningSuite, Scenario } from './lib/types';
import { measured, suites } from './scenarios';

const fmt = (f: Figures) => `${rps(f.rps)} req/s, p50 ${ms(f.p50)} ms, p99 ${ms(f.p99)} ms, ${f.errors} errors`;

/** A warm-up (discarded), then the measured run, with the CPU time process `pid` spent on it and the machine's stalls during it. */
async function measure(config: BenchConfig, o: Omit<LoadOptions, 'seconds'>, pid: number | undefined): Promise<Figures> {
  await load({ ...o, seconds: config.warmupSeconds });
  const watch = await watchStalls();
  const before = cpuMs(pid);
  const figures = await load({ ...o, seconds: config.seconds });
  const after = cpuMs(pid);
  const stalls = await watch.stop();
  const answered = figures.requests - figures.socketErrors;
  return { ...figures, cpuMsPerRequest: before !== null && after !== null && answered > 0 ? (after - before) / answered : null, stalls };
}

/**
 * At saturation, then at a fixed share of the baseline's saturation throughput: baseline and
 * service alternate for `config.rounds` rounds (the order flipped each round, so a drift of
 * the machine's speed favours neither), and each side's least disturbed run counts. On these
 * shared 2-core machines one pair's CPU ratio swung by ±5 points at one commit (the bare's own
 * CPU per request from 0.39 to 0.56 ms in an afternoon). Never both at once: they share the
 * machine's cores.
 */
async function compare(config: BenchConfig, scenario: Scenario<unknown>, suite: RunningSuite<unknown>, baseline: BaselineProcess): Promise<Comparison[]> {
  const next = scenario.requests(suite.data);
  const connections = connectionsFor(config, scenario);
  const onBaseline = { url: baseline.url, prefix: `/${scenario.baseline}`, connections, next };
  const onService = { url: suite.url, connections, next };
  const pair = async (offeredRate?: number): Promise<Comparison> => {
    const baseRuns: Figures[] = [];
    const serviceRuns: Figures[] = [];
    for (let round = 0; round < config.rounds; round++) {
      const runBase = async () => baseRuns.push(await measure(config, { ...onBaseline, rate: offeredRate }, baseline.pid));
      const runService = async () => serviceRuns.push(await measure(config, { ...onService, rate: offeredRate }, suite.pid));
      if (round % 2 === 0) {
        await runBase();
        await runService();
      } else {
        await runService();
        await runBase();
      }
    }
    const base = leastDisturbed(baseRuns);
    const service = leastDisturbed(serviceRuns);
    const row: Comparison = {
      scenario: scenario.name,
      mode: offeredRate ? 'fixed rate' : 'saturation',
      connections,
      offeredRate: offeredRate ?? null,
      service,
      baseline: base,
      ratio: service.rps / base.rps,
      cpuRatio: service.cpuMsPerRequest && base.cpuMsPerRequest ? base.cpuMsPerRequest / service.cpuMsPerRequest : null,
    };
    const stall = (r: Figures) => (r.stalls?.count ? ` p99 ${ms(r.p99)} ms, stalled ${r.stalls.count}x up to ${ms(r.stalls.longestMs)} ms` : ` p99 ${ms(r.p99)} ms`);
    const each = (runs: Figures[]) => runs.map((r) => `${rps(r.rps)}/s ${r.cpuMsPerRequest?.toFixed(3) ?? '?'} ms${stall(r)}`).join(', ');
    console.log(`  ${scenario.name}, ${mode(row)}: baseline ${fmt(base)}; service ${fmt(service)} (runs: baseline ${each(baseRuns)}; service ${each(serviceRuns)})`);
    return row;
  };
  const saturation = await pair();
  return [saturation, await pair(Math.max(1, Math.round(saturation.baseline.rps * config.rateFraction)))];
}

const selected = (config: BenchConfig, suite: AnySuite, s: { name: string }) =>
  config.only.length === 0 || config.only.includes(s.name) || config.only.includes(suite.name);

async function main() {
  const config = readConfig(process.env);
  const startedAt = new Date();
  const plan = suites.map((suite) => ({ suite, scenarios: suite.scenarios.filter((s) => selected(config, suite, s)) })).filter((p) => p.scenarios.length);
  const isOn = (suite: { name: string }) => (scenario: string) => selected(config, suite as AnySuite, { name: scenario });
  const measuredPlan = measured.filter((m) => m.scenarios.some(isOn(m)));
  const known = [...suites.flatMap((s) => [s.name, ...s.scenarios.map((x) => x.name)]), ...measured.flatMap((m) => [m.name, ...m.scenarios])];
  const unknown = config.only.filter((n) => !known.includes(n));
  if (unknown.length || !(plan.length + measuredPlan.length)) throw new Error(`BENCH_ONLY names no scenario (${unknown.join(', ')}); known: ${known.join(', ')}`);

  // A fresh database every run: rows left by earlier runs would make each figure slower than the last.
  const fields = parseDatabaseUrl(config.databaseUrl);
  await dropDatabase(fields, fields.database);
  await deploy({ databaseUrl: config.databaseUrl, quiet: true });

  const rows: Comparison[] = [];
  const failures: string[] = [];
  // A suite that throws (its service would not start, its chain never paid) is reported by
  // name with its error, and the suites after it still run: one broken suite must not hide the rest.
  const failedSuites: FailedSuite[] = [];
  const failed = (suite: string, scenarios: string[], err: unknown) => {
    const error = err instanceof Error ? (err.stack ?? err.message) : String(err);
    failedSuites.push({ suite, scenarios, error });
    console.error(`${suite}: FAILED (${scenarios.join(', ')}), the suites after it still run:\n${error}`);
  };
  const baseline = plan.length ? await startBaseline(config) : null;
  try {
    for (const { suite, scenarios } of plan) {
      console.log(`${suite.name}: starting the service and its data`);
      try {
        const running = await suite.setup(config);
        try {
          for (const scenario of scenarios) {
            const compared = await compare(config, scenario, running, baseline!);
            rows.push(...compared);
            for (const c of compared.filter((r) => r.service.errors)) {
              failures.push(`${scenario.name} (${c.mode}): ${JSON.stringify({ ...c.service.statusCodes, ...c.service.socketErrorCodes })}\n${running.logs().slice(-2000)}`);
            }
          }
        } finally {
          await running.stop();
        }
      } catch (err) {
        failed(suite.name, scenarios.map((s) => s.name), err);
      }
    }
  } finally {
    await baseline?.stop();
  }
  const measurements: Measurement[] = [];
  for (const suite of measuredPlan) {
    console.log(`${suite.name}: measuring`);
    try {
      measurements.push(...(await suite.run(config, isOn(suite))));
    } catch (err) {
      failed(suite.name, suite.scenarios.filter(isOn(suite)), err);
    }
  }

  if (rows.length) {
    console.log(`\n${config.seconds} s per run after ${config.warmupSeconds} s of warm-up, ${config.rounds} runs a side per mode, alternating (each side's least CPU per request counts, of its runs without a machine stall if it has any); ratio = service req/s / baseline req/s; cpu ratio = baseline CPU ms per request / service CPU ms per request`);
    console.log(textTable(rows));
  }
  if (measurements.length) console.log(`\n${measurementTable(measurements)}`);
  const written = writeResults(config, rows, measurements, failedSuites, startedAt);
  console.log(`\nwritten: ${written.json}, ${written.md}`);
  const baselineErrors = rows.filter((r) => r.baseline.errors);
  if (failures.length || baselineErrors.length || failedSuites.length) {
    for (const f of failures) console.error(`\nservice errors in ${f}`);
    for (const r of baselineErrors) console.error(`baseline errors in ${r.scenario} (${r.mode}): ${JSON.stringify({ ...r.baseline.statusCodes, ...r.baseline.socketErrorCodes })}`);
    // Last, so the end of the output says which suites gave no figures and why.
    for (const f of failedSuites) console.error(`\nFAILED ${f.suite} (${f.scenarios.join(', ')}): no figures.\n${f.error}`);
    const what = [failures.length || baselineErrors.length ? 'some requests failed; the figures above are not valid' : '', failedSuites.length ? `suites failed: ${failedSuites.map((f) => f.suite).join(', ')}` : ''];
    throw new Error(what.filter(Boolean).join('; '));
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
