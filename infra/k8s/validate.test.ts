import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const DIR = __dirname;
// A first run builds the three services' bundles and loads their metrics modules (then kept by
// content in the temp folder): about 30 s on this loaded machine, beyond the default 30 s.
jest.setTimeout(120_000);
const validate = (dir: string) => {
  try {
    return { code: 0, out: execFileSync(process.execPath, ['--import', 'tsx', path.join(DIR, 'validate.mjs'), dir], { encoding: 'utf8', stdio: 'pipe' }) };
  } catch (err) {
    const e = err as { status: number; stderr: string };
    return { code: e.status, out: e.stderr };
  }
};

/** A copy of the manifests with `edits` applied (file → text in, text out), validated. */
function validateEdited(edits: Record<string, (text: string) => string>) {
  const copy = mkdtempSync(path.join(tmpdir(), 'k8s-'));
  try {
    cpSync(DIR, copy, { recursive: true });
    for (const [file, edit] of Object.entries(edits)) {
      const at = path.join(copy, file);
      const before = readFileSync(at, 'utf8');
      const after = edit(before);
      if (after === before) throw new Error(`the edit of ${file} changed nothing: the test no longer matches the manifests`);
      writeFileSync(at, after);
    }
    return validate(copy);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

describe('Kubernetes manifests', () => {
  it('render (kubectl kustomize) and are valid against the Kubernetes and prometheus-operator schemas, offline, and cross-reference correctly', () => {
    const res = validate(DIR);
    expect(res).toEqual({ code: 0, out: expect.stringMatching(/^\d+ Kubernetes objects valid .*rendered by kubectl kustomize.*; \d+ metric names registered in code/) });
  });

  it('a broken copy is refused, naming each problem', () => {
    const res = validateEdited({
      'invoicing.yaml': (text) =>
        text
          .replace('containerPort: 3001', 'containerPort: "x"')
          .replace(/ {10}readinessProbe:\n\s+httpGet: \{ path: \/readyz, port: http \}\n\s+periodSeconds: 5\n\s+failureThreshold: 2\n/, '')
          .replace('name: invoicing }\n  minReplicas', 'name: invoicing-typo }\n  minReplicas'),
    });
    expect(res.code).toBe(1);
    expect(res.out).toMatch(/containerPort must be integer/);
    expect(res.out).toMatch(/container invoicing has no readinessProbe/);
    expect(res.out).toMatch(/targets Deployment\/invoicing-typo, which does not exist/);
  });

  it('checks the rendered output: an image the images transform does not set and a key no ConfigMap has are refused', () => {
    const res = validateEdited({
      'crypto.yaml': (text) => text.replace('image: payments\n          securityContext: *restricted\n          volumeMounts: [{ name: tmp, mountPath: /tmp }]\n          ports: [{ name: http, containerPort: 3002 }]', 'image: payments-typo\n          securityContext: *restricted\n          volumeMounts: [{ name: tmp, mountPath: /tmp }]\n          ports: [{ name: http, containerPort: 3002 }]'),
      'config.yaml': (text) => text.replace('CRYPTO_PUBLIC_URL:', 'CRYPTO_PUBLIC_ULR:'),
    });
    expect(res.code).toBe(1);
    expect(res.out).toMatch(/Deployment\/crypto: container crypto runs image "payments-typo", which the kustomization's images transform does not set \(registry.example.com\/payments:latest\)/);
    expect(res.out).toMatch(/env PUBLIC_URL reads CRYPTO_PUBLIC_URL, which ConfigMap payments-config does not define/);
  });

  it('refuses API pods that run workers, and a WORKER_REPLICAS below what the workers autoscaler may reach', () => {
    const apiRunsWorkers = validateEdited({ 'invoicing.yaml': (text) => text.replace('            - { name: RUN_WORKERS, value: "false" }\n', '') });
    expect(apiRunsWorkers.code).toBe(1);
    expect(apiRunsWorkers.out).toMatch(/Deployment\/invoicing: serves the invoicing API but does not set RUN_WORKERS=false/);
    const moreWorkers = validateEdited({ 'invoicing.yaml': (text) => text.replace(/maxReplicas: 6/, 'maxReplicas: 9') });
    expect(moreWorkers.code).toBe(1);
    expect(moreWorkers.out).toMatch(/Deployment\/invoicing: WORKER_REPLICAS is 6, but invoicing workers can run 9 replicas/);
    expect(moreWorkers.out).toMatch(/Deployment\/invoicing-workers: WORKER_REPLICAS is 6, but invoicing workers can run 9 replicas/);
  });

  it('refuses the hot wallet’s key given to the API, as a variable, or as a file open to others', () => {
    const KEY_FILE = '            - { name: PAYOUT_PRIVATE_KEY_FILE, value: /var/run/secrets/payout/PAYOUT_PRIVATE_KEY }\n';
    const toApi = validateEdited({
      // The API Deployment (the first RUN_WORKERS=false in crypto.yaml) given the workers' key mount and file.
      'crypto.yaml': (text) =>
        text
          .replace('            - { name: RUN_WORKERS, value: "false" }\n', `            - { name: RUN_WORKERS, value: "false" }\n${KEY_FILE}`)
          .replace('      volumes: [{ name: tmp, emptyDir: { sizeLimit: 64Mi } }]\n', '      volumes: [{ name: tmp, emptyDir: { sizeLimit: 64Mi } }, { name: payout-key, secret: { secretName: payments-payout-key, defaultMode: 0400 } }]\n')
          .replace('          volumeMounts: [{ name: tmp, mountPath: /tmp }]\n', '          volumeMounts: [{ name: tmp, mountPath: /tmp }, { name: payout-key, mountPath: /var/run/secrets/payout, readOnly: true }]\n'),
    });
    expect(toApi.code).toBe(1);
    expect(toApi.out).toMatch(/Deployment\/crypto: container crypto holds the hot wallet's key \(Secret payments-payout-key\) but serves the API/);
    expect(toApi.out).not.toMatch(/Deployment\/crypto-workers/);
    // The workers Deployment made to serve the API too.
    const workersServe = validateEdited({ 'crypto.yaml': (text) => text.replace('            - { name: SERVE_API, value: "false" }\n', '') });
    expect(workersServe.code).toBe(1);
    expect(workersServe.out).toMatch(/Deployment\/crypto-workers: container crypto-workers holds the hot wallet's key \(Secret payments-payout-key\) but serves the API/);
    // The key as a variable, and its file made readable by all, writable, and unreadable to the non-root process.
    const loose = validateEdited({
      'crypto.yaml': (text) =>
        text
          .replace(KEY_FILE, `${KEY_FILE}            - name: PAYOUT_PRIVATE_KEY\n              valueFrom: { secretKeyRef: { name: payments-payout-key, key: PAYOUT_PRIVATE_KEY } }\n`)
          .replace('defaultMode: 0400', 'defaultMode: 0644')
          .replace('mountPath: /var/run/secrets/payout, readOnly: true', 'mountPath: /var/run/secrets/payout')
          .replace('runAsGroup: 1000, fsGroup: 1000,', 'runAsGroup: 1000,'),
    });
    expect(loose.code).toBe(1);
    expect(loose.out).toMatch(/Deployment\/crypto-workers: container crypto-workers takes the hot wallet's key as an environment variable \(env PAYOUT_PRIVATE_KEY\)/);
    expect(loose.out).toMatch(/Deployment\/crypto-workers: volume payout-key gives the hot wallet's key mode 0644: set defaultMode: 0400/);
    expect(loose.out).toMatch(/Deployment\/crypto-workers: container crypto-workers mounts the hot wallet's key \(volume payout-key\) without readOnly: true/);
    expect(loose.out).toMatch(/Deployment\/crypto-workers: the pod's securityContext.fsGroup \(unset\) is not its runAsGroup \(1000\)/);
  });

  it('refuses a metric no metrics module registers, in an alert, an adapter rule, an autoscaler and the dashboard, and a PromQL syntax error', () => {
    const res = validateEdited({
      'monitoring/alerts.yaml': (text) => text.replace('expr: max(outbox_lag_seconds) > 120', 'expr: max(outbox_lag_secs) > 120').replace('expr: max(webhook_endpoints_disabled) > 0', 'expr: max(webhook_endpoints_disabled > 0'),
      'monitoring/prometheus-adapter-values.yaml': (text) => text.replace("metricsQuery: 'max(webhook_queue_depth{", "metricsQuery: 'max(webhook_deliveries_due{"),
      'webhook-worker.yaml': (text) => text.replace('name: webhook_deliveries_due', 'name: webhook_deliveries_pending'),
      'monitoring/dashboard.json': (text) => text.replace('"expr": "max(crypto_withdrawals_processing)"', '"expr": "max(crypto_withdrawals_in_processing)"'),
    });
    expect(res.code).toBe(1);
    expect(res.out).toMatch(/PrometheusRule\/payments-alerts OutboxLagging: names the metric outbox_lag_secs, which no metrics module registers/);
    expect(res.out).toMatch(/PrometheusRule\/payments-alerts WebhookEndpointDisabled: PromQL syntax error/);
    expect(res.out).toMatch(/adapter rule webhook_deliveries_due: names the metric webhook_deliveries_due, which no metrics module registers/);
    expect(res.out).toMatch(/HorizontalPodAutoscaler\/webhook-worker: reads the metric webhook_deliveries_pending, which no Prometheus adapter rule serves/);
    expect(res.out).toMatch(/dashboard dashboard.json panel "Withdrawals in Processing": names the metric crypto_withdrawals_in_processing/);
  });

  it("refuses an alert naming a metric its labels.service's process does not export (each service's metrics are the metrics modules its bundle loads), and an unknown service", () => {
    const res = validateEdited({
      'monitoring/alerts.yaml': (text) =>
        text
          .replace(
            'labels: { severity: critical, service: invoicing }\n          annotations:\n            runbook_url: https://git.example.com/payments/-/blob/main/docs/runbooks/acquirer.md#acquirerreconciliationbacklog',
            'labels: { severity: critical, service: crypto }\n          annotations:\n            runbook_url: https://git.example.com/payments/-/blob/main/docs/runbooks/acquirer.md#acquirerreconciliationbacklog',
          )
          .replace(/(- alert: AcquirerNotificationsFailing\n(?:.*\n){4}.*)service: invoicing/, '$1service: invoicng'),
    });
    expect(res.code).toBe(1);
    expect(res.out).toMatch(/AcquirerReconciliationBacklog: names the metric invoicing_acquirer_payment_oldest_unheard_seconds, which the crypto process does not export/);
    expect(res.out).toMatch(/AcquirerNotificationsFailing: labels.service is invoicng, which is no service \(crypto, invoicing, webhook-worker\)/);
    // The acquirer alerts are invoicing's, and their metrics come from its process.
    expect(res.out).not.toMatch(/AcquirerCallsFailing/);
  });

  it('refuses a container that loses its restricted security context, a pod that mounts the token, and no emptyDir at /tmp', () => {
    const res = validateEdited({
      'crypto.yaml': (text) => text.replace('          securityContext: *restricted\n          volumeMounts: [{ name: tmp, mountPath: /tmp }]\n          ports: [{ name: http, containerPort: 3002 }]', '          ports: [{ name: http, containerPort: 3002 }]'),
      'webhook-worker.yaml': (text) =>
        text.replace('      automountServiceAccountToken: false\n', '').replace('runAsGroup: 1000, seccompProfile: { type: RuntimeDefault } }', 'runAsGroup: 1000 }'),
    });
    expect(res.code).toBe(1);
    expect(res.out).toMatch(/Deployment\/crypto container crypto: allows privilege escalation/);
    expect(res.out).toMatch(/Deployment\/crypto container crypto: has a writable root filesystem/);
    expect(res.out).toMatch(/Deployment\/crypto container crypto: keeps Linux capabilities/);
    expect(res.out).toMatch(/Deployment\/crypto container crypto: has no emptyDir mounted at \/tmp/);
    expect(res.out).toMatch(/Deployment\/webhook-worker: mounts the service-account token/);
    expect(res.out).toMatch(/Deployment\/webhook-worker container webhook-worker: has no seccomp profile/);
    expect(res.out).toMatch(/Deployment\/webhook-worker container migrate: has no seccomp profile/);
  });

  it('refuses an alert without a runbook_url, or with one to a page or section that does not exist', () => {
    const res = validateEdited({
      'monitoring/alerts.yaml': (text) =>
        text
          .replace(/ {12}runbook_url: \S+#outboxlagging\n/, '')
          .replace('runbooks/http.md#http5xxratehigh', 'runbooks/htp.md#http5xxratehigh')
          .replace('runbooks/chain.md#chainbehind', 'runbooks/chain.md#chain-behind'),
    });
    expect(res.code).toBe(1);
    expect(res.out).toMatch(/PrometheusRule\/payments-alerts OutboxLagging: has no runbook_url/);
    expect(res.out).toMatch(/Http5xxRateHigh: runbook_url names docs\/runbooks\/htp.md, which does not exist/);
    expect(res.out).toMatch(/ChainBehind: runbook_url names the section #chain-behind, which docs\/runbooks\/chain.md does not have/);
  });

  it('refuses pods no PodMonitor scrapes, a Deployment without its migrations first, the APIs open to all, and more connections than Postgres takes', () => {
    const res = validateEdited({
      'monitoring/podmonitor.yaml': (text) => text.replace('matchLabels: { app.kubernetes.io/part-of: payments }', 'matchLabels: { app.kubernetes.io/name: crypto }'),
      'invoicing.yaml': (text) => text.replace('command: ["node", "packages/migrate/dist/cli.js", "deploy"]', 'command: ["node", "packages/migrate/dist/cli.js", "check"]').replace('- { name: DATABASE_POOL_MAX, value: "6" }', '- { name: DATABASE_POOL_MAX, value: "20" }'),
      'network-policies.yaml': (text) => text.replace('            matchLabels: { kubernetes.io/metadata.name: ingress-nginx }', '            matchLabels: { kubernetes.io/metadata.name: somewhere-else }'),
    });
    expect(res.code).toBe(1);
    expect(res.out).toMatch(/Deployment\/webhook-worker: no PodMonitor scrapes its pods/);
    expect(res.out).not.toMatch(/Deployment\/crypto: no PodMonitor/);
    expect(res.out).toMatch(/Deployment\/invoicing: has no init container running `node packages\/migrate\/dist\/cli.js deploy`/);
    expect(res.out).toMatch(/Deployment\/invoicing: serves an Ingress, but no NetworkPolicy lets the ingress controller in/);
    expect(res.out).toMatch(/the Deployments can open \d+ Postgres connections at their most replicas/);
  });
});
