import fc from 'fast-check';
import request from 'supertest';
import type { Operation } from '@pay/http';
import { fund, signedRequest, startCryptoApp, type CryptoTestApp, testMerchant, type TestMerchant } from '../test/test-support';
import { generateAddress } from './chains/addresses';
import { CURRENCY_CODES } from './shared/currencies';

/**
 * Every operation, fed arbitrary and almost-valid input by a properly authenticated caller,
 * answers below 500; a refusal is in the error envelope, with a code that the operation's
 * OpenAPI entry documents for that status. Bad input must never reach a 5xx or an
 * undocumented answer.
 */
let ctx: CryptoTestApp;
let doc: { paths: Record<string, Record<string, { responses: Record<string, any> }>> };
let m: TestMerchant;
let invoiceId: string;
beforeAll(async () => {
  ctx = await startCryptoApp();
  doc = (await request(ctx.app).get('/openapi.json')).body;
  m = await testMerchant(ctx.app);
  await fund(ctx, m, 'USDT_TRC20', 50);
  invoiceId = (await request(ctx.app).post('/api/v1/invoices').set('X-Api-Key', m.apiKey).send({ amount: 5, currency: 'USDT_TRC20' })).body.data.id;
});
afterAll(async () => {
  await ctx.close();
});

const junk = fc.oneof(fc.jsonValue(), fc.string(), fc.constant(null), fc.double(), fc.integer());
const uuid = fc.uuid({ version: 4 });

/** Per field a client may send: values that pass, and near misses. Unknown fields get junk. */
function field(name: string): { valid: fc.Arbitrary<unknown>; invalid: fc.Arbitrary<unknown> } {
  const table: Record<string, { valid: fc.Arbitrary<unknown>; invalid: fc.Arbitrary<unknown> }> = {
    amount: { valid: fc.constantFrom(1, 2.5, 5, 10.000001, 100.1), invalid: fc.oneof(fc.constantFrom(0, -1, 0.0000001, 1e9, 1e21), fc.string()) },
    currency: { valid: fc.constantFrom(...CURRENCY_CODES), invalid: fc.constantFrom('usdt_trc20', 'BTC', '') },
    toAddress: {
      valid: fc.constantFrom('Tron', 'Ethereum', 'BSC').map((n) => generateAddress(n as 'Tron')),
      invalid: fc.constantFrom('T123', '0xabc', '0x5aaeb6053F3E94C9b9A09f33669435E7Ef1BeAed', ''),
    },
    fromAddress: { valid: fc.constant(generateAddress('Tron')), invalid: fc.string() },
    invoiceId: { valid: fc.oneof(fc.constant(invoiceId), uuid), invalid: fc.string() },
    txHash: { valid: fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 }), invalid: fc.string() },
    expiresInMinutes: { valid: fc.integer({ min: 1, max: 10_080 }), invalid: fc.oneof(fc.integer({ min: -5, max: 0 }), fc.double()) },
    description: { valid: fc.string({ maxLength: 100 }), invalid: fc.constantFrom('a\u0000b', 'x'.repeat(501)) },
    name: { valid: fc.string({ minLength: 1, maxLength: 50 }).filter((x) => x.trim() !== ''), invalid: fc.constantFrom('   ', '') },
    isTestKey: { valid: fc.boolean(), invalid: fc.constantFrom('true', 1) },
    webhookUrl: { valid: fc.webUrl({ validSchemes: ['https'] }), invalid: fc.constantFrom('http://127.0.0.1/x', 'ftp://x.test', 'https://user:pw@x.test') },
    email: { valid: fc.emailAddress(), invalid: fc.string() },
    companyName: { valid: fc.string({ minLength: 1, maxLength: 50 }).filter((x) => x.trim() !== ''), invalid: fc.constant('x'.repeat(201)) },
    address: { valid: fc.string({ minLength: 1, maxLength: 50 }).filter((x) => x.trim() !== ''), invalid: fc.constant('') },
    city: { valid: fc.constantFrom('Berlin', 'Almaty'), invalid: fc.constant('') },
    country: { valid: fc.constantFrom('DE', 'KZ'), invalid: fc.constant('') },
    page: { valid: fc.integer({ min: 1, max: 5 }), invalid: fc.oneof(fc.integer({ min: -2, max: 0 }), fc.constant('x')) },
    pageSize: { valid: fc.integer({ min: 1, max: 100 }), invalid: fc.oneof(fc.integer({ min: 101, max: 500 }), fc.constant('x')) },
    status: { valid: fc.constantFrom('Pending', 'Paid', 'Completed', 'Failed', 'Expired', 'Processing'), invalid: fc.string() },
  };
  return table[name] ?? { valid: junk, invalid: junk };
}

