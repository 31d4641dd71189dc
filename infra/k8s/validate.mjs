// Validates the Kubernetes manifests offline, as a cluster would see them:
// - the rendered output (`kubectl kustomize`, images, labels and generators applied), plus the
//   example Secrets, against the Kubernetes JSON schemas that ship in the `kubernetes-models` npm
//   package and prometheus-operator's in `@kubernetes-models/prometheus-operator` (no cluster, no
//   download);
// - what a schema cannot check: probes and resource requests on every container, selectors that
//   select, references that resolve (ConfigMap and Secret keys, autoscaler targets), API pods
//   that run no workers, the hot wallet's key only as a 0400 read-only file in workers-only pods,
//   WORKER_REPLICAS against the workers' autoscaler;
// - every metric an alert, an autoscaler (through the Prometheus adapter's rules) or the
//   dashboard names is one a service's process exports: each PromQL expression is parsed
//   (@prometheus-io/lezer-promql) and its metric names looked up among the names registered by
//   the metrics modules (`metrics.ts`) each service's production bundle holds (@pay/build);
//   an alert with `labels.service` must name only metrics that service's process exports.
// Usage: node --import tsx infra/k8s/validate.mjs [dir]   (exit 1 and one line per problem on failure)
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { metricNamesIn, renderKustomization, readManifests, rulesOf } from './render.ts';
import { buildEntry, entryPoints, workspaceProjects } from '../../packages/build/src/index.ts';

const run = promisify(execFile);

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.join(HERE, '..', '..');
const dir = path.resolve(process.argv[2] ?? HERE);
const problems = [];
const problem = (where, what) => problems.push(`${where}: ${what}`);

// --- the rendered manifests ------------------------------------------------------------------
function render() {
  try {
    return renderKustomization(dir);
  } catch (err) {
    problem('kustomize', err.message);
    return '';
  }
}

function readYaml(text, where) {
  const { objects, errors } = readManifests(text);
  for (const e of errors) problem(where, `YAML: ${e}`);
  return objects;
}

const rendered = readYaml(render(), 'rendered output').map((doc) => ({ file: 'rendered', doc }));
const exampleFile = path.join(dir, 'secret.example.yaml');
const examples = existsSync(exampleFile) ? readYaml(readFileSync(exampleFile, 'utf8'), 'secret.example.yaml').map((doc) => ({ file: 'secret.example.yaml', doc })) : [];
const objects = [...rendered, ...examples];

// --- schemas -----------------------------------------------------------------------------------
/** `apps/v1` → kubernetes-models/apps/v1; `v1` → kubernetes-models/v1; CRDs from their own packages. */
async function modelOf(apiVersion, kind) {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : [null, apiVersion];
  const module =
    group === 'monitoring.coreos.com'
      ? await import(`@kubernetes-models/prometheus-operator/${group}/${version}`).catch(() => null)
      : await import(`kubernetes-models/${group ? `${group}/` : ''}${version}`).catch(() => null);
  return module?.[kind] ?? null;
}

for (const { file, doc } of objects) {
  const where = `${file} ${doc.kind ?? '?'}/${doc.metadata?.name ?? '?'}`;
  const Model = doc.apiVersion && doc.kind ? await modelOf(doc.apiVersion, doc.kind) : null;
  if (!Model) {
    problem(where, `unknown apiVersion/kind ${doc.apiVersion}/${doc.kind}`);
    continue;
  }
  try {
    new Model(doc).validate();
  } catch (err) {
    problem(where, String(err.message).split('\n')[0]);
  }
}

