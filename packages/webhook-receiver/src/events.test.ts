/**
 * The receiver's event types against the platform's own JSON Schemas of every webhook body:
 * the `webhooks` sections of the committed OpenAPI documents (docs/openapi/*.json), which each
 * service builds from its event catalogue (services/<service>/src/event-catalogue.ts; the
 * services' openapi tests fail when a committed document differs from what they serve). The
 * types are generated from those documents (generate.mjs); two checks, so the generator and
 * the documents cannot drift apart:
 * - the TypeScript union (read with the compiler, as a merchant's editor sees it) and each
 *   schema describe the same properties, optionality and value types, kind by kind;
 * - the document's example body of each kind (and the v1 KYC shapes), valid against its schema,
 *   signed with the platform's signer, comes back from verifyWebhook unchanged and holds
 *   exactly the typed properties.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { assertValid } from '@pay/schemas';
import { webhookHeaders } from '@pay/webhooks';
import {
  verifyWebhook,
  type CryptoCurrency,
  type CryptoNetwork,
  type CryptoWebhookEvent,
  type InvoicingWebhookEvent,
  type WebhookEvent,
  type WebhookEventOf,
  type WebhookInvoice,
  type WebhookKycSession,
  type WebhookKycSessionV1,
  type WebhookPaymentAttempt,
  type WebhookPaymentReview,
  type WebhookRefund,
} from './index';

type Json = Record<string, unknown>;

/**
 * A value type, as both a JSON Schema and a TypeScript type can say it: a leaf (`string`,
 * `number`, `boolean`, `null`, `unknown` or a literal), a union, an object with its
 * properties, or a record (`Record<string, T>`).
 */
type Shape =
  | { leaf: string }
  | { literal: string | number | boolean }
  | { union: Shape[] }
  | { object: Record<string, { optional: boolean; shape: Shape }> }
  | { record: Shape };

/** Canonical text of a shape: unions and properties sorted, e.g. `{a:string,b?:null|number}`. */
function text(shape: Shape): string {
  if ('leaf' in shape) return shape.leaf;
  if ('literal' in shape) return JSON.stringify(shape.literal);
  if ('union' in shape) return [...new Set(shape.union.map(text))].sort().join('|');
  if ('record' in shape) return `{[string]:${text(shape.record)}}`;
  return `{${Object.entries(shape.object)
    .map(([k, p]) => `${k}${p.optional ? '?' : ''}:${text(p.shape)}`)
    .sort()
    .join(',')}}`;
}

/** A union of the alternatives, nested unions flattened; one alternative is itself. */
function unionOf(parts: Shape[]): Shape {
  const flat = parts.flatMap((p) => ('union' in p ? p.union : [p]));
  return flat.length === 1 ? flat[0]! : { union: flat };
}

/** The shape of `schema`; a `$ref` is read in the `components` beside it at the root (a document's body schema, see webhooksOf). */
function fromSchema(schema: Json, root: Json = schema): Shape {
  const of = (s: Json) => fromSchema(s, root);
  if (typeof schema.$ref === 'string') {
    const named = (root.components as { schemas: Record<string, Json> } | undefined)?.schemas[schema.$ref.replace('#/components/schemas/', '')];
    if (!named) throw new Error(`fromSchema: ${schema.$ref} names no schema beside it`);
    return of(named);
  }
  if (Array.isArray(schema.anyOf)) return unionOf((schema.anyOf as Json[]).map(of));
  if ('const' in schema) return { literal: schema.const as string };
  if (Array.isArray(schema.enum)) return unionOf((schema.enum as string[]).map((literal) => ({ literal })));
  switch (schema.type) {
    case 'string':
    case 'boolean':
    case 'null':
      return { leaf: schema.type };
    case 'number':
    case 'integer':
      return { leaf: 'number' };
    case 'object': {
      if (schema.patternProperties) return { record: unionOf(Object.values(schema.patternProperties as Record<string, Json>).map(of)) };
      const required = new Set((schema.required as string[] | undefined) ?? []);
      return { object: Object.fromEntries(Object.entries((schema.properties as Record<string, Json>) ?? {}).map(([k, v]) => [k, { optional: !required.has(k), shape: of(v) }])) };
    }
    case undefined:
      if (Object.keys(schema).every((k) => ['description', 'title'].includes(k))) return { leaf: 'unknown' };
  }
  throw new Error(`fromSchema: no rule for ${JSON.stringify(schema)}`);
}

