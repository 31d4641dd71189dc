/**
 * The SDK's types as a merchant's TypeScript reads them (strict): the named resource types,
 * error codes that make a typo a type error (each `@ts-expect-error` below must meet an error,
 * or tsc reports it unused), and the JSDoc each method carries from the OpenAPI document's
 * summary and description. The packed build is type-checked the same way in example.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ts from 'typescript';

const INDEX = path.join(__dirname, 'index');
const DOCS = path.join(__dirname, '..', '..', '..', 'docs', 'openapi');

const PROGRAM = `import { PayApiError, PayClient, webhooks, type Balance, type Balances, type Customer, type ErrorOf, type Invoice, type KycSession, type Transaction, type Withdrawal } from ${JSON.stringify(INDEX)};

const pay = new PayClient({ apiKey: 'k', hmacSecret: 's', invoicingUrl: 'http://127.0.0.1:3001', cryptoUrl: 'http://127.0.0.1:3002' });

export async function refund(): Promise<string> {
  try {
    const { refund } = await pay.invoicing.v2.refunds.create({ path: { invoiceId: 'i' }, body: { amount: 1 } });
    return refund.id;
  } catch (err) {
    if (pay.invoicing.v2.refunds.create.isError(err)) {
      if (err.code === 'REFUND_EXCEEDS_PAID') return 'more than paid';
      if (err.code === 'TIMEOUT' || err.code === 'HTTP_502') return 'no answer of the API';
      // @ts-expect-error: a typo of REFUND_EXCEEDS_PAID
      if (err.code === 'REFUND_EXCEDS_PAID') return 'never';
      // @ts-expect-error: a withdrawal's code, which a refund never answers
      if (err.code === 'INSUFFICIENT_BALANCE') return 'never';
    }
    if (err instanceof PayApiError) {
      if (err.code === 'INSUFFICIENT_BALANCE') return 'a code of some operation';
      // @ts-expect-error: a typo is the code of no operation
      if (err.code === 'INSUFICIENT_BALANCE') return 'never';
    }
    throw err;
  }
}

export const withdrawalCode: ErrorOf<typeof pay.crypto.withdrawals.create>['code'] = 'WITHDRAWAL_LIMIT_EXCEEDED';
// @ts-expect-error: not a code createWithdrawal declares
export const notWithdrawalCode: ErrorOf<typeof pay.crypto.createWithdrawal>['code'] = 'REFUND_EXCEEDS_PAID';

export const invoice = async (): Promise<Invoice> => (await pay.invoicing.v2.invoices.retrieve({ path: { invoiceId: 'i' } })).invoice;
export const customers = (): Promise<Customer[]> => pay.invoicing.v2.customers.list.each({ query: { limit: 100 } }).toArray({ limit: 500 });
export const kyc = async (): Promise<KycSession> => (await pay.invoicing.v2.kycSessions.retrieve({ path: { sessionId: 's' } })).session;
export const withdrawal = async (): Promise<Withdrawal> => (await pay.crypto.withdrawals.retrieve({ path: { withdrawalId: 'w' } })).data;
export const withdrawals = pay.crypto.withdrawals.create;
export const withdraw = () => pay.crypto.createWithdrawal({ body: { toAddress: 'T', amount: 10, currency: 'USDT_TRC20' } });
export const transaction = async (): Promise<Transaction> => (await pay.crypto.transactions.retrieve({ path: { transactionId: 't' } })).data;
export const balance = async (): Promise<Balances> => (await pay.crypto.balance.retrieve()).data;
export const usdt = async (): Promise<Balance | undefined> => (await pay.crypto.balance.retrieve()).data.balances.find((b) => b.currency === 'USDT_TRC20');
export const status = (i: Invoice): string => i.status;
// @ts-expect-error: an invoicing Invoice has no network (a CryptoInvoice has)
export const network = (i: Invoice): string => i.network;
// @ts-expect-error: the namespaces hold operations only: no invoice resource under v2.refunds
export const misplaced = () => pay.invoicing.v2.refunds.retrieve;
// @ts-expect-error: a retrieve is no list: no each
export const notAList = () => pay.invoicing.v2.invoices.retrieve.each;
export const aliases: typeof pay.invoicing.createInvoice = pay.invoicing.v2.invoices.create;
export const headers: Record<'X-SVC-Signature' | 'X-SVC-Timestamp' | 'X-SVC-Delivery', string> = webhooks.generateTestHeader({ event: 'invoice.paid' }, 'whsec_x');
`;

let dir: string;
let program: ts.Program;
let file: ts.SourceFile;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'pay-client-types-'));
  writeFileSync(path.join(dir, 'merchant.ts'), PROGRAM);
  program = ts.createProgram([path.join(dir, 'merchant.ts')], { strict: true, noEmit: true, module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10, target: ts.ScriptTarget.ES2022, lib: ['lib.es2023.d.ts'], types: ['node'], typeRoots: [path.join(__dirname, '..', '..', '..', 'node_modules', '@types')] });
  file = program.getSourceFile(path.join(dir, 'merchant.ts'))!;
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('type-checks a merchant program, each typo of an error code, field or place failing where marked', () => {
  const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => `${d.file ? path.basename(d.file.fileName) : ''}:${d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : ''} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
  expect(diagnostics).toEqual([]);
  // Each expect-error is really met: dropping the markers gives one error per marker.
  const bare = PROGRAM.replace(/^\s*\/\/ @ts-expect-error.*\n/gm, '');
  writeFileSync(path.join(dir, 'bare.ts'), bare);
  const unmarked = ts.createProgram([path.join(dir, 'bare.ts')], program.getCompilerOptions());
  expect(ts.getPreEmitDiagnostics(unmarked)).toHaveLength(PROGRAM.match(/@ts-expect-error/g)!.length);
}, 60_000);

it("shows each method's OpenAPI summary and description as its JSDoc, in its namespace and under its operationId", () => {
  const checker = program.getTypeChecker();
  const docOf = (expression: string): string => {
    let found: ts.PropertyAccessExpression | undefined;
    const visit = (node: ts.Node) => {
      if (!found && ts.isPropertyAccessExpression(node) && node.getText(file) === expression) found = node;
      ts.forEachChild(node, visit);
    };
    visit(file);
    if (!found) throw new Error(`${expression} is not in the program`);
    return ts.displayPartsToString(checker.getSymbolAtLocation(found.name)!.getDocumentationComment(checker));
  };
  const invoicing = JSON.parse(readFileSync(path.join(DOCS, 'invoicing.json'), 'utf8'));
  const crypto = JSON.parse(readFileSync(path.join(DOCS, 'crypto.json'), 'utf8'));
  const refund = invoicing.paths['/api/v2/invoices/{invoiceId}/refunds'].post;
  const withdraw = crypto.paths['/api/v1/withdrawals'].post;
  for (const [expression, op, route] of [
    ['pay.invoicing.v2.refunds.create', refund, 'POST /api/v2/invoices/{invoiceId}/refunds'],
    ['pay.crypto.withdrawals.create', withdraw, 'POST /api/v1/withdrawals'],
    ['pay.crypto.createWithdrawal', withdraw, 'POST /api/v1/withdrawals'],
  ] as const) {
    const doc = docOf(expression);
    expect(doc.startsWith(`${op.summary}\n\n${op.description.trim()}`)).toBe(true);
    expect(doc).toContain(`\`${route}\``);
  }
});
