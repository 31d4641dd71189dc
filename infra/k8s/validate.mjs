// Validates the Kubernetes manifests offline: every object against the Kubernetes JSON
// schemas that ship in the `kubernetes-models` npm package (no cluster, no download), then
// the checks a schema cannot make: probes and resource requests on every container,
// selectors that select, references that resolve.
// Usage: node infra/k8s/validate.mjs [dir]   (exit 1 and one line per problem on failure)
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

const dir = path.resolve(process.argv[2] ?? path.dirname(fileURLToPath(import.meta.url)));
const problems = [];
const problem = (where, what) => problems.push(`${where}: ${what}`);

const kustomization = readYaml(path.join(dir, 'kustomization.yaml'))[0] ?? {};
const files = [...(kustomization.resources ?? []), 'secret.example.yaml'];
const objects = [];
for (const file of files) {
  if (!existsSync(path.join(dir, file))) {
    problem('kustomization.yaml', `resource ${file} does not exist`);
    continue;
  }
  for (const doc of readYaml(path.join(dir, file))) if (doc) objects.push({ file, doc });
}

function readYaml(file) {
  const docs = parseAllDocuments(readFileSync(file, 'utf8'));
  for (const d of docs) for (const e of d.errors) problem(path.basename(file), `YAML: ${e.message}`);
  return docs.map((d) => d.toJS());
}

/** `apps/v1` → kubernetes-models/apps/v1; `v1` → kubernetes-models/v1. */
async function modelOf(apiVersion, kind) {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : [null, apiVersion];
  const module = await import(`kubernetes-models/${group ? `${group}/` : ''}${version}`).catch(() => null);
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

const byKind = (kind) => objects.filter((o) => o.doc.kind === kind).map((o) => o.doc);
const matches = (selector, labels) => Object.entries(selector ?? {}).every(([k, v]) => labels?.[k] === v);
const deployments = byKind('Deployment');
const configData = Object.assign({}, ...byKind('ConfigMap').map((c) => c.data ?? {}));

for (const d of deployments) {
  const where = `Deployment/${d.metadata.name}`;
  const labels = d.spec?.template?.metadata?.labels;
  if (!matches(d.spec?.selector?.matchLabels, labels)) problem(where, 'selector does not match the pod template labels');
  for (const c of d.spec?.template?.spec?.containers ?? []) {
    if (!c.readinessProbe) problem(where, `container ${c.name} has no readinessProbe`);
    if (!c.livenessProbe) problem(where, `container ${c.name} has no livenessProbe`);
    if (!c.resources?.requests?.cpu || !c.resources?.requests?.memory) problem(where, `container ${c.name} requests no cpu or memory`);
    if (!c.env?.some((e) => e.name === 'SERVICE')) problem(where, `container ${c.name} does not set SERVICE`);
    for (const e of c.env ?? []) {
      const ref = e.valueFrom?.configMapKeyRef;
      if (ref && !(ref.key in configData)) problem(where, `env ${e.name} reads ${ref.key}, which payments-config does not define`);
    }
  }
}
const selectsPods = (selector) => deployments.some((d) => matches(selector, d.spec?.template?.metadata?.labels));
for (const s of byKind('Service')) if (!selectsPods(s.spec?.selector)) problem(`Service/${s.metadata.name}`, 'selects no pods');
for (const p of byKind('PodDisruptionBudget')) if (!selectsPods(p.spec?.selector?.matchLabels)) problem(`PodDisruptionBudget/${p.metadata.name}`, 'selects no pods');
for (const h of byKind('HorizontalPodAutoscaler')) {
  const t = h.spec?.scaleTargetRef;
  if (!deployments.some((d) => t?.kind === 'Deployment' && d.metadata.name === t.name)) problem(`HorizontalPodAutoscaler/${h.metadata.name}`, `targets ${t?.kind}/${t?.name}, which does not exist`);
}
for (const want of ['invoicing', 'crypto', 'webhook-worker']) {
  if (!deployments.some((d) => d.spec?.template?.spec?.containers?.some((c) => c.env?.some((e) => e.name === 'SERVICE' && e.value === want)))) {
    problem('manifests', `no Deployment runs SERVICE=${want}`);
  }
}
if (!byKind('Job').some((j) => JSON.stringify(j.spec?.template?.spec?.containers ?? []).includes('migrate'))) problem('manifests', 'no migration Job');

if (problems.length > 0) {
  console.error(`${problems.length} problem(s) in ${dir}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  process.exit(1);
}
console.log(`${objects.length} Kubernetes objects valid (${dir})`);
