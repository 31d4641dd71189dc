/**
 * Every example of the committed documents (docs/openapi/*.json) is valid against the schema
 * it illustrates, checked with ajv as JSON Schema 2020-12 (OpenAPI 3.1's dialect), `$ref`s
 * resolved in the document: each operation's request body, answer, parameters and the example
 * of each error code, and each webhook's body. Every operation has a request example (its body,
 * else its parameters) and an example of its answer.
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { DOCUMENTED_APIS, readCommitted, type DocumentedApi } from '../../../scripts/openapi';

type Json = Record<string, unknown>;
const SERVICES = Object.keys(DOCUMENTED_APIS) as DocumentedApi[];
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** `a/b~c` → the JSON pointer token. */
const token = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

interface Example {
  where: string;
  /** JSON pointer to the schema in the document. */
  schema: string;
  value: unknown;
}

/** Every example of a media type or parameter under `node` (at `pointer`), with the pointer of its schema. */
function examplesIn(node: unknown, pointer: string, out: Example[] = []): Example[] {
  if (!node || typeof node !== 'object' || Array.isArray(node)) return out;
  const o = node as Json;
  if (o.schema && typeof o.schema === 'object') {
    if ('example' in o) out.push({ where: pointer, schema: `${pointer}/schema`, value: o.example });
    for (const [name, ex] of Object.entries((o.examples ?? {}) as Record<string, { value: unknown }>)) {
      out.push({ where: `${pointer}/examples/${name}`, schema: `${pointer}/schema`, value: ex.value });
    }
  }
  for (const [key, value] of Object.entries(o)) if (key !== 'schema') examplesIn(value, `${pointer}/${token(key)}`, out);
  return out;
}

describe.each(SERVICES)('docs/openapi/%s.json', (service) => {
  const doc = JSON.parse(readCommitted(service)) as Json & { paths: Record<string, Record<string, Json>>; webhooks?: Record<string, Record<string, Json>> };
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  // The document as one schema resource: every `#/components/...` inside it resolves in it.
  ajv.addSchema(doc, 'doc.json');
  const examples = examplesIn(doc, '');

  it('has an example request and answer on every operation', () => {
    const missing: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of METHODS) {
        const op = item[method] as { requestBody?: { content: Record<string, Json> }; parameters?: Json[]; responses: Record<string, { content?: Record<string, Json> }> } | undefined;
        if (!op) continue;
        const where = `/paths/${token(path)}/${method}`;
        const json = op.requestBody?.content['application/json'];
        const request = op.requestBody ? (json ? 'example' in json : true) : (op.parameters ?? []).every((p) => 'example' in p);
        // A form upload's example is its parameters'; its files are bytes.
        const success = Object.entries(op.responses).find(([status]) => /^2/.test(status))?.[1];
        const answer = !success?.content?.['application/json'] || 'example' in success.content['application/json'];
        if (!request) missing.push(`${method.toUpperCase()} ${path}: request`);
        if (!answer) missing.push(`${method.toUpperCase()} ${path}: answer`);
        expect(examples.some((e) => e.where.startsWith(where))).toBe(true);
      }
    }
    expect(missing).toEqual([]);
  });

  it('every example is valid against its schema', () => {
    expect(examples.length).toBeGreaterThan(100);
    const invalid = examples.flatMap((e) => {
      const validate = ajv.getSchema(`doc.json#${e.schema}`);
      if (!validate) return [`${e.where}: no schema at ${e.schema}`];
      return validate(e.value) ? [] : [`${e.where}: ${ajv.errorsText(validate.errors)}`];
    });
    expect(invalid).toEqual([]);
  });

  it('the check notices an example its schema refuses', () => {
    const answer = examples.find((e) => /\/responses\/20\d\/content\/application~1json$/.test(e.where) && (e.value as Json).success === true)!;
    const validate = ajv.getSchema(`doc.json#${answer.schema}`)!;
    expect(validate(answer.value)).toBe(true);
    expect(validate({ ...(answer.value as Json), success: false })).toBe(false);
    expect(validate('not an object')).toBe(false);
    const refusal = examples.find((e) => e.where.endsWith('/examples/NOT_FOUND'))!;
    const error = (refusal.value as { error: Json }).error;
    expect(ajv.getSchema(`doc.json#${refusal.schema}`)!({ ...(refusal.value as Json), error: { ...error, code: 'NO_SUCH_CODE' } })).toBe(false);
  });
});
