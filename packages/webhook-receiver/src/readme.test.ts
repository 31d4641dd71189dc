import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The README's table of event kinds is prose, written by hand: it must name exactly the kinds
 * of each family, and exactly the objects each body carries, as the committed OpenAPI
 * documents' `webhooks` sections give them (the types of src/generated are made from the same
 * documents, and the documents from each service's event catalogue). A kind added to a
 * catalogue, or an object added to a body, fails here until the table says so.
 */

const ROOT = path.resolve(__dirname, '..', '..', '..');
const README = readFileSync(path.resolve(__dirname, '..', 'README.md'), 'utf8');
const ENVELOPE = ['event', 'timestamp', 'livemode', 'id', 'type', 'createdAt', 'source'];

type Family = 'invoicing' | 'crypto';

/** Kind → the object keys of its body, per family, from docs/openapi/<service>.json. */
function documented(service: Family): Map<string, string[]> {
  type Schema = { $ref?: string; properties?: Record<string, unknown> };
  const doc = JSON.parse(readFileSync(path.join(ROOT, 'docs', 'openapi', `${service}.json`), 'utf8')) as {
    components: { schemas: Record<string, Schema> };
    webhooks: Record<string, { post: { requestBody: { content: { 'application/json': { schema: Schema } } } } }>;
  };
  // A body is a named schema of the document (`$ref`).
  const body = (s: Schema): Schema => (s.$ref ? doc.components.schemas[s.$ref.replace('#/components/schemas/', '')]! : s);
  return new Map(
    Object.entries(doc.webhooks).map(([kind, w]) => [kind, Object.keys(body(w.post.requestBody.content['application/json'].schema).properties ?? {}).filter((k) => !ENVELOPE.includes(k)).sort()]),
  );
}

/** Kind → the object keys its row names (`invoice: …`, `refund: …`), per family (its "sent to" column). */
function tabled(): Record<Family, Map<string, string[]>> {
  const start = README.indexOf('| kind | object | sent to |');
  expect(start).toBeGreaterThan(0);
  const rows = README.slice(start).split('\n').slice(2);
  const table: Record<Family, Map<string, string[]>> = { invoicing: new Map(), crypto: new Map() };
  for (const row of rows) {
    if (!row.startsWith('|')) break;
    const [kinds, objects, sentTo] = row.split('|').slice(1, 4).map((c) => c.trim()) as [string, string, string];
    const family: Family = /crypto `webhookUrl`/.test(sentTo) ? 'crypto' : 'invoicing';
    const keys = [...objects.matchAll(/(?:^|, )`?(\w+): /g)].map((m) => m[1]!).sort();
    for (const kind of kinds.matchAll(/`([\w.]+)`/g)) {
      expect({ family, kind: kind[1], twice: table[family].has(kind[1]!) }).toEqual({ family, kind: kind[1], twice: false });
      table[family].set(kind[1]!, keys);
    }
  }
  return table;
}

it.each(['invoicing', 'crypto'] as const)('the README names every %s event kind, with the objects of its body, as the OpenAPI document does', (family) => {
  expect(Object.fromEntries(tabled()[family])).toEqual(Object.fromEntries(documented(family)));
});