// --- what the transforms must have done --------------------------------------------------------
const byKind = (kind) => objects.filter((o) => o.doc.kind === kind).map((o) => o.doc);
const renderedOf = (kind) => rendered.filter((o) => o.doc.kind === kind).map((o) => o.doc);
const kustomization = existsSync(path.join(dir, 'kustomization.yaml')) ? parseYaml(readFileSync(path.join(dir, 'kustomization.yaml'), 'utf8')) : {};
const commonLabels = Object.assign({}, kustomization.commonLabels ?? {}, ...(kustomization.labels ?? []).map((l) => l.pairs ?? {}));
for (const { doc } of rendered) {
  for (const [k, v] of Object.entries(commonLabels)) {
    if (doc.metadata?.labels?.[k] !== v) problem(`${doc.kind}/${doc.metadata?.name}`, `rendered without the label ${k}=${v}`);
  }
}
const podSpecs = [...renderedOf('Deployment'), ...renderedOf('Job')].map((o) => ({ owner: `${o.kind}/${o.metadata.name}`, spec: o.spec?.template?.spec ?? {} }));
/** What the images transform makes of each image it names: newName (or the name) with newTag or digest. */
const transformed = (kustomization.images ?? []).map((i) => `${i.newName ?? i.name}${i.digest ? `@${i.digest}` : i.newTag ? `:${i.newTag}` : ''}`);
const allContainers = (spec) => [...(spec.initContainers ?? []), ...(spec.containers ?? [])];
for (const { owner, spec } of podSpecs) {
  for (const c of allContainers(spec)) {
    if (!transformed.includes(c.image)) problem(owner, `container ${c.name} runs image "${c.image}", which the kustomization's images transform does not set (${transformed.join(', ')})`);
  }
}

// --- cross-references ---------------------------------------------------------------------------
const matches = (selector, labels) => Object.entries(selector ?? {}).every(([k, v]) => labels?.[k] === v);
const deployments = renderedOf('Deployment');
const configMaps = new Map(byKind('ConfigMap').map((c) => [c.metadata.name, c.data ?? {}]));
const secrets = new Map(byKind('Secret').map((s) => [s.metadata.name, { ...(s.stringData ?? {}), ...(s.data ?? {}) }]));
const envOf = (c) => Object.fromEntries((c.env ?? []).filter((e) => 'value' in e).map((e) => [e.name, e.value]));

for (const d of deployments) {
  const where = `Deployment/${d.metadata.name}`;
  const labels = d.spec?.template?.metadata?.labels;
  if (!matches(d.spec?.selector?.matchLabels, labels)) problem(where, 'selector does not match the pod template labels');
  for (const c of d.spec?.template?.spec?.containers ?? []) {
    if (!c.readinessProbe) problem(where, `container ${c.name} has no readinessProbe`);
    if (!c.livenessProbe) problem(where, `container ${c.name} has no livenessProbe`);
    if (!c.resources?.requests?.cpu || !c.resources?.requests?.memory) problem(where, `container ${c.name} requests no cpu or memory`);
    if (!c.resources?.limits?.memory) problem(where, `container ${c.name} sets no memory limit`);
    if (!c.env?.some((e) => e.name === 'SERVICE')) problem(where, `container ${c.name} does not set SERVICE`);
    for (const e of c.env ?? []) {
      const cm = e.valueFrom?.configMapKeyRef;
      if (cm && !(cm.key in (configMaps.get(cm.name) ?? {}))) problem(where, `env ${e.name} reads ${cm.key}, which ConfigMap ${cm.name} does not define`);
      const sk = e.valueFrom?.secretKeyRef;
      if (sk && !(sk.key in (secrets.get(sk.name) ?? {}))) problem(where, `env ${e.name} reads ${sk.key}, which Secret ${sk.name} (secret.example.yaml) does not define`);
    }
    for (const from of c.envFrom ?? []) {
      if (from.configMapRef && !configMaps.has(from.configMapRef.name)) problem(where, `envFrom names ConfigMap ${from.configMapRef.name}, which does not exist`);
      if (from.secretRef && !secrets.has(from.secretRef.name)) problem(where, `envFrom names Secret ${from.secretRef.name}, which secret.example.yaml does not define`);
    }
  }
}
const podsOf = (selector) => deployments.filter((d) => matches(selector, d.spec?.template?.metadata?.labels));
const services = renderedOf('Service');
for (const s of services) if (podsOf(s.spec?.selector).length === 0) problem(`Service/${s.metadata.name}`, 'selects no pods');
for (const p of renderedOf('PodDisruptionBudget')) if (podsOf(p.spec?.selector?.matchLabels).length === 0) problem(`PodDisruptionBudget/${p.metadata.name}`, 'selects no pods');
const hpas = renderedOf('HorizontalPodAutoscaler');
const maxReplicasOf = (d) => Math.max(d.spec?.replicas ?? 1, ...hpas.filter((h) => h.spec?.scaleTargetRef?.name === d.metadata.name).map((h) => h.spec?.maxReplicas ?? 0));
for (const h of hpas) {
  const t = h.spec?.scaleTargetRef;
  if (!deployments.some((d) => t?.kind === 'Deployment' && d.metadata.name === t.name)) problem(`HorizontalPodAutoscaler/${h.metadata.name}`, `targets ${t?.kind}/${t?.name}, which does not exist`);
}
for (const want of ['invoicing', 'crypto', 'webhook-worker']) {
  if (!deployments.some((d) => d.spec?.template?.spec?.containers?.some((c) => envOf(c).SERVICE === want))) problem('manifests', `no Deployment runs SERVICE=${want}`);
}
// Migrations ordered before every process that needs them: an init container of each Deployment.
const MIGRATE = ['node', 'packages/migrate/dist/cli.js', 'deploy'];
for (const d of deployments) {
  if (!(d.spec?.template?.spec?.initContainers ?? []).some((c) => JSON.stringify(c.command) === JSON.stringify(MIGRATE))) {
    problem(`Deployment/${d.metadata.name}`, `has no init container running \`${MIGRATE.join(' ')}\`: its pods could start before the migrations they need`);
  }
}

