import { Type } from '@sinclair/typebox';
import { merchantBrand } from '@pay/accounts';
import { type Api } from '@pay/http';
import { money, type Money } from '@pay/money';
import { ApiError, StringEnum, Uuid } from '@pay/schemas';
import type { PayPageDeps } from '../../deps';
import { assertPayable, payInvoice } from '../../modules/invoices/payment';
import { invoiceForPayPage, type InvoiceWithCustomer } from '../../modules/invoices/invoices';
import { readCard, type CardProblem } from '../../payments/card';
import type { PaymentProvider } from '../../payments/provider';
import { sandboxSbpTransactionId } from '../../payments/sandbox';
import { PAGE_STATES, paymentPageModel, successRedirectOf } from './presenter';
import { paymentNoticesOf } from './notices';
import { TBankProvider, asApiError } from '../../payments/tbank/provider';
import { requestLanguage } from '../../languages';
import type { Request } from 'express';
import { receiptFileSpec } from '../../modules/receipts/routes';
import { latestReceiptOf, uploadReceipt } from '../../modules/receipts/receipts';
import { cardProblemOf, formProblemOf, paymentPage, sandboxBankPage, type FormProblem } from './view';
import { PAY_TEXTS } from './i18n';

const Params = Type.Object({ invoiceId: Uuid });

/** The typed card's problems, with their codes: the page words them for the payer. */
class CardRefused extends ApiError {
  constructor(readonly problems: CardProblem[]) {
    super('VALIDATION_ERROR', 'Check the card details', problems);
  }
}
/** A refusal after the card was charged and the charge given back: the page says no money was taken. */
class ChargeCancelled extends ApiError {}
/** Card fields as text: the checks (Luhn, expiry) are the handler's, so a refusal re-renders the form. */
const CardForm = Type.Object(
  {
    number: Type.String({ maxLength: 40 }),
    expiry: Type.String({ maxLength: 10 }),
    cvc: Type.String({ maxLength: 10 }),
  },
  { additionalProperties: false },
);
export const SANDBOX_BANKS = ['Sandbox Bank', 'Sber (sandbox)', 'T-Bank (sandbox)', 'Alfa-Bank (sandbox)', 'VTB (sandbox)'] as const;
const SbpForm = Type.Object({ payerBank: StringEnum(SANDBOX_BANKS) }, { additionalProperties: false });

/**
 * The hosted payment page (`paymentLink` = /pay/{id}) and the sandbox provider's own pages:
 * the card form (`originalPaymentUrl` = /pay/{id}/card) and the "bank app" the SBP QR opens
 * (`qrPayload` = /pay/{id}/sbp). Public: the invoice id in the link is the capability.
 * A card number lives in this request only: never stored, never logged (request logs carry
 * method, path and status), never written back into the page.
 */
