// Prints (JSON) the metric names a set of metrics modules registers, as /metrics would name
// their series: validate.mjs runs it once per service, in a process of its own, with the
// metrics modules that service's bundle holds, so each service's names are its own.
// Usage: METRICS_MODULES='["/abs/…/metrics.ts", …]' node --import tsx infra/k8s/metric-names.mjs
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const modules = JSON.parse(process.env.METRICS_MODULES ?? '[]');
const metricsModule = modules.find((m) => m.endsWith(path.join('packages', 'runtime', 'src', 'metrics.ts')));
if (!metricsModule) throw new Error('packages/runtime/src/metrics.ts (the registry /metrics serves) is not among the modules');
for (const m of modules) await import(pathToFileURL(m).href);
const { metricsRegistry } = await import(pathToFileURL(metricsModule).href);
const names = [];
for (const { name, type } of metricsRegistry.getMetricsAsArray()) {
  if (type === 'histogram') names.push(`${name}_bucket`, `${name}_sum`, `${name}_count`);
  else if (type === 'summary') names.push(name, `${name}_sum`, `${name}_count`);
  else names.push(name);
}
console.log(JSON.stringify(names));
