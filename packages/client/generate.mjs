// Generates src/generated/api.ts (gitignored) from the committed OpenAPI documents,
// docs/openapi/invoicing.json and crypto.json: the request and answer types of every
// operation (openapi-typescript), and the table the client runs by (each operation's method,
// path, credentials, Idempotency-Key and download). Run by `pnpm install` (the root's
// postinstall) and by `pnpm build` before the library is bundled, so a field the API gains or
// renames changes the SDK's types. Nothing is fetched: the documents are read from disk.
// Besides: a type per named component schema (`Invoice`, `Withdrawal`), each operation's error
// codes, its JSDoc (summary, description), its place in the resource namespaces, and the SDK's
// version from package.json (the User-Agent's).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
export const OUTPUT = join(here, 'src', 'generated', 'api.ts');

/** Service → the namespace of its types and the name of its operation table. */
const SERVICES = [
  { service: 'invoicing', namespace: 'InvoicingApi', table: 'INVOICING_OPERATIONS', tableType: 'InvoicingOperationTable' },
  { service: 'crypto', namespace: 'CryptoApi', table: 'CRYPTO_OPERATIONS', tableType: 'CryptoOperationTable' },
];

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** What the client needs to send one operation, read from the document, with what the SDK shows of it (docs, error codes, place). */
function operationsOf(doc, service) {
  const rows = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      if (!op.operationId) throw new Error(`docs/openapi/${service}.json: ${method.toUpperCase()} ${path} has no operationId`);
      const schemes = (op.security ?? doc.security ?? []).flatMap((s) => Object.keys(s));
      if (schemes.includes('session')) continue; // the web console's, not a merchant API
      const auth = schemes.includes('signature') ? 'signed' : schemes.includes('apiKey') ? 'key' : 'none';
      const parameters = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) => resolve(doc, p));
      const idempotent = parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
      const responses = Object.entries(op.responses ?? {}).map(([status, r]) => [status, resolve(doc, r)]);
      const success = responses.find(([status]) => /^2\d\d$/.test(status));
      const download = Boolean(success && success[1].content && !success[1].content['application/json']);
      const errorCodes = [...new Set(responses.filter(([status]) => !/^2\d\d$/.test(status)).flatMap(([, r]) => errorCodesOf(doc, r)))].sort();
      rows.push({ id: op.operationId, method, path, auth, idempotent, download, summary: op.summary, description: op.description, errorCodes, place: placeOf(service, op.operationId, path) });
    }
  }
  return rows;
}