export function paymentPageRoutes(pages: Api, deps: PayPageDeps): void {
  const load = async (id: string): Promise<InvoiceWithCustomer> => {
    const invoice = await invoiceForPayPage(deps, id);
    if (!invoice) throw new ApiError('NOT_FOUND', 'This payment link does not lead to an invoice');
    return invoice;
  };
  /** The invoice and its merchant's brand (who is asking for the money); the brand's read needs the invoice's merchant. */
  const loadBranded = async (id: string) => {
    const invoice = await load(id);
    return { invoice, brand: await merchantBrand(deps.db, invoice.merchant_id) };
  };
  const model = async (id: string, req: Request) => {
    const [{ invoice, brand }, receipt, notices] = await Promise.all([loadBranded(id), latestReceiptOf(deps, id), paymentNoticesOf(deps.db, id)]);
    return paymentPageModel(invoice, deps.clock.now(), receipt, requestLanguage(req), notices, brand);
  };
  /** A refusal the payer can act on: the page again, with the reason in the payer's language, and the refusal's status. */
  const refused = async (id: string, req: Request, err: unknown, render: (m: ReturnType<typeof paymentPageModel>, p: FormProblem) => ReturnType<typeof paymentPage>) => {
    if (!(err instanceof ApiError) || err.code === 'NOT_FOUND') throw err;
    const m = await model(id, req);
    const problem = err instanceof CardRefused ? cardProblemOf(PAY_TEXTS[m.language], err.problems) : formProblemOf(PAY_TEXTS[m.language], err, req.method, err instanceof ChargeCancelled);
    return { status: err.status, html: render(m, problem) };
  };
  /** Back to the page after a post, in the language the payer chose. */
  const backTo = (id: string, req: Request) => `/pay/${id}${requestLanguage(req).langQuery}`;

  for (const path of ['/pay/:invoiceId', '/pay/:invoiceId/card']) {
    pages.page({
      method: 'get',
      path,
      summary: path.endsWith('card') ? 'The sandbox provider’s card form (originalPaymentUrl)' : 'Hosted payment page (paymentLink)',
      auth: 'none',
      params: Params,
      handler: async ({ params, req }) => {
        const [{ invoice, brand }, receipt, notices] = await Promise.all([
          loadBranded(params.invoiceId),
          latestReceiptOf(deps, params.invoiceId),
          paymentNoticesOf(deps.db, params.invoiceId),
        ]);
        // A paid invoice with a successUrl sends the payer on at once (after paying here, or when the poll sees it paid).
        const success = successRedirectOf(invoice);
        return success ? { redirect: success } : { html: paymentPage(paymentPageModel(invoice, deps.clock.now(), receipt, requestLanguage(req), notices, brand)) };
      },
    });
  }

  pages.page({
    method: 'post',
    path: '/pay/:invoiceId/card',
    summary: 'Pay by card (sandbox provider)',
    auth: 'none',
    params: Params,
    form: CardForm,
    handler: async ({ params, form, req }) => {
      const id = params.invoiceId;
      try {
        const read = readCard(form, deps.clock.now());
        if ('problems' in read) throw new CardRefused(read.problems);
        const invoice = await load(id);
        if (invoice.payment_method !== 'card') throw new ApiError('INVALID_STATE', 'This invoice is paid by SBP: scan its QR code instead');
        const provider = invoice.is_test ? deps.providers.test : deps.providers.live;
        if (!provider) throw new ApiError('PAYMENT_METHOD_NOT_ENABLED', 'Card payments are not available for this invoice');
        if (provider.cardEntry !== 'hosted-page') throw new ApiError('INVALID_STATE', 'This invoice is paid on the bank’s card form: use the “Pay by card” link');
        // No money is taken for an invoice that would refuse the payment (paid, expired or
        // cancelled, the customer blocked, KYC not done): checked before the provider charges.
        await assertPayable(deps, id);
        const order = { externalOrderId: invoice.external_order_id, amount: money(invoice.amount) };
        const charge = await provider.chargeCard(order, read.card);
        if (!charge.ok) throw new ApiError('CARD_DECLINED', charge.reason);
        try {
          const paid = await payInvoice(deps, { id }, charge.payment);
          return { redirect: successRedirectOf(paid) ?? backTo(id, req) };
        } catch (err) {
          // The invoice changed between the check and the write (paid by another request,
          // cancelled, expired, the customer blocked): the charge must not stand.
          throw await voidUnrecordedCharge(provider, { ...order, chargeId: charge.chargeId }, id, err);
        }
      } catch (err) {
        return refused(id, req, err, paymentPage);
      }
    },
  });

  /**
   * After a charge whose payment could not be written: gives the charge back and returns the
   * error to show. A refusal (ApiError) is thrown before payInvoice writes anything, so the
   * invoice surely did not take this charge. Any other failure (the database lost mid-write)
   * may have come after the commit: the charge is voided only if the invoice is not PAID now;
   * when that cannot be told, it is logged for reconciliation with the acquirer.
   */
  const voidUnrecordedCharge = async (
    provider: PaymentProvider,
    charge: { chargeId: string; externalOrderId: string; amount: Money },
    id: string,
    err: unknown,
  ): Promise<unknown> => {
    const ids = { invoiceId: id, chargeId: charge.chargeId, provider: provider.name };
    if (!(err instanceof ApiError)) {
      const now = await invoiceForPayPage(deps, id).catch(() => null);
      if (!now || now.status === 'PAID') {
        deps.logger.error({ ...ids, err: { message: (err as Error).message } }, 'card charged but its payment write failed and the invoice state is unknown or PAID; charge not voided: reconcile');
        return err;
      }
    }
    const voided = await provider.voidCharge(charge).catch((e: unknown) => ({ ok: false as const, reason: (e as Error).message }));
    if (!voided.ok) {
      deps.logger.error({ ...ids, reason: voided.reason }, 'card charged for an invoice that did not take the payment, and the void failed: reconcile');
      return err;
    }
    deps.logger.warn({ ...ids, refusal: err instanceof ApiError ? err.code : 'error' }, 'card charge voided: the invoice changed before the payment was written');
    return err instanceof ApiError ? new ChargeCancelled(err.code, `${err.message}. The card charge was cancelled: no money was taken.`, err.details) : err;
  };

  pages.page({
    method: 'get',
    path: '/pay/:invoiceId/sbp',
    summary: 'The sandbox bank app the SBP QR opens (qrPayload)',
    auth: 'none',
    params: Params,
    handler: async ({ params, req }) => ({ html: sandboxBankPage(await model(params.invoiceId, req), SANDBOX_BANKS) }),
  });

  pages.page({
    method: 'post',
    path: '/pay/:invoiceId/sbp',
    summary: 'Confirm an SBP transfer in the sandbox bank app',
    auth: 'none',
    params: Params,
    form: SbpForm,
    handler: async ({ params, form, req }) => {
      const id = params.invoiceId;
      try {
        const invoice = await load(id);
        if (!invoice.is_test || invoice.provider !== 'sandbox') throw new ApiError('PAYMENT_METHOD_NOT_ENABLED', 'The sandbox bank pays the sandbox’s test invoices only');
        if (invoice.payment_method !== 'sbp') throw new ApiError('INVALID_STATE', 'This invoice is paid by card, not by SBP');
        const paid = await payInvoice(deps, { id }, { method: 'sbp', payerBank: form.payerBank, sbpTransactionId: sandboxSbpTransactionId() });
        return { redirect: successRedirectOf(paid) ?? backTo(id, req) };
      } catch (err) {
        return refused(id, req, err, (m, p) => sandboxBankPage(m, SANDBOX_BANKS, p));
      }
    },
  });

  pages.page({
    method: 'post',
    path: '/pay/:invoiceId/retry',
    summary: 'Try again after a declined payment: a fresh acquirer payment (new QR or card form)',
    auth: 'none',
    params: Params,
    handler: async ({ params, req }) => {
      const id = params.invoiceId;
      try {
        const invoice = await load(id);
        const provider = invoice.is_test ? deps.providers.test : deps.providers.live;
        if (provider instanceof TBankProvider) await provider.openNextAttempt(deps.db, id).catch((err: unknown) => Promise.reject(asApiError(err)));
        return { redirect: backTo(id, req) };
      } catch (err) {
        return refused(id, req, err, paymentPage);
      }
    },
  });

  pages.page({
    method: 'post',
    path: '/pay/:invoiceId/receipt',
    summary: 'Upload a payment receipt (receiptRequired invoices)',
    auth: 'none',
    params: Params,
    upload: { files: { file: receiptFileSpec(deps.config.RECEIPT_MAX_BYTES) } },
    handler: async ({ params, files, req }) => {
      const id = params.invoiceId;
      try {
        await uploadReceipt(deps, { invoiceId: id, source: 'page' }, files.file!);
        return { redirect: backTo(id, req) };
      } catch (err) {
        return refused(id, req, err, paymentPage);
      }
    },
  });

  pages.route({
    method: 'get',
    path: '/pay/:invoiceId/status',
    operationId: 'payPageStatus',
    summary: 'The state the hosted page polls for',
    auth: 'none',
    params: Params,
    response: {
      status: 200,
      schema: Type.Object(
        { status: StringEnum(PAGE_STATES), receipt: StringEnum(['none', 'pending', 'approved', 'rejected'] as const) },
        { additionalProperties: false },
      ),
    },
    errors: ['NOT_FOUND'],
    handler: async ({ params, req }) => {
      const m = await model(params.invoiceId, req);
      return { body: { status: m.state, receipt: m.receipt?.state ?? 'none' } };
    },
  });
}
