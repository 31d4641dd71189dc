/**
 * The named schemas of an OpenAPI document (`components.schemas`). A schema is named once, where
 * it is defined, by its JSON Schema `title` (`Type.Object({...}, { title: 'Invoice' })`); the
 * document then holds it once and every use is a `$ref` to it, so a generator makes one
 * `Invoice` model instead of `CreateInvoice201ResponseInvoice` and its copies. A title is only
 * ever a component name: one that is not, or two different schemas under one name, stop the
 * build with the schema to fix rather than being guessed at.
 */

/** Words about a schema, not rules: a use may say them differently (`{ ...Invoice, description }`) and still be the same schema. */
const ANNOTATIONS = new Set(['description', 'default', 'examples', 'example', 'deprecated', 'readOnly', 'writeOnly', '$comment']);

export const COMPONENT_NAME = /^[A-Z][A-Za-z0-9]*$/;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** TypeBox schemas are JSON Schema already; the JSON round trip drops its symbol markers. */
export function plainSchema(schema: unknown): JsonObject {
  return JSON.parse(JSON.stringify(schema)) as JsonObject;
}

/** The schema's rules as text, keys sorted: two spellings of one schema give the same text. */
function rulesOf(schema: JsonObject): string {
  const sorted = (v: Json): Json =>
    Array.isArray(v) ? v.map(sorted) : isObject(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted(v[k]!)])) : v;
  return JSON.stringify(sorted(Object.fromEntries(Object.entries(schema).filter(([k]) => !ANNOTATIONS.has(k)))));
}

/** `listInvoices` → `ListInvoices`. */
export const pascalCase = (name: string): string => name.replace(/(^|[^A-Za-z0-9]+)([A-Za-z0-9])/g, (_m, _sep, c: string) => c.toUpperCase());

export class SchemaComponents {
  readonly schemas: Record<string, JsonObject> = {};

  /**
   * The schema with every titled part (itself included) moved to `components.schemas` and
   * replaced by its `$ref`. A use that only words it differently keeps its own words beside
   * the `$ref` (OpenAPI 3.1 allows them there).
   */
  use(schema: unknown): JsonObject {
    return this.walk(plainSchema(schema)) as JsonObject;
  }

  /** `schema` under `name` unless it has a title of its own: the name a generator gives a body it would otherwise make up. */
  useNamed(name: string, schema: unknown): JsonObject {
    const plain = plainSchema(schema);
    return this.walk(typeof plain.title === 'string' ? plain : { title: name, ...plain }) as JsonObject;
  }

  /** A `$ref` to the component `name`. */
  static ref(name: string): JsonObject {
    return { $ref: `#/components/schemas/${name}` };
  }

  private walk(node: Json): Json {
    if (Array.isArray(node)) return node.map((n) => this.walk(n));
    if (!isObject(node)) return node;
    const inner: JsonObject = Object.fromEntries(
      Object.entries(node).map(([key, value]) => [
        key,
        // Keys under `properties` (and the like) are names, not schemas, but their values are.
        key === 'properties' || key === 'patternProperties' || key === '$defs'
          ? Object.fromEntries(Object.entries(value as JsonObject).map(([k, v]) => [k, this.walk(v)]))
          : key === 'enum' || key === 'const' || key === 'examples' || key === 'example' || key === 'default' || key === 'required'
            ? value
            : this.walk(value),
      ]),
    );
    const name = inner.title;
    if (typeof name !== 'string') return inner;
    if (!COMPONENT_NAME.test(name)) {
      throw new Error(`The schema titled "${name}" cannot be a component: a title names a component, so it must be PascalCase (e.g. "KycSession"). Schema: ${JSON.stringify(node).slice(0, 300)}`);
    }
    const known = this.schemas[name];
    if (!known) {
      this.schemas[name] = inner;
      return SchemaComponents.ref(name);
    }
    if (rulesOf(known) !== rulesOf(inner)) {
      throw new Error(
        `Two different schemas are both titled "${name}": give one of them another title (or none). ` +
          `First: ${JSON.stringify(known).slice(0, 300)}; then: ${JSON.stringify(inner).slice(0, 300)}`,
      );
    }
    const words = Object.fromEntries(Object.entries(inner).filter(([k, v]) => ANNOTATIONS.has(k) && JSON.stringify(known[k]) !== JSON.stringify(v)));
    return { ...SchemaComponents.ref(name), ...words };
  }
}
