// The manifests as a cluster gets them: `kubectl kustomize` (Debian's kubernetes-client) renders
// the kustomization (images, labels, generators applied), and its YAML is read as Kubernetes
// reads it. Shared by validate.mjs (run under tsx) and env.test.ts.
import { execFileSync } from 'node:child_process';
import { parser as promql } from '@prometheus-io/lezer-promql';
import { parseAllDocuments, type Tags } from 'yaml';

/** The rendered YAML text; throws with kubectl's own message when it cannot render. */
export function renderKustomization(dir: string): string {
  try {
    return execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (caught) {
    const err = caught as { code?: string; stderr?: string; message: string };
    if (err.code === 'ENOENT') throw new Error("kubectl not found: install Debian's kubernetes-client (scripts/bootstrap.sh does)");
    throw new Error(`kubectl kustomize failed: ${String(err.stderr ?? err.message).trim()}`);
  }
}

/**
 * YAML as Kubernetes reads it here: `0x…` stays a string (an EVM contract address does not fit
 * the int64 Go's YAML would need to read it as a number, so the API server gets a string).
 */
const noHexInts = (tags: Tags): Tags => tags.filter((t) => typeof t === 'string' || t.format !== 'HEX');

/** Every document of a multi-document YAML text, with its syntax errors (message strings). */
export function readManifests(text: string): { objects: Manifest[]; errors: string[] } {
  const docs = parseAllDocuments(text, { customTags: noHexInts });
  return { objects: docs.map((d) => d.toJS() as Manifest | null).filter((o): o is Manifest => Boolean(o)), errors: docs.flatMap((d) => d.errors.map((e) => e.message)) };
}

/**
 * The environment a container gets: envFrom (ConfigMaps, Secrets) first, then its own env
 * (values, configMapKeyRef, secretKeyRef; an optional reference to a missing key is left out).
 */
export function containerEnv(container: Container, configMaps: Map<string, Record<string, unknown>>, secrets: Map<string, Record<string, unknown>>): Record<string, string> {
  const env: Record<string, unknown> = {};
  for (const from of container.envFrom ?? []) {
    if (from.configMapRef) Object.assign(env, configMaps.get(from.configMapRef.name) ?? {});
    if (from.secretRef) Object.assign(env, secrets.get(from.secretRef.name) ?? {});
  }
  for (const e of container.env ?? []) {
    const cm = e.valueFrom?.configMapKeyRef;
    const sk = e.valueFrom?.secretKeyRef;
    const value = 'value' in e ? e.value : cm ? configMaps.get(cm.name)?.[cm.key] : sk ? secrets.get(sk.name)?.[sk.key] : undefined;
    if (value !== undefined) env[e.name] = String(value);
  }
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)]));
}

/** The parts of a Kubernetes object these checks read. */
export interface Manifest {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

export interface Container {
  name?: string;
  env?: { name: string; value?: string; valueFrom?: { configMapKeyRef?: { name: string; key: string }; secretKeyRef?: { name: string; key: string } } }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
}

/** The metric names a PromQL expression selects, and the position of its first syntax error (null when none). */
export function metricNamesIn(expr: string): { names: string[]; error: number | null } {
  const names: string[] = [];
  let error: number | null = null;
  promql.parse(expr).iterate({
    enter: (n) => {
      if (n.type.isError && error === null) error = n.from;
      if (n.name === 'VectorSelector') {
        const id = n.node.getChild('Identifier');
        if (id) names.push(expr.slice(id.from, id.to));
      }
    },
  });
  return { names, error };
}

interface Rule {
  alert?: string;
  record?: string;
  expr?: unknown;
  labels?: Record<string, string>;
}

/** Every alerting and recording rule of the PrometheusRules among `objects`, with where it is (`PrometheusRule/<name> <alert>`). */
export function rulesOf(objects: Manifest[]): { where: string; rule: Rule }[] {
  return objects
    .filter((o) => o.kind === 'PrometheusRule')
    .flatMap((r) =>
      ((r.spec as { groups?: { rules?: Rule[] }[] } | undefined)?.groups ?? []).flatMap((g) => (g.rules ?? []).map((rule) => ({ where: `PrometheusRule/${r.metadata?.name} ${rule.alert ?? rule.record}`, rule }))),
    );
}
