import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import request from 'supertest';
import type { Express } from 'express';
import type { TSchema } from '@sinclair/typebox';
import { signedHeaders, type SigningStyle } from '@pay/auth';
import { compile } from '@pay/schemas';
import { arbitraryOf } from './arbitrary';
import { HOSTILE_PATH_VALUES, HOSTILE_QUERY, HOSTILE_RAW_BODIES, hugeIntegerVariants, integerFields, mutated } from './hostile';
import { WriteSnapshot } from './snapshot';

/** What the fuzzer needs of an operation (`Api.operations` entries fit). */
export interface FuzzOperation {
  method: string;
  path: string;
  auth: string;
  body?: unknown;
  query?: unknown;
  params?: unknown;
  upload?: unknown;
}

export interface FuzzCaller {
  apiKey: string;
  hmacSecret: string;
}

export interface FuzzTarget {
  app: Express;
  operations: FuzzOperation[];
  /** How this API's signed operations sign. */
  signing: SigningStyle;
  caller: FuzzCaller;
  /** A real id of the caller's for a path parameter, so some cases reach the handler with an existing object. */
  realId?: (op: FuzzOperation, param: string) => string | undefined;
  snapshot: WriteSnapshot;
  runsPerOperation: number;
  seed?: number;
}

export interface FuzzReport {
  operations: number;
  cases: number;
  byStatus: Record<string, number>;
  /** Cases answered 5xx (each also fails the property). */
  serverErrors: number;
  /** Refused cases (4xx) after which the database had changed. */
  writesOnRefusal: number;
}

type Auth = 'valid' | 'missing' | 'wrong-key' | 'truncated-signature' | 'uppercase-signature' | 'other-timestamp' | 'replay';

interface Case {
  params: Record<string, string>;
  query: Record<string, unknown> | undefined;
  body: { raw: string; json: boolean } | undefined;
  auth: Auth;
}

const schemaProps = (s: unknown): Record<string, unknown> => ((s as { properties?: Record<string, unknown> } | undefined)?.properties ?? {});

const json = (v: unknown) => ({ raw: JSON.stringify(v) ?? 'null', json: true });

function caseOf(t: FuzzTarget, op: FuzzOperation): fc.Arbitrary<Case> {
  const params = fc.record(
    Object.fromEntries(
      Object.entries(schemaProps(op.params)).map(([name, schema]) => {
        const real = t.realId?.(op, name);
        const options: fc.Arbitrary<string>[] = [
          fc.constantFrom(...HOSTILE_PATH_VALUES),
          arbitraryOf(schema as object).map((v) => pct(String(v))),
        ];
        if (real) options.push(fc.constant(real), fc.constant(real));
        return [name, fc.oneof(...options)];
      }),
    ),
  );
  const validQuery = op.query ? (arbitraryOf(op.query as object) as fc.Arbitrary<Record<string, unknown>>) : fc.constant({});
  const query = fc.oneof(fc.constant(undefined), validQuery, validQuery.chain((q) => mutated(q)) as fc.Arbitrary<Record<string, unknown>>, fc.constantFrom(...HOSTILE_QUERY));
  const validBody = op.body ? arbitraryOf(op.body as object) : fc.constant({});
  const body = op.body
    ? fc.oneof(validBody.map(json), validBody.chain((v) => mutated(v)).map(json), validBody.chain((v) => mutated(v)).map(json), fc.constantFrom(...HOSTILE_RAW_BODIES).map((raw) => ({ raw, json: true })), fc.constant(undefined))
    : fc.oneof(fc.constant(undefined), fc.constant(undefined), fc.constant({ raw: '{"unexpected":true}', json: true }), fc.constant({ raw: 'x=1', json: false }));
  const auths: Auth[] = op.auth === 'signed' ? ['valid', 'valid', 'valid', 'missing', 'wrong-key', 'truncated-signature', 'uppercase-signature', 'other-timestamp', 'replay'] : op.auth === 'key' ? ['valid', 'valid', 'missing', 'wrong-key'] : ['valid'];
  return fc.record({ params, query, body, auth: fc.constantFrom(...auths) });
}

/**
 * Cases tried on every run rather than left to the random ones, which seldom combine the
 * field, the value and a valid signature: each integer field of the operation's query and
 * body at each huge integer (past 2^53, past bigint), and each hostile query whose parameters
 * the operation declares; signed validly, on the caller's own objects.
 */