function propertiesOf(schema: unknown): string[] {
  return Object.keys((schema as { properties?: object } | undefined)?.properties ?? {});
}

/**
 * Objects over the schema's fields: mostly all valid (each optional field present or not),
 * often with one field made invalid or one unknown field added, now and then pure junk.
 */
function objectFor(schema: unknown): fc.Arbitrary<Record<string, unknown>> {
  const names = propertiesOf(schema);
  const valid = fc.record(Object.fromEntries(names.map((k) => [k, field(k).valid])), { requiredKeys: [] });
  const oneBad = names.length === 0 ? valid : fc.tuple(valid, fc.constantFrom(...names)).chain(([v, k]) => field(k).invalid.map((bad) => ({ ...v, [k]: bad })));
  const stranger = fc.tuple(valid, fc.string({ minLength: 1, maxLength: 8 }), junk).map(([v, k, x]) => ({ [k]: x, ...v }));
  return fc.oneof({ weight: 4, arbitrary: valid }, { weight: 3, arbitrary: oneBad }, { weight: 1, arbitrary: stranger }, { weight: 1, arbitrary: fc.dictionary(fc.string(), junk, { maxKeys: 3 }) });
}

function requestFor(op: Operation) {
  const params = fc.record(
    Object.fromEntries(propertiesOf(op.params).map((k) => [k, fc.oneof(uuid, fc.constant(invoiceId), fc.string({ minLength: 1, maxLength: 40 }))])),
  );
  const query = objectFor(op.query).map((q) => Object.fromEntries(Object.entries(q).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])));
  const body = op.body ? fc.oneof({ weight: 6, arbitrary: objectFor(op.body) }, { weight: 1, arbitrary: fc.jsonValue() }) : fc.constant(undefined);
  return fc.record({ params, query, body });
}

function documentedCodes(op: Operation, status: number): string[] {
  const path = op.path.replace(/:(\w+)/g, '{$1}');
  // Each error answer lists its codes (`x-error-codes`); its schema is the one ErrorResponse.
  return doc.paths[path]![op.method]!.responses[String(status)]?.['x-error-codes'] ?? [];
}

/** A new second for every signed request (inside the 300 s window), so none is a replay. */
let signed = 0;
const nextTimestamp = () => Date.now() - 280_000 + (signed++ % 560) * 1000;

describe('every operation, whatever it is sent', () => {
  it('answers below 500, and refuses only in the envelope with a documented code', async () => {
    for (const op of ctx.api.operations) {
      await fc.assert(
        fc.asyncProperty(requestFor(op), async ({ params, query, body }) => {
          const path = op.path.replace(/:(\w+)/g, (_m, name: string) => encodeURIComponent(String(params[name])));
          const qs = new URLSearchParams(query).toString();
          const url = qs ? `${path}?${qs}` : path;
          const res =
            op.auth === 'signed'
              ? await signedRequest(ctx.app, m, op.method as 'get' | 'post' | 'put' | 'delete', url, body, { now: nextTimestamp() })
              : await (() => {
                  let r = request(ctx.app)[op.method](url);
                  if (op.auth === 'key') r = r.set('X-Api-Key', m.apiKey);
                  return body === undefined ? r : r.set('Content-Type', 'application/json').send(JSON.stringify(body));
                })();
          const what = `${op.method.toUpperCase()} ${url} ${JSON.stringify(body)} → ${res.status} ${res.text.slice(0, 300)}`;
          if (res.status >= 500) throw new Error(`server error: ${what}`);
          if (res.status >= 400) {
            expect(res.body).toMatchObject({ success: false, error: { code: expect.any(String), message: expect.any(String) } });
            if (!documentedCodes(op, res.status).includes(res.body.error.code)) throw new Error(`undocumented ${res.body.error.code}: ${what}`);
          }
        }),
        { numRuns: 40, seed: 20261122 },
      );
    }
  }, 120_000);
});