// --- the restricted Pod Security Standard, on every pod and container --------------------------
for (const { owner, spec } of podSpecs) {
  if (spec.automountServiceAccountToken !== false) problem(owner, 'mounts the service-account token (set automountServiceAccountToken: false: the processes never call the Kubernetes API)');
  const pod = spec.securityContext ?? {};
  const tmpVolumes = new Set((spec.volumes ?? []).filter((v) => v.emptyDir).map((v) => v.name));
  for (const c of allContainers(spec)) {
    const sc = { ...pod, ...(c.securityContext ?? {}) };
    const where = `${owner} container ${c.name}`;
    if (sc.runAsNonRoot !== true) problem(where, 'may run as root (runAsNonRoot: true)');
    if (sc.allowPrivilegeEscalation !== false) problem(where, 'allows privilege escalation (allowPrivilegeEscalation: false)');
    if (sc.readOnlyRootFilesystem !== true) problem(where, 'has a writable root filesystem (readOnlyRootFilesystem: true, with an emptyDir where it writes)');
    if (!(c.securityContext?.capabilities?.drop ?? []).includes('ALL')) problem(where, 'keeps Linux capabilities (capabilities.drop: [ALL])');
    if (sc.seccompProfile?.type !== 'RuntimeDefault' && sc.seccompProfile?.type !== 'Localhost') problem(where, 'has no seccomp profile (seccompProfile.type: RuntimeDefault)');
    // A long-running process writes to /tmp (OCR's language data and work files): an emptyDir there.
    if ((spec.containers ?? []).includes(c) && !(c.volumeMounts ?? []).some((m) => m.mountPath === '/tmp' && tmpVolumes.has(m.name))) problem(where, 'has no emptyDir mounted at /tmp, where its process writes');
  }
}

// --- database connections: pods x DATABASE_POOL_MAX against Postgres' max_connections ------------
// The budget README "Database connections" plans for: max_connections 250, less 40 for the
// migrations' init containers, operators and monitoring.
const POSTGRES_CONNECTION_BUDGET = 210;
let connections = 0;
for (const d of deployments) {
  for (const c of d.spec?.template?.spec?.containers ?? []) {
    const pool = Number(envOf(c).DATABASE_POOL_MAX);
    if (!Number.isInteger(pool)) problem(`Deployment/${d.metadata.name}`, `container ${c.name} does not set DATABASE_POOL_MAX (each process would open up to 20 connections)`);
    else connections += pool * maxReplicasOf(d);
  }
}
if (connections > POSTGRES_CONNECTION_BUDGET) problem('manifests', `the Deployments can open ${connections} Postgres connections at their most replicas (DATABASE_POOL_MAX x maxReplicas), over the ${POSTGRES_CONNECTION_BUDGET} README "Database connections" plans for`);