/** A `$ref` followed to what it names (in the same document). */
function resolve(doc, node) {
  for (let seen = 0; node && typeof node === 'object' && typeof node.$ref === 'string'; seen++) {
    if (seen > 50) throw new Error(`${node.$ref}: a cycle of $refs`);
    if (!node.$ref.startsWith('#/')) throw new Error(`${node.$ref}: only references within the document are read`);
    node = node.$ref.slice(2).split('/').reduce((at, key) => at?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
    if (node === undefined) throw new Error(`a $ref names nothing in the document`);
  }
  return node;
}

/**
 * The error codes an error answer declares: its `x-error-codes` list where it has one (one Error
 * schema then serves every answer, its `code` listing every code of the API), else the enum (or
 * const) of its `error.code`, through $ref, allOf, oneOf and anyOf.
 */
function errorCodesOf(doc, response) {
  if (Array.isArray(response['x-error-codes'])) return response['x-error-codes'].filter((c) => typeof c === 'string');
  const schema = response.content?.['application/json']?.schema;
  if (!schema) return [];
  const codes = [];
  const errorCode = (node, depth) => {
    node = resolve(doc, node);
    if (!node || typeof node !== 'object' || depth > 20) return;
    for (const part of [...(node.allOf ?? []), ...(node.oneOf ?? []), ...(node.anyOf ?? [])]) errorCode(part, depth + 1);
    const code = node.properties?.error && resolve(doc, node.properties.error);
    if (code) codeValues(code, depth);
  };
  const codeValues = (error, depth) => {
    for (const part of [...(error.allOf ?? []), ...(error.oneOf ?? []), ...(error.anyOf ?? [])]) codeValues(resolve(doc, part), depth + 1);
    const code = error.properties?.code && resolve(doc, error.properties.code);
    if (!code) return;
    const values = (c) => [...(c.enum ?? []), ...(c.const !== undefined ? [c.const] : []), ...[...(c.allOf ?? []), ...(c.oneOf ?? []), ...(c.anyOf ?? [])].flatMap((p) => values(resolve(doc, p)))];
    codes.push(...values(code).filter((v) => typeof v === 'string'));
  };
  errorCode(schema, 0);
  return codes;
}

/*
 * Where each operation sits in the resource namespaces (`pay.invoicing.v2.invoices.create`,
 * `pay.crypto.withdrawals.create`), read from its path and operationId: the group from the
 * path (invoicing's /api/v2 → v2, /api/v1 → v1, a sandbox path → sandbox), then the resource
 * (the operationId's noun, plural, camelCase) and the verb (get → retrieve, delete → del, set →
 * update, as stripe-node names them). PLACES names those the rule would name badly. Two operations in one
 * place fail the generation, so a new operation never silently hides another.
 */
const PLACES = {
  invoicing: {
    getMerchantBrand: 'brand.retrieve',
    updateMerchantBrand: 'brand.update',
    setMerchantLogo: 'brand.setLogo',
    deleteMerchantLogo: 'brand.deleteLogo',
    downloadReceiptFile: 'receipts.download',
    rotateWebhookSecret: 'webhooks.rotateSecret',
  },
  crypto: {
    getMerchantProfile: 'merchants.retrieve',
    getMerchantStats: 'merchants.stats',
    setMerchantWebhook: 'merchants.setWebhook',
    regenerateHmacSecret: 'apiKeys.regenerateHmacSecret',
    getBalance: 'balance.retrieve',
  },
};
const VERBS = { get: 'retrieve', delete: 'del', set: 'update' };

function placeOf(service, id, path) {
  const groups = [];
  const version = /^\/api\/(v\d+)\//.exec(path)?.[1];
  if (service === 'invoicing') {
    if (!version) throw new Error(`docs/openapi/invoicing.json: ${id} (${path}) is under no /api/vN/: give it a place in generate.mjs PLACES`);
    // v2's sandbox is `invoicing.sandbox`; v1's stays under v1 (`invoicing.v1.sandbox`).
    if (path.startsWith('/api/v2/sandbox/')) groups.push('sandbox');
    else groups.push(version, ...(path.startsWith(`/api/${version}/sandbox/`) ? ['sandbox'] : []));
  } else if (path.startsWith(`/api/${version}/sandbox/`)) {
    groups.push('sandbox');
  }
  const named = PLACES[service]?.[id];
  if (named) return [...groups, ...named.split('.')];
  const lower = (w) => w.charAt(0).toLowerCase() + w.slice(1);
  const words = lower(lower(id.replace(/^v\d+/, '')).replace(/^sandbox/, '')).split(/(?=[A-Z])/);
  if (words.length < 2) throw new Error(`${service} ${id}: no verb and noun in the operationId: give it a place in generate.mjs PLACES`);
  const [verb, ...noun] = words;
  const resource = plural(noun.join(''));
  return [...groups, resource.charAt(0).toLowerCase() + resource.slice(1), VERBS[verb] ?? verb];
}

function plural(noun) {
  if (/s$/.test(noun)) return noun; // already (Refunds, Analytics, Currencies)
  if (/(ch|sh|x)$/.test(noun)) return `${noun}es`;
  if (/[^aeiou]y$/.test(noun)) return `${noun.slice(0, -1)}ies`;
  return `${noun}s`;
}

/** The tree of places → operationIds, failing on two operations in one place. */
function resourceTree(service, rows) {
  const tree = {};
  for (const row of rows) {
    let node = tree;
    const place = row.place;
    for (const [i, key] of place.entries()) {
      const last = i === place.length - 1;
      if (last) {
        if (node[key] !== undefined) throw new Error(`${service}: ${row.id} and another operation both sit at ${place.join('.')}: give one a place in generate.mjs PLACES`);
        node[key] = row;
      } else {
        node[key] ??= {};
        if (node[key].id !== undefined) throw new Error(`${service}: ${place.slice(0, i + 1).join('.')} is both an operation and a namespace`);
        node = node[key];
      }
    }
  }
  return tree;
}

/** A JSDoc comment from an operation's summary and description, and how it is sent. */
function jsdoc(row, indent) {
  const auth = { none: 'no credentials', key: 'API key', signed: 'API key, HMAC-signed' }[row.auth];
  const lines = [
    ...(row.summary ? [row.summary.trim(), ''] : []),
    ...(row.description ? [...row.description.trim().split('\n'), ''] : []),
    `\`${row.method.toUpperCase()} ${row.path}\` (${auth}${row.idempotent ? '; takes an Idempotency-Key' : ''}). Operation \`${row.id}\`.`,
  ];
  const pad = ' '.repeat(indent);
  return [`${pad}/**`, ...lines.map((l) => `${pad} *${l === '' ? '' : ` ${l.replace(/\*\//g, '*\\/')}`}`), `${pad} */`];
}

/** The resource namespaces as an interface over F (the method type of each operationId), with each method's JSDoc. */
function treeType(tree, indent) {
  const pad = ' '.repeat(indent);
  const out = [];
  for (const [key, node] of Object.entries(tree)) {
    if (node.id !== undefined) out.push(...jsdoc(node, indent), `${pad}readonly ${key}: F['${node.id}'];`);
    else out.push(`${pad}readonly ${key}: {`, ...treeType(node, indent + 2), `${pad}};`);
  }
  return out;
}

/** The same tree as data: each place → its operationId, for the client to build the namespaces from. */
function treeValue(tree) {
  return Object.fromEntries(Object.entries(tree).map(([key, node]) => [key, node.id !== undefined ? node.id : treeValue(node)]));
}

const union = (codes) => (codes.length === 0 ? 'never' : codes.map((c) => JSON.stringify(c)).join(' | '));

/** Names a document's component schema would shadow in the one declaration file the SDK ships (the global Error, Response, …). */
const RESERVED = new Set(['Error', 'Event', 'Response', 'Request', 'Headers', 'Blob', 'File', 'Date', 'Record', 'Partial', 'Download', 'PayApiError', 'PayClient']);

/**
 * The exported name of each component schema: its own (`Invoice`, `Withdrawal`), but the
 * service's name before it where it would clash with the other service's (`CryptoInvoice`) or a
 * global (`InvoicingError`). Invoicing, listed first, keeps the plain names.
 */
function schemaNames(docs) {
  const taken = new Set();
  return docs.map(({ service, doc }) => {
    const names = {};
    for (const name of Object.keys(doc.components?.schemas ?? {})) {
      if (!/^[A-Za-z_$][\w$]*$/.test(name)) continue; // not a TypeScript name: reachable through the namespace only
      const exported = taken.has(name) || RESERVED.has(name) ? `${service.charAt(0).toUpperCase()}${service.slice(1)}${name}` : name;
      names[name] = exported;
    }
    for (const exported of Object.values(names)) taken.add(exported);
    for (const name of Object.keys(names)) taken.add(name);
    return names;
  });
}

/*
 * Named types the documents do not name yet: each is a part of an operation's answer (an
 * operationId, its status, and the path to the part, a number for an array's items). One is
 * written only where no component schema has its exported name, so a document that names its
 * schemas (`components.schemas.Invoice`) takes over without a change here.
 */
const ANSWER_PARTS = {
  invoicing: {
    Invoice: ['getInvoice', 200, 'invoice'],
    Refund: ['listRefunds', 200, 'data', 0],
    Customer: ['listCustomers', 200, 'data', 0],
    Brand: ['getMerchantBrand', 200, 'brand'],
    Receipt: ['getReceipt', 200, 'receipt'],
    KycSession: ['getKycSession', 200, 'session'],
    V1Invoice: ['v1GetInvoice', 200],
    V1KycSession: ['v1GetKycSession', 200],
    Batch: ['v1GetBatch', 200],
  },
  crypto: {
    CryptoInvoice: ['getInvoice', 200, 'data'],
    Transaction: ['getTransaction', 200, 'data'],
    Withdrawal: ['getWithdrawal', 200, 'data'],
    Balances: ['getBalance', 200, 'data'],
    Balance: ['getBalance', 200, 'data', 'balances', 0],
    ApiKey: ['listApiKeys', 200, 'data', 'items', 0],
    Merchant: ['getMerchantProfile', 200, 'data'],
  },
};

function answerParts(service, namespace, rows, taken) {
  return Object.entries(ANSWER_PARTS[service] ?? {}).flatMap(([name, [id, status, ...path]]) => {
    if (taken.has(name)) return [];
    if (!rows.some((r) => r.id === id)) throw new Error(`generate.mjs ANSWER_PARTS: ${service} has no operation ${id} (for ${name})`);
    const parts = path.map((p) => (typeof p === 'number' ? '[number]' : `[${JSON.stringify(p)}]`)).join('');
    return [`/** Part of ${id}'s answer (the document names no schema ${name} yet). */`, `export type ${name} = ${namespace}.operations[${JSON.stringify(id)}]['responses'][${status}]['content']['application/json']${parts};`];
  });
}

/** Writes src/generated/api.ts unless it is already what the documents, package.json and this script make (it names their hash). */
export async function generate() {
  const documents = SERVICES.map(({ service }) => readFileSync(join(root, 'docs', 'openapi', `${service}.json`), 'utf8'));
  const manifest = readFileSync(join(here, 'package.json'), 'utf8');
  const hash = createHash('sha256').update(readFileSync(fileURLToPath(import.meta.url))).update(manifest).update(documents.join('\0')).digest('hex');
  const stamp = `// Generated by packages/client/generate.mjs from docs/openapi/*.json (${hash}). Do not edit: run \`pnpm install\` or \`pnpm build\`.`;
  if (existsSync(OUTPUT) && readFileSync(OUTPUT, 'utf8').startsWith(stamp)) return OUTPUT;
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  const { version } = JSON.parse(manifest);
  const parts = [
    stamp,
    '/* eslint-disable */',
    '',
    '/** The SDK\'s version (its package.json), sent in the User-Agent. */',
    `export const SDK_VERSION: string = ${JSON.stringify(version)};`,
    '',
    '/** How one operation is sent: its method and path template, the credentials it takes, whether it takes an Idempotency-Key, and whether it answers a file. */',
    'export interface OperationSpec {',
    "  readonly method: 'get' | 'put' | 'post' | 'delete' | 'patch';",
    '  readonly path: string;',
    "  readonly auth: 'none' | 'key' | 'signed';",
    '  readonly idempotent: boolean;',
    '  readonly download: boolean;',
    '}',
    '',
    '/** Resource namespaces → operationIds (`v2.invoices.create` → `createInvoice`). */',
    'export interface ResourceTree {',
    '  readonly [name: string]: string | ResourceTree;',
    '}',
    '',
  ];
  const parsed = SERVICES.map(({ service }, i) => ({ service, doc: JSON.parse(documents[i]) }));
  const names = schemaNames(parsed);
  for (const [i, { service, namespace, table, tableType }] of SERVICES.entries()) {
    const { doc } = parsed[i];
    const Service = `${service.charAt(0).toUpperCase()}${service.slice(1)}`;
    const types = astToString(await openapiTS(doc, { alphabetize: false }));
    const rows = operationsOf(doc, service);
    const tree = resourceTree(service, rows);
    parts.push(
      `/** The ${service} API's types, from docs/openapi/${service}.json (${doc.info.title} ${doc.info.version}). */`,
      `export namespace ${namespace} {`,
      types.replace(/^/gm, '  ').trimEnd(),
      '}',
      '',
      ...answerParts(service, namespace, rows, new Set(names.flatMap((n) => Object.values(n)))),
      ...Object.entries(names[i]).flatMap(([name, exported]) => {
        const schema = resolve(doc, doc.components.schemas[name]);
        const doc1 = (schema.description ?? schema.title ?? '').trim().split('\n')[0].replace(/\*\//g, '*\\/');
        return [...(doc1 ? [`/** ${doc1} */`] : []), `export type ${exported} = ${namespace}.components['schemas'][${JSON.stringify(name)}];`];
      }),
      '',
      `export interface ${tableType} {`,
      ...rows.map((r) => `  readonly ${r.id}: OperationSpec;`),
      '}',
      '',
      `export const ${table}: ${tableType} = {`,
      ...rows.map((r) => `  ${r.id}: ${JSON.stringify({ method: r.method, path: r.path, auth: r.auth, idempotent: r.idempotent, download: r.download })},`),
      '};',
      '',
      `/** The error codes each ${service} operation declares (its non-2xx answers' \`error.code\`). */`,
      `export interface ${Service}ErrorCodes {`,
      ...rows.map((r) => `  readonly ${r.id}: ${union(r.errorCodes)};`),
      '}',
      '',
      `/** The ${service} operations by operationId, each F[id] (the client's method type), with its JSDoc. */`,
      `export interface ${Service}Methods<F extends { readonly [K in keyof ${tableType}]: unknown }> {`,
      ...rows.flatMap((r) => [...jsdoc(r, 2), `  readonly ${r.id}: F['${r.id}'];`]),
      '}',
      '',
      `/** The ${service} operations in resource namespaces, each F[id] (the client's method type), with its JSDoc. */`,
      `export interface ${Service}Resources<F extends { readonly [K in keyof ${tableType}]: unknown }> {`,
      ...treeType(tree, 2),
      '}',
      '',
      `export const ${service.toUpperCase()}_RESOURCES: ResourceTree = ${JSON.stringify(treeValue(tree), null, 2)};`,
      '',
    );
  }
  mkdirSync(dirname(OUTPUT), { recursive: true });
  writeFileSync(OUTPUT, parts.join('\n'));
  return OUTPUT;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const out = await generate();
  console.log(`generated ${out.slice(root.length + 1)}`);
}