function fromType(checker: ts.TypeChecker, type: ts.Type): Shape {
  if (type.isUnion()) {
    const parts = type.types.filter((t) => !(t.flags & ts.TypeFlags.Undefined));
    // `boolean` is `true | false` to the checker.
    const bools = parts.filter((t) => t.flags & ts.TypeFlags.BooleanLiteral);
    const rest = parts.filter((t) => !(t.flags & ts.TypeFlags.BooleanLiteral)).map((t) => fromType(checker, t));
    return unionOf(bools.length === 2 ? [...rest, { leaf: 'boolean' }] : [...rest, ...bools.map((t) => fromType(checker, t))]);
  }
  if (type.isStringLiteral() || type.isNumberLiteral()) return { literal: type.value as string | number };
  if (type.flags & ts.TypeFlags.BooleanLiteral) return { literal: checker.typeToString(type) === 'true' };
  const leaves: [ts.TypeFlags, string][] = [
    [ts.TypeFlags.String, 'string'],
    [ts.TypeFlags.Number, 'number'],
    [ts.TypeFlags.Boolean, 'boolean'],
    [ts.TypeFlags.Null, 'null'],
    [ts.TypeFlags.Unknown, 'unknown'],
  ];
  for (const [flag, leaf] of leaves) if (type.flags & flag) return { leaf };
  if (type.flags & ts.TypeFlags.Object) {
    const index = checker.getIndexInfosOfType(type);
    const props = checker.getPropertiesOfType(type);
    if (index.length === 1 && props.length === 0 && index[0]!.keyType.flags & ts.TypeFlags.String) return { record: fromType(checker, index[0]!.type) };
    if (index.length > 0) throw new Error(`fromType: index signature beside properties in ${checker.typeToString(type)}`);
    return { object: Object.fromEntries(props.map((p) => [p.name, { optional: (p.flags & ts.SymbolFlags.Optional) !== 0, shape: fromType(checker, checker.getTypeOfSymbol(p)) }])) };
  }
  throw new Error(`fromType: no rule for ${checker.typeToString(type)}`);
}