// The pods behind a Service answer requests: their workers (RUN_WORKERS defaults to true) run apart.
const servedPods = new Set(services.flatMap((s) => podsOf(s.spec?.selector).map((d) => d.metadata.name)));
for (const d of deployments) {
  for (const c of d.spec?.template?.spec?.containers ?? []) {
    const env = envOf(c);
    if (servedPods.has(d.metadata.name) && ['invoicing', 'crypto'].includes(env.SERVICE) && env.RUN_WORKERS !== 'false') {
      problem(`Deployment/${d.metadata.name}`, `serves the ${env.SERVICE} API but does not set RUN_WORKERS=false: its pods would run the workers too`);
    }
  }
}
// The hot wallet's key: the Secret payments-payout-key, mounted as a file (readOnly, mode 0400) into
// the workers-only crypto container alone, which names it in PAYOUT_PRIVATE_KEY_FILE. Never an
// environment variable (it would stay in /proc/<pid>/environ), never in a pod that serves the API.
const PAYOUT_SECRET = 'payments-payout-key';
for (const d of deployments) {
  const where = `Deployment/${d.metadata.name}`;
  const spec = d.spec?.template?.spec ?? {};
  const keyVolumes = new Map(
    (spec.volumes ?? [])
      .filter((v) => v.secret?.secretName === PAYOUT_SECRET || (v.projected?.sources ?? []).some((s) => s.secret?.name === PAYOUT_SECRET))
      .map((v) => [v.name, v]),
  );
  for (const c of allContainers(spec)) {
    const env = envOf(c);
    const asVariable = [
      ...(c.env ?? []).filter((e) => e.name === 'PAYOUT_PRIVATE_KEY' || e.valueFrom?.secretKeyRef?.name === PAYOUT_SECRET).map((e) => `env ${e.name}`),
      ...(c.envFrom ?? []).filter((f) => f.secretRef?.name === PAYOUT_SECRET).map(() => `envFrom ${PAYOUT_SECRET}`),
    ];
    for (const ref of asVariable) problem(where, `container ${c.name} takes the hot wallet's key as an environment variable (${ref}): mount Secret ${PAYOUT_SECRET} as a file and set PAYOUT_PRIVATE_KEY_FILE`);
    const mounts = (c.volumeMounts ?? []).filter((m) => keyVolumes.has(m.name));
    const holds = mounts.length > 0 || 'PAYOUT_PRIVATE_KEY_FILE' in env || asVariable.length > 0;
    if (!holds) continue;
    if (env.SERVE_API !== 'false' || servedPods.has(d.metadata.name)) {
      problem(where, `container ${c.name} holds the hot wallet's key (Secret ${PAYOUT_SECRET}) but serves the API (SERVE_API=false unset, or a Service selects its pods): the key belongs to the workers-only crypto-workers alone`);
    }
    for (const m of mounts) {
      if (m.readOnly !== true) problem(where, `container ${c.name} mounts the hot wallet's key (volume ${m.name}) without readOnly: true`);
      const v = keyVolumes.get(m.name);
      const modes = [v.secret?.defaultMode ?? v.projected?.defaultMode ?? 0o644, ...(v.secret?.items ?? []).map((i) => i.mode).filter((x) => x !== undefined)];
      if (modes.some((mode) => mode !== 0o400)) problem(where, `volume ${m.name} gives the hot wallet's key mode ${modes.map((x) => `0${x.toString(8)}`).join(', ')}: set defaultMode: 0400 (its owner alone reads it)`);
    }
    const file = env.PAYOUT_PRIVATE_KEY_FILE;
    if (file !== undefined && !mounts.some((m) => file.startsWith(`${m.mountPath.replace(/\/$/, '')}/`))) problem(where, `container ${c.name} sets PAYOUT_PRIVATE_KEY_FILE=${file}, which is not in a mount of Secret ${PAYOUT_SECRET}`);
    if (mounts.length > 0 && file === undefined) problem(where, `container ${c.name} mounts the hot wallet's key but does not set PAYOUT_PRIVATE_KEY_FILE to it`);
    // The kubelet writes a Secret's files as root: a non-root process reads a 0400 one only through fsGroup (0440, its own group).
    const sc = { ...(spec.securityContext ?? {}), ...(c.securityContext ?? {}) };
    if (mounts.length > 0 && (spec.securityContext?.fsGroup === undefined || spec.securityContext.fsGroup !== sc.runAsGroup)) {
      problem(where, `the pod's securityContext.fsGroup (${spec.securityContext?.fsGroup ?? 'unset'}) is not its runAsGroup (${sc.runAsGroup ?? 'unset'}): the non-root process could not read the hot wallet's key`);
    }
  }
}
// Invoicing's WORKER_REPLICAS is the most worker replicas there can be: local receipt storage is refused above 1.
const invoicingPods = deployments.flatMap((d) => (d.spec?.template?.spec?.containers ?? []).filter((c) => envOf(c).SERVICE === 'invoicing').map((c) => ({ d, env: envOf(c) })));
const workerMax = Math.max(0, ...invoicingPods.filter((p) => p.env.RUN_WORKERS !== 'false').map((p) => maxReplicasOf(p.d)));
for (const { d, env } of invoicingPods) {
  if (Number(env.WORKER_REPLICAS ?? 1) < workerMax) problem(`Deployment/${d.metadata.name}`, `WORKER_REPLICAS is ${env.WORKER_REPLICAS ?? 'unset (1)'}, but invoicing workers can run ${workerMax} replicas`);
}