function alwaysTriedCases(t: FuzzTarget, op: FuzzOperation): Case[] {
  const sample = (schema: unknown) => fc.sample(arbitraryOf(schema as object), { numRuns: 1, seed: 1 })[0];
  const params = Object.fromEntries(Object.entries(schemaProps(op.params)).map(([name, schema]) => [name, t.realId?.(op, name) ?? pct(String(sample(schema)))]));
  const validBody = () => ({ raw: validBodyOf(op)!, json: true });
  const validQuery = (op.query ? sample(op.query) : {}) as Record<string, unknown>;
  const declared = schemaProps(op.query) as Record<string, { default?: unknown }>;
  // A hostile query goes with the parameters a request cannot leave out only, so nothing else refuses it first.
  const needed = ((op.query as { required?: string[] } | undefined)?.required ?? []).filter((k) => declared[k]?.default === undefined);
  const queries = [
    ...hugeIntegerVariants(validQuery, op.query, 'text'),
    ...HOSTILE_QUERY.filter((q) => Object.keys(q).length > 0 && Object.keys(q).every((k) => Object.hasOwn(declared, k))).map((q) => ({
      ...Object.fromEntries(needed.map((k) => [k, validQuery[k]])),
      ...q,
    })),
  ];
  const bodies = integerFields(op.body).length > 0 ? hugeIntegerVariants(JSON.parse(validBody().raw), op.body, 'number') : [];
  return [
    ...queries.map((query) => ({ params, query, body: op.body ? validBody() : undefined, auth: 'valid' as const })),
    ...bodies.map((b) => ({ params, query: undefined, body: json(b), auth: 'valid' as const })),
  ];
}

/** Percent-encodes any string, lone surrogates included (as the bytes of U+FFFD, as a browser would send them). */
function pct(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('');
  }
}