/** Where `value` does not have `shape` (exact objects: no missing required, no unknown property), or null. */
function mismatch(value: unknown, shape: Shape, at = '$'): string | null {
  if ('union' in shape) {
    const errors = shape.union.map((alt) => mismatch(value, alt, at));
    return errors.includes(null) ? null : errors.join(' / ');
  }
  if ('literal' in shape) return value === shape.literal ? null : `${at}: ${JSON.stringify(value)} is not ${JSON.stringify(shape.literal)}`;
  if ('leaf' in shape) {
    const ok = shape.leaf === 'unknown' || (shape.leaf === 'null' ? value === null : typeof value === shape.leaf);
    return ok ? null : `${at}: ${JSON.stringify(value)} is not ${shape.leaf}`;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return `${at}: not an object`;
  const obj = value as Json;
  if ('record' in shape) {
    for (const [k, v] of Object.entries(obj)) {
      const e = mismatch(v, shape.record, `${at}.${k}`);
      if (e) return e;
    }
    return null;
  }
  for (const k of Object.keys(obj)) if (!(k in shape.object)) return `${at}.${k}: not in the type`;
  for (const [k, p] of Object.entries(shape.object)) {
    if (!(k in obj)) {
      if (p.optional) continue;
      return `${at}.${k}: missing`;
    }
    const e = mismatch(obj[k], p.shape, `${at}.${k}`);
    if (e) return e;
  }
  return null;
}

/** The members of the exported unions of index.ts, by their `event` literal: one program for the whole file. */
const program = (() => {
  const file = path.join(__dirname, 'index.ts');
  const created = ts.createProgram([file], { strict: true, noEmit: true, types: ['node'], lib: ['lib.es2023.d.ts'], skipLibCheck: true });
  const checker = created.getTypeChecker();
  const exports = checker.getExportsOfModule(checker.getSymbolAtLocation(created.getSourceFile(file)!)!);
  const members = (name: string): Map<string, Shape[]> => {
    const symbol = exports.find((s) => s.name === name);
    if (!symbol) throw new Error(`index.ts exports no ${name}`);
    const type = checker.getDeclaredTypeOfSymbol(symbol);
    const byKind = new Map<string, Shape[]>();
    for (const member of type.isUnion() ? type.types : [type]) {
      const event = checker.getTypeOfSymbol(member.getProperty('event')!);
      for (const k of event.isUnion() ? event.types : [event]) {
        if (!k.isStringLiteral()) throw new Error(`${name}: a member's event is not a string literal`);
        byKind.set(k.value, [...(byKind.get(k.value) ?? []), fromType(checker, member)]);
      }
    }
    return byKind;
  };
  return { members };
})();

/** A JSON Schema as @pay/schemas validates it (a TypeBox schema). */
type TSchema = Parameters<typeof assertValid>[0];

/**
 * A document's webhooks: each kind's body schema and example body. A body is a `$ref` to the
 * document's named schemas, so each is given with them beside it (`components`): ajv resolves
 * `#/components/schemas/…` in its root, and so does fromSchema.
 */
function webhooksOf(service: 'invoicing' | 'crypto'): { schemas: Record<string, TSchema>; examples: Record<string, Json> } {
  const doc = JSON.parse(readFileSync(path.join(__dirname, '..', '..', '..', 'docs', 'openapi', `${service}.json`), 'utf8')) as {
    components: Json;
    webhooks: Record<string, { post: { requestBody: { content: { 'application/json': { schema: TSchema; example: Json } } } } }>;
  };
  const bodies = Object.entries(doc.webhooks).map(([kind, w]) => [kind, w.post.requestBody.content['application/json']] as const);
  return {
    schemas: Object.fromEntries(bodies.map(([k, b]) => [k, { ...b.schema, components: doc.components } as TSchema])),
    examples: Object.fromEntries(bodies.map(([k, b]) => [k, b.example])),
  };
}

const families: { name: 'InvoicingWebhookEvent' | 'CryptoWebhookEvent'; schemas: Record<string, TSchema>; examples: Record<string, Json> }[] = [
  { name: 'InvoicingWebhookEvent', ...webhooksOf('invoicing') },
  { name: 'CryptoWebhookEvent', ...webhooksOf('crypto') },
];

describe('the event types match the JSON Schemas of the bodies the platform sends', () => {
  const read = Object.fromEntries(families.map((f) => [f.name, program.members(f.name)]));

  it.each(families)('$name has exactly the kinds of its schemas', ({ name, schemas }) => {
    expect([...read[name]!.keys()].sort()).toEqual(Object.keys(schemas).sort());
  });

  const cases = families.flatMap(({ name, schemas }) => Object.entries(schemas).map(([kind, schema]) => ({ name, kind, schema })));
  it.each(cases)('$name $kind: same properties, optionality and value types', ({ name, kind, schema }) => {
    const members = read[name]!.get(kind) ?? [];
    expect(members).toHaveLength(1);
    expect(text(members[0]!)).toBe(text(fromSchema(schema as unknown as Json)));
  });

  it('the comparison notices drift: a renamed field, a looser type, a lost null, a new optional field', () => {
    const schema = { type: 'object', required: ['a', 'b'], properties: { a: { type: 'string' }, b: { anyOf: [{ type: 'integer' }, { type: 'null' }] }, c: { type: 'string', enum: ['X', 'Y'] } } };
    expect(text(fromSchema(schema))).toBe('{a:string,b:null|number,c?:"X"|"Y"}');
    const typed = (src: string) => {
      const file = path.join(__dirname, '__drift__.ts');
      const host = ts.createCompilerHost({ strict: true });
      const read = host.getSourceFile.bind(host);
      host.getSourceFile = (name, lang) => (name === file ? ts.createSourceFile(name, src, lang) : read(name, lang));
      const p = ts.createProgram([file], { strict: true, noEmit: true, types: [], lib: ['lib.es2023.d.ts'] }, host);
      const checker = p.getTypeChecker();
      const t = checker.getExportsOfModule(checker.getSymbolAtLocation(p.getSourceFile(file)!)!).find((s) => s.name === 'T')!;
      return text(fromType(checker, checker.getDeclaredTypeOfSymbol(t)));
    };
    expect(typed("export interface T { a: string; b: number | null; c?: 'X' | 'Y' }")).toBe(text(fromSchema(schema)));
    for (const drifted of [
      "export interface T { A: string; b: number | null; c?: 'X' | 'Y' }",
      "export interface T { a: string; b: number | null; c?: string }",
      "export interface T { a: string; b: number; c?: 'X' | 'Y' }",
      "export interface T { a: string; b: number | null; c: 'X' | 'Y' }",
      "export interface T { a: string; b: number | null; c?: 'X' | 'Y'; d?: boolean }",
    ]) {
      expect(typed(drifted)).not.toBe(text(fromSchema(schema)));
    }
  });
});

// --- Real bodies, signed as the platform signs them ----------------------------------------

const at = new Date('2026-11-24T09:00:00.000Z');
const iso = at.toISOString();
/** The envelope every body carries (recordEvent writes it), of a test-mode invoicing event. */
const envelope = (kind: string) => ({ event: kind, timestamp: at.getTime(), livemode: false, id: '00000000-0000-4000-8000-0000000000e1', type: kind, createdAt: iso, source: 'invoicing' });
const v1Session = (status: string) => ({ id: '00000000-0000-4000-8000-000000000004', level: 'basic', status, metadata: { orderId: 'A-1' }, reason: status === 'completed' ? null : 'Document expired', updatedAt: iso });

/** [label, family, body]: every kind, as its document's example shows it, and KYC's v1 session shape (sent to a v1 session's own webhookUrl), which the examples do not show. */
const examples: [string, 'InvoicingWebhookEvent' | 'CryptoWebhookEvent', Json][] = [
  ...families.flatMap(({ name, examples }) => Object.entries(examples).map(([kind, body]) => [`${kind} (${name})`, name, body] as [string, typeof name, Json])),
  ['kyc.passed (v1 session)', 'InvoicingWebhookEvent', { ...envelope('kyc.passed'), session: v1Session('completed') }],
  ['kyc.rejected (v1 session)', 'InvoicingWebhookEvent', { ...envelope('kyc.rejected'), session: v1Session('failed') }],
  ['kyc.manual_review (v1 session)', 'InvoicingWebhookEvent', { ...envelope('kyc.manual_review'), session: v1Session('in_progress') }],
];

describe('verifyWebhook on a real body of every kind', () => {
  const read = Object.fromEntries(families.map((f) => [f.name, program.members(f.name)]));
  const secret = 'whsec_example';

  it('covers every kind of both families', () => {
    for (const { name, schemas } of families) {
      expect([...new Set(examples.filter(([, fam]) => fam === name).map(([, , body]) => body.event as string))].sort()).toEqual(Object.keys(schemas).sort());
    }
  });

  it.each(examples)('%s: valid against its schema, verified, returned unchanged with the typed properties', (_label, family, body) => {
    const schemas = families.find((f) => f.name === family)!.schemas;
    assertValid(schemas[body.event as string]!, body, { what: `${body.event as string} example` });
    const raw = JSON.stringify(body);
    const headers = webhookHeaders({ secret, deliveryId: 'd-1', event: body.event as string, timestamp: at.getTime(), body: raw });
    const { event } = verifyWebhook(Buffer.from(raw), headers, secret, { now: at.getTime() + 1000, acceptTestEvents: true });
    expect(event).toEqual(body);

    // What verifyWebhook returned has exactly its kind's TypeScript type: every required
    // property, no other, each value of the declared type (v1 or v2 session for KYC).
    const [shape] = read[family]!.get(event.event)!;
    expect(mismatch(event, shape!)).toBeNull();
    expect(mismatch({ ...event, surprise: 1 }, shape!)).toMatch(/surprise: not in the type/);
  });
});

// Compile-time: the typed fields a merchant reaches after narrowing (pnpm typecheck).
export function typedAccess(e: WebhookEvent, inv: InvoicingWebhookEvent, cry: CryptoWebhookEvent): unknown[] {
  const out: unknown[] = [];
  if (inv.event === 'invoice.refunded') out.push(inv.refund.amount.toFixed(2), inv.invoice.paidAt.length);
  if (inv.event === 'kyc.rejected' && 'sessionId' in inv.session) out.push(inv.session.status satisfies 'DECLINED');
  if (cry.event === 'withdrawal.failed') out.push(cry.withdrawal.failureReason?.trim(), cry.withdrawal.netAmount + 1);
  if (cry.event === 'transaction.confirmed') out.push(cry.transaction.blockNumber, cry.transaction.currency satisfies `${string}_${string}`);
  if (e.event === 'invoice.paid') out.push('network' in e.invoice ? e.invoice.amountReceived : e.invoice.invoiceNumber);
  // The two invoice.paid families, told apart by the discriminant every body carries.
  if (e.event === 'invoice.paid' && e.source === 'crypto') out.push(e.invoice.network, e.invoice.amountReceived);
  if (e.event === 'invoice.paid' && e.source === 'invoicing') out.push(e.invoice.invoiceNumber, e.id, e.createdAt);
  // @ts-expect-error a crypto invoice has no invoiceNumber
  if (e.event === 'invoice.paid' && e.source === 'crypto') out.push(e.invoice.invoiceNumber);
  const only: WebhookEventOf<'withdrawal.completed'>['withdrawal']['completedAt'] = null;
  // The named object types merchants import, derived from the generated event types.
  const paidAt: WebhookInvoice<'PAID'>['paidAt'] = iso;
  // @ts-expect-error a paid invoice's paidAt is never null
  const neverNull: WebhookInvoice<'PAID'>['paidAt'] = null;
  const pending: WebhookInvoice['paidAt'] = null;
  const v2: WebhookKycSession<'DECLINED'>['status'] = 'DECLINED';
  const v1: WebhookKycSessionV1<'failed'>['status'] = 'failed';
  const money: [CryptoCurrency, CryptoNetwork, WebhookRefund['status'], WebhookPaymentReview['status'], WebhookPaymentAttempt['acquirerStatus']] = ['USDT_TRC20', 'Tron', 'SUCCEEDED', 'OPEN', 'REJECTED'];
  return [...out, only, paidAt, neverNull, pending, v2, v1, money];
}