// --- scraping: a PodMonitor selects every Deployment's pods, on a port their container names -------
const podMonitors = renderedOf('PodMonitor');
for (const d of deployments) {
  const labels = d.spec?.template?.metadata?.labels;
  const ports = new Set((d.spec?.template?.spec?.containers ?? []).flatMap((c) => (c.ports ?? []).map((p) => p.name)));
  const scraped = podMonitors.some((m) => matches(m.spec?.selector?.matchLabels, labels) && (m.spec?.podMetricsEndpoints ?? []).some((e) => ports.has(e.port)));
  if (!scraped) problem(`Deployment/${d.metadata.name}`, 'no PodMonitor scrapes its pods (Prometheus ignores prometheus.io/* annotations): its metrics, alerts and autoscaling get no data');
}

// --- network: everything denied by default, the APIs reachable from the ingress controller only ----
const policies = renderedOf('NetworkPolicy');
const selects = (sel, labels) =>
  matches(sel?.matchLabels, labels) &&
  (sel?.matchExpressions ?? []).every((e) => (e.operator === 'In' ? e.values.includes(labels?.[e.key]) : e.operator === 'NotIn' ? !e.values.includes(labels?.[e.key]) : e.operator === 'Exists' ? e.key in (labels ?? {}) : !(e.key in (labels ?? {}))));