function queryString(q: unknown): string {
  if (q === undefined) return '';
  if (q === null || typeof q !== 'object') return `?q=${pct(String(q))}`;
  const parts = Object.entries(q).map(([k, v]) => `${pct(k)}=${pct(typeof v === 'string' ? v : JSON.stringify(v) ?? '')}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

let clockMs = 0;
/** Every signed case gets its own millisecond, so only the deliberate replays repeat a signature. */
const nextNow = () => (clockMs = Math.max(Date.now(), clockMs + 1));

async function send(t: Pick<FuzzTarget, 'app' | 'caller' | 'signing'>, op: FuzzOperation, c: Case, signAt?: number): Promise<request.Response> {
  const path = op.path.replace(/:(\w+)/g, (_, name: string) => c.params[name] ?? 'x');
  const method = op.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
  let req = request(t.app)[method](path + queryString(c.query));
  const raw = c.body?.raw ?? '';
  if (op.auth === 'key' || op.auth === 'signed') {
    if (c.auth !== 'missing') req = req.set('X-Api-Key', c.auth === 'wrong-key' ? `${t.caller.apiKey.slice(0, -4)}zzzz` : t.caller.apiKey);
  }
  if (op.auth === 'signed' && c.auth !== 'missing') {
    const now = signAt ?? nextNow();
    const headers = signedHeaders(t.signing, t.caller.hmacSecret, { method: op.method.toUpperCase(), path, body: raw, now: c.auth === 'other-timestamp' ? now - 1000 : now });
    const [tsHeader, sigHeader] = Object.keys(headers) as [string, string];
    let signature = headers[sigHeader]!;
    if (c.auth === 'truncated-signature') signature = signature.slice(0, signature.length - 6);
    if (c.auth === 'uppercase-signature') signature = signature.toUpperCase() === signature ? signature.toLowerCase() : signature.toUpperCase();
    req = req.set(sigHeader, signature).set(tsHeader, c.auth === 'other-timestamp' ? String(now) : headers[tsHeader]!);
  }
  if (c.body) req = req.set('Content-Type', c.body.json ? 'application/json' : 'application/x-www-form-urlencoded').send(raw);
  return req;
}

/**
 * Property-based fuzzing of every operation: valid-looking input made from its JSON Schemas,
 * then mutated (wrong types, huge and odd strings, NaN/Infinity, negative and zero numbers,
 * deep nesting, prototype-pollution keys), hostile path and query values, and signature abuse
 * (missing, wrong key, truncated, wrong case, another timestamp, replay). Every case must be
 * answered below 500, a refusal must carry the API's error shape, and a refused case must
 * leave the database as it was.
 */
export async function fuzzOperations(t: FuzzTarget): Promise<FuzzReport> {
  const report: FuzzReport = { operations: 0, cases: 0, byStatus: {}, serverErrors: 0, writesOnRefusal: 0 };
  const count = (status: number) => {
    report.cases++;
    const k = `${Math.floor(status / 100)}xx`;
    report.byStatus[k] = (report.byStatus[k] ?? 0) + 1;
    if (status >= 500) report.serverErrors++;
  };
  for (const op of t.operations) {
    if (op.auth === 'session' || op.upload) continue; // the console's session API and uploads have their own suites
    report.operations++;
    const check = async (c: Case) => {
      const before = await t.snapshot.take();
      const signAt = nextNow();
      const res = await send(t, op, c, signAt);
      count(res.status);
      const where = `${op.method.toUpperCase()} ${op.path}`;
      if (res.status >= 500 || res.status < 200) throw new Error(`${where} answered ${res.status}: ${res.text.slice(0, 500)}`);
      if (res.status >= 400) {
        // 431: Node's HTTP parser refuses a request line and headers over 16 KB before any app code runs.
        if (res.status !== 431 && typeof res.body?.error?.code !== 'string') throw new Error(`${where} refused with ${res.status} without the error shape: ${res.text.slice(0, 300)}`);
        const changed = WriteSnapshot.changed(before, await t.snapshot.take());
        if (changed.length) {
          report.writesOnRefusal++;
          throw new Error(`${where} answered ${res.status} (${res.body.error.code}) but wrote to ${changed.join(', ')}`);
        }
      }
      if (c.auth === 'replay' && res.status < 300) {
        const again = await send(t, op, c, signAt);
        count(again.status);
        if (again.status !== 401) throw new Error(`${where}: a replayed signature was answered ${again.status}`);
      }
    };
    await fc.assert(fc.asyncProperty(caseOf(t, op), check), { numRuns: t.runsPerOperation, seed: t.seed, endOnFailure: true });
    for (const c of alwaysTriedCases(t, op)) await check(c);
  }
  return report;
}

/** An operation of the OpenAPI document: what sendDocumentedExamples reads of it. */
interface DocumentedOperation {
  parameters?: { name: string; in: string; example?: unknown }[];
  requestBody?: { content: Record<string, { example?: unknown }> };
}

/**
 * Sends each operation's documented example request (its JSON body and query examples from
 * the OpenAPI document `document`), as the caller, with the caller's real ids in the path
 * (`realId`, else the document's example): the request a merchant copies from /docs. Returns
 * the operations the service refused as invalid (400) or failed (5xx), with its answer: a
 * document whose example the service refuses teaches the wrong request. Other refusals (a
 * 422 for an invoice in the wrong state, a 404 for an object an earlier example deleted) are
 * the business rules at work, not the example's fault.
 */
export async function sendDocumentedExamples(
  t: Pick<FuzzTarget, 'app' | 'operations' | 'signing' | 'caller' | 'realId'> & {
    document: { paths: Record<string, Record<string, DocumentedOperation>> };
    /**
     * Body fields whose valid values move with the clock (a v1 `expiresAt` at most 30 days
     * ahead, a replay's `since` within the last 30 days): the document's fixed example date
     * ages out of them, so each is sent as the value given here, taken now.
     */
    relativeTimes?: Record<string, () => string>;
  },
): Promise<{ sent: number; refused: string[] }> {
  const out = { sent: 0, refused: [] as string[] };
  for (const op of t.operations) {
    if (op.auth === 'session' || op.upload) continue;
    const documented = t.document.paths[op.path.replace(/:(\w+)/g, '{$1}')]?.[op.method.toLowerCase()];
    if (!documented) throw new Error(`${op.method.toUpperCase()} ${op.path} is not in the document`);
    const params: Record<string, string> = {};
    const query: Record<string, unknown> = {};
    for (const p of documented.parameters ?? []) {
      if (p.in === 'path') params[p.name] = t.realId?.(op, p.name) ?? String(p.example);
      if (p.in === 'query' && p.example !== undefined) query[p.name] = p.example;
    }
    let example = documented.requestBody?.content['application/json']?.example;
    if (example && typeof example === 'object' && !Array.isArray(example)) {
      const fields = example as Record<string, unknown>;
      const moved = Object.entries(t.relativeTimes ?? {}).filter(([field]) => field in fields);
      if (moved.length) example = { ...fields, ...Object.fromEntries(moved.map(([field, now]) => [field, now()])) };
    }
    const c: Case = { params, query: Object.keys(query).length ? query : undefined, body: example === undefined ? undefined : json(example), auth: 'valid' };
    const res = await send(t, op, c);
    out.sent++;
    if (res.status === 400 || res.status >= 500) out.refused.push(`${op.method.toUpperCase()} ${op.path}: ${res.status} ${res.text.slice(0, 300)}`);
  }
  return out;
}

/** A body the operation's own schema accepts, drawn from its generator (fixed seed, so the same every run). */
export function validBodyOf(op: FuzzOperation): string | undefined {
  if (!op.body) return undefined;
  const validate = compile(op.body as TSchema);
  for (const [i, v] of fc.sample(arbitraryOf(op.body as object), { numRuns: 200, seed: 7 }).entries()) {
    if (validate(v)) return JSON.stringify(v);
    if (i === 199) break;
  }
  throw new Error(`${op.method.toUpperCase()} ${op.path}: no generated body passes its own schema`);
}

export interface CrossOwnerTarget {
  app: Express;
  operations: FuzzOperation[];
  signing: SigningStyle;
  /** Ids of the owner's objects by path parameter name; an id-taking operation without one fails the check. */
  ownerIds: Record<string, string>;
  /**
   * Callers that must never reach the owner's objects: another merchant, the owner in the
   * other mode. `except` names parameters whose objects this caller may reach (a merchant's
   * API keys belong to the merchant, not to a mode).
   */
  strangers: { name: string; caller: FuzzCaller; except?: string[] }[];
  snapshot: WriteSnapshot;
}

/**
 * OWASP API1 (broken object level authorization) on every id-taking operation: with the
 * owner's ids in the path and a valid body, each stranger gets 404, or exactly the answer it
 * gets for an id that does not exist (a refusal that does not depend on the object, such as
 * a live key on a sandbox route), and nothing is written. Returns the number of calls made.
 */
export async function checkCrossOwner(t: CrossOwnerTarget): Promise<number> {
  let calls = 0;
  for (const op of t.operations) {
    const names = Object.keys(schemaProps(op.params));
    if (names.length === 0 || op.auth === 'none' || op.auth === 'session' || op.upload) continue;
    const missing = names.filter((n) => !t.ownerIds[n]);
    if (missing.length) throw new Error(`${op.method.toUpperCase()} ${op.path}: no owned object for ${missing.join(', ')}; add one to the cross-owner fixtures`);
    const body = validBodyOf(op);
    for (const s of t.strangers) {
      if (names.some((n) => s.except?.includes(n))) continue;
      const before = await t.snapshot.take();
      const c: Case = { params: t.ownerIds, query: undefined, body: body === undefined ? undefined : { raw: body, json: true }, auth: 'valid' };
      const as = { app: t.app, operations: [], signing: t.signing, caller: s.caller, snapshot: t.snapshot, runsPerOperation: 0 };
      const res = await send(as, op, c);
      calls++;
      const where = `${op.method.toUpperCase()} ${op.path} as ${s.name}`;
      if (res.status !== 404) {
        const unknown = await send(as, op, { ...c, params: Object.fromEntries(names.map((n) => [n, randomUUID()])) });
        calls++;
        const same = unknown.status === res.status && unknown.body?.error?.code === res.body?.error?.code && res.status >= 400;
        if (!same) throw new Error(`${where} answered ${res.status}, not 404 nor what an unknown id gets (${unknown.status}): ${res.text.slice(0, 300)}`);
      }
      const changed = WriteSnapshot.changed(before, await t.snapshot.take());
      if (changed.length) throw new Error(`${where} wrote to ${changed.join(', ')}`);
    }
  }
  return calls;
}
