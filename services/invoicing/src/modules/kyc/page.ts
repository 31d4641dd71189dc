import { Type } from '@sinclair/typebox';
import type { Api } from '@pay/http';
import { merchantBrand } from '@pay/accounts';
import { ApiError, StringEnum, Uuid } from '@pay/schemas';
import type { KycDeps } from '../../deps';
import { kycPage, kycPageStateOf, kycProblemOf, type KycPageState } from './page-view';
import { requestLanguage } from '../../languages';
import { KYC_TEXTS } from './i18n';
import type { Language } from './schemas';
import type { KycSession } from './store';
import { kycSessionByPageId, verificationForInvoice } from './sessions';
import { KYC_UPLOAD, KycDocumentForm, submitKycDocuments } from './submission';

const Params = Type.Object({ sessionId: Type.String({ pattern: '^kyc_[A-Za-z0-9_-]{24}$' }) });
const PAGE_STATES: readonly KycPageState[] = ['form', 'checking', 'review', 'retry', 'approved', 'declined', 'expired'];
/**
 * `retry=1`: the customer chose "Try again" after a declined attempt (the form instead of the
 * reason alone). Other parameters are let through: links get tracking parameters appended.
 */
const PageQuery = Type.Object({ retry: Type.Optional(Type.String({ maxLength: 8 })), lang: Type.Optional(Type.String({ maxLength: 8 })) });
/**
 * The page's language: the switch's `?lang=`, else the language the merchant named on the
 * session, else the customer's browser (Accept-Language), else the session's default (`ru`).
 */
const languageOf = (req: Parameters<typeof requestLanguage>[0], s: KycSession) =>
  requestLanguage(req, { preferred: (s.chosenLanguage ?? undefined) as Language | undefined, fallback: s.language as Language });

/**
 * The hosted verification page (`verificationUrl` = /kyc/{sessionId}): public, the random
 * session id in the link is the capability. The customer sends the document photo, a selfie
 * (and a proof of address at the advanced level) with the document data in one multipart
 * form; files are limited in size and typed by their bytes. The page then waits for the
 * check (kyc.js polls the state) and sends the customer back to the merchant; after a declined
 * attempt with attempts left it shows the reason and lets the customer try again.
 */
export function kycPageRoutes(pages: Api, deps: KycDeps): void {
  /** The session and its merchant's brand: the page says who asks for the documents. */
  const branded = async (sessionId: string) => {
    const s = await kycSessionByPageId(deps, sessionId);
    return { s, brand: await merchantBrand(deps.db, s.merchantId) };
  };
  pages.page({
    method: 'get',
    path: '/kyc/:sessionId',
    summary: 'Hosted KYC verification page (verificationUrl)',
    auth: 'none',
    params: Params,
    query: PageQuery,
    handler: async ({ params, query, req }) => {
      const { s, brand } = await branded(params.sessionId);
      return { html: kycPage(s, brand, deps.clock.now(), languageOf(req, s), { retry: query.retry === '1' }) };
    },
  });

  pages.page({
    method: 'post',
    path: '/kyc/:sessionId',
    summary: 'Send the documents of a KYC session',
    auth: 'none',
    params: Params,
    upload: KYC_UPLOAD,
    form: KycDocumentForm,
    handler: async ({ params, form, files, req }) => {
      try {
        await submitKycDocuments(deps, params.sessionId, form, files);
        return { redirect: `/kyc/${params.sessionId}${requestLanguage(req).langQuery}` };
      } catch (err) {
        if (!(err instanceof ApiError) || err.code === 'NOT_FOUND') throw err;
        // The form again with what was typed (files are chosen again), the reason in the customer's words, and the refusal's status.
        const { s, brand } = await branded(params.sessionId);
        const language = languageOf(req, s);
        const now = deps.clock.now();
        return { status: err.status, html: kycPage(s, brand, now, language, { problem: kycProblemOf(KYC_TEXTS[language.language], err, s, now), values: form }) };
      }
    },
  });

  pages.page({
    method: 'post',
    path: '/pay/:invoiceId/kyc',
    summary: 'From the payment page of a kycRequired invoice to its verification page',
    auth: 'none',
    params: Type.Object({ invoiceId: Uuid }),
    form: Type.Object({}, { additionalProperties: false }),
    handler: async ({ params, req }) => {
      // The session (a new one) speaks the payment page's language, and the switch's choice is kept.
      const { language, langQuery } = requestLanguage(req);
      const s = await verificationForInvoice(deps, params.invoiceId, language);
      return { redirect: s ? `/kyc/${s.sessionId}${langQuery}` : `/pay/${params.invoiceId}${langQuery}` };
    },
  });

  pages.route({
    method: 'get',
    path: '/kyc/:sessionId/state',
    operationId: 'kycPageState',
    summary: 'The state the verification page polls for',
    auth: 'none',
    params: Params,
    response: { status: 200, schema: Type.Object({ state: StringEnum(PAGE_STATES) }, { additionalProperties: false }) },
    errors: ['NOT_FOUND'],
    handler: async ({ params }) => ({ body: { state: kycPageStateOf(await kycSessionByPageId(deps, params.sessionId), deps.clock.now()) } }),
  });
}