for (const d of deployments) {
  const labels = d.spec?.template?.metadata?.labels;
  const mine = policies.filter((p) => selects(p.spec?.podSelector, labels));
  for (const type of ['Ingress', 'Egress']) {
    if (!mine.some((p) => (p.spec?.policyTypes ?? []).includes(type))) problem(`Deployment/${d.metadata.name}`, `no NetworkPolicy restricts its ${type.toLowerCase()}`);
  }
  const sources = mine.flatMap((p) => p.spec?.ingress ?? []).flatMap((r) => r.from ?? [{ any: true }]);
  const open = sources.filter((f) => f.any || f.ipBlock || (!f.namespaceSelector && !f.podSelector));
  if (open.length > 0) problem(`Deployment/${d.metadata.name}`, 'a NetworkPolicy lets any address in');
}
const ingresses = renderedOf('Ingress');
const apiServices = new Set(ingresses.flatMap((i) => (i.spec?.rules ?? []).flatMap((r) => (r.http?.paths ?? []).map((p) => p.backend?.service?.name))));
for (const name of apiServices) {
  const svc = services.find((s) => s.metadata.name === name);
  if (!svc) {
    problem('Ingress', `routes to Service ${name}, which does not exist`);
    continue;
  }
  for (const d of podsOf(svc.spec?.selector)) {
    const fromIngress = policies
      .filter((p) => selects(p.spec?.podSelector, d.spec?.template?.metadata?.labels))
      .some((p) => (p.spec?.ingress ?? []).some((r) => (r.from ?? []).some((f) => f.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'] === 'ingress-nginx')));
    if (!fromIngress) problem(`Deployment/${d.metadata.name}`, 'serves an Ingress, but no NetworkPolicy lets the ingress controller in');
  }
}
if (ingresses.length === 0) problem('manifests', 'no Ingress (the example routes the public base URLs to the API Services)');

// --- runbooks: every alert links to a section of a page in docs/runbooks/ --------------------------
const slug = (heading) => heading.toLowerCase().replace(/[^a-z0-9 -]/g, '').replace(/ /g, '-');
for (const r of byKind('PrometheusRule')) {
  for (const g of r.spec?.groups ?? []) {
    for (const rule of (g.rules ?? []).filter((x) => x.alert)) {
      const where = `PrometheusRule/${r.metadata.name} ${rule.alert}`;
      const url = rule.annotations?.runbook_url;
      const m = /\/docs\/runbooks\/([\w-]+\.md)#([\w-]+)$/.exec(url ?? '');
      if (!m) {
        problem(where, `has no runbook_url to a section of a page in docs/runbooks/ (got ${url ?? 'none'})`);
        continue;
      }
      const page = path.join(ROOT, 'docs', 'runbooks', m[1]);
      if (!existsSync(page)) problem(where, `runbook_url names docs/runbooks/${m[1]}, which does not exist`);
      else if (!readFileSync(page, 'utf8').split('\n').some((l) => /^#{1,3} /.test(l) && slug(l.replace(/^#+ /, '')) === m[2])) problem(where, `runbook_url names the section #${m[2]}, which docs/runbooks/${m[1]} does not have`);
    }
  }
}

// --- metric names --------------------------------------------------------------------------------
/**
 * The metric names each service's process exports on /metrics: the `metrics.ts` modules its
 * production bundle holds (@pay/build, built into a scratch folder), imported in a
 * process of their own (metric-names.mjs). A metrics module no service's process loads
 * exports nothing, so what it registers does not count.
 */
async function exportedNamesByService() {
  const projects = workspaceProjects(ROOT);
  const services = entryPoints(projects).filter((e) => e.outName === 'main.js' && path.basename(path.dirname(e.project.dir)) === 'services');
  const scratch = mkdtempSync(path.join(tmpdir(), 'validate-bundles-'));
  try {
    return await Promise.all(
      services.map(async (entry) => {
        const built = await buildEntry(entry, { outDir: path.join(scratch, entry.project.folder), projects });
        const modules = built.sources.filter((f) => path.basename(f) === 'metrics.ts');
        const { stdout } = await run(process.execPath, ['--import', 'tsx', path.join(HERE, 'metric-names.mjs')], { env: { ...process.env, METRICS_MODULES: JSON.stringify(modules) }, cwd: ROOT });
        return [entry.project.folder, JSON.parse(stdout)];
      }),
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * exportedNamesByService, kept in the temp folder under a digest of every project's sources
 * and manifest (path, size, modification time): the same code gives the same names, and
 * building three bundles and loading them takes most of a run on a loaded machine.
 */
async function exportedNamesCached() {
  const hash = createHash('sha256');
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const at = path.join(d, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'node_modules' && e.name !== 'dist') walk(at);
      } else if (/\.(ts|mts|mjs|js|json)$/.test(e.name)) {
        const st = statSync(at);
        hash.update(`${at}\0${st.size}\0${st.mtimeMs}\n`);
      }
    }
  };
  for (const project of workspaceProjects(ROOT)) {
    hash.update(readFileSync(path.join(project.dir, 'package.json')));
    if (existsSync(path.join(project.dir, 'src'))) walk(path.join(project.dir, 'src'));
  }
  for (const f of ['pnpm-lock.yaml', path.join('packages', 'build', 'src', 'index.ts'), path.join('infra', 'k8s', 'metric-names.mjs')]) hash.update(readFileSync(path.join(ROOT, f)));
  const cache = path.join(tmpdir(), `payments-metric-names-${hash.digest('hex').slice(0, 32)}.json`);
  if (existsSync(cache)) return JSON.parse(readFileSync(cache, 'utf8'));
  const found = await exportedNamesByService();
  writeFileSync(`${cache}.${process.pid}`, JSON.stringify(found));
  renameSync(`${cache}.${process.pid}`, cache);
  return found;
}

// Series Prometheus itself makes for every target it scrapes, beside each service's own.
const exportedBy = new Map((await exportedNamesCached()).map(([service, names]) => [service, new Set([...names, 'up', 'scrape_duration_seconds', 'scrape_samples_scraped'])]));
const registered = new Set([...exportedBy.values()].flatMap((names) => [...names]));
/** Each metric `expr` names must be exported by a service's process; by `service`'s own when the rule names one (labels.service). */
function checkExpr(where, expr, service) {
  const { names, error } = metricNamesIn(expr);
  if (error !== null) problem(where, `PromQL syntax error at character ${error}: ${expr.trim()}`);
  if (service !== undefined && !exportedBy.has(service)) {
    problem(where, `labels.service is ${service}, which is no service (${[...exportedBy.keys()].join(', ')})`);
    return;
  }
  for (const n of names) {
    if (!registered.has(n)) problem(where, `names the metric ${n}, which no metrics module registers in a service's process`);
    else if (service !== undefined && !exportedBy.get(service).has(n)) problem(where, `names the metric ${n}, which the ${service} process does not export (its labels.service)`);
  }
}

// Alerts and recording rules.
for (const { where, rule } of rulesOf(objects.map((o) => o.doc))) checkExpr(where, String(rule.expr), rule.labels?.service);
// The Prometheus adapter's rules: the series they query and the names they serve to autoscalers.
// They are the adapter's Helm values (monitoring/prometheus-adapter-values.yaml: rules.external, rules.custom).
const adapterServes = new Set();
const adapterValues = path.join(dir, 'monitoring', 'prometheus-adapter-values.yaml');
if (!existsSync(adapterValues)) problem('monitoring/prometheus-adapter-values.yaml', 'missing: the HPAs External metrics come from the adapter rules it holds');
{
  const values = existsSync(adapterValues) ? (parseYaml(readFileSync(adapterValues, 'utf8')) ?? {}) : {};
  if (values.rules?.default !== false && existsSync(adapterValues)) problem('monitoring/prometheus-adapter-values.yaml', 'rules.default must be false (the chart default rules serve every series under guessed names)');
  {
    for (const rule of [...(values.rules?.custom ?? []), ...(values.rules?.external ?? [])]) {
      const where = `prometheus-adapter-values.yaml adapter rule ${rule.name?.as ?? rule.seriesQuery}`;
      // The adapter fills these Go-template slots in; the query around them is plain PromQL.
      const plain = (q) => String(q ?? '').replace(/,?\s*<<\.LabelMatchers>>/g, '').replace(/<<\.GroupBy>>/g, 'namespace').replace(/\{\s*\}/g, '');
      checkExpr(where, plain(rule.seriesQuery));
      checkExpr(where, plain(rule.metricsQuery));
      if (rule.name?.as) adapterServes.add(rule.name.as);
      else for (const n of metricNamesIn(plain(rule.seriesQuery)).names) adapterServes.add(n);
    }
  }
}
// Autoscalers: an External or Pods metric is served by an adapter rule (or is itself registered).
for (const h of hpas) {
  for (const m of h.spec?.metrics ?? []) {
    const name = m.external?.metric?.name ?? m.pods?.metric?.name ?? m.object?.metric?.name;
    if (name && !adapterServes.has(name) && !registered.has(name)) {
      problem(`HorizontalPodAutoscaler/${h.metadata.name}`, `reads the metric ${name}, which no Prometheus adapter rule serves and no metrics module registers`);
    }
  }
}
// The dashboard's panels (Grafana's own variables stand for durations).
for (const [name, data] of configMaps) {
  for (const [key, text] of Object.entries(data)) {
    if (!key.endsWith('.json')) continue;
    let dashboard;
    try {
      dashboard = JSON.parse(text);
    } catch (err) {
      problem(`ConfigMap/${name} ${key}`, `not JSON: ${err.message}`);
      continue;
    }
    const panels = (dashboard.panels ?? []).flatMap((p) => [p, ...(p.panels ?? [])]);
    for (const p of panels) {
      for (const t of p.targets ?? []) if (t.expr) checkExpr(`dashboard ${key} panel "${p.title}"`, t.expr.replace(/\$__\w+/g, '5m'));
    }
  }
}

if (problems.length > 0) {
  console.error(`${problems.length} problem(s) in ${dir}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  process.exit(1);
}
console.log(
  `${objects.length} Kubernetes objects valid (${dir}, rendered by kubectl kustomize); ${registered.size} metric names registered in code and exported by the services' processes (${[...exportedBy].map(([s, n]) => `${s} ${n.size}`).join(', ')})`,
);
