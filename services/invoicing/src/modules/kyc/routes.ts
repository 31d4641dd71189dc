import { Type } from '@sinclair/typebox';
import { ownerOf } from '@pay/auth';
import { paginationOf, type Api } from '@pay/http';
import { ApiError, OffsetPage } from '@pay/schemas';
import type { KycDeps } from '../../deps';
import {
  CreatedKycSession,
  CreateKycSessionBody,
  CreateKycSessionV1Body,
  KYC_LIFECYCLE,
  KycSessionDetail,
  KycSessionListItem,
  KycSessionParams,
  KycSessionV1,
  KycSessionV1Params,
  ListKycSessionsQuery,
  SCORES_DOC,
} from './schemas';
import { createKycSession, getKycSession, listKycSessions } from './sessions';
import { createdKycSessionJson, kycSessionJson, kycSessionListItemJson, kycSessionV1Json } from './views';

const tags = ['KYC'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const EVENTS_DOC =
  'Events: `kyc.passed`, `kyc.rejected`, `kyc.manual_review`, each `{ event, timestamp, session: { id, sessionId, status, invoiceId, customerId, ' +
  'customerEmail, customerPhone, reason, updatedAt } }`, sent to the console webhooks subscribed to them.';

/** `/api/v2/kyc/sessions`: signed, `success` envelope. */
export function kycV2Routes(api: Api, deps: KycDeps): void {
  const url = deps.config.PUBLIC_URL;

  api.route({
    method: 'post',
    path: '/api/v2/kyc/sessions',
    operationId: 'createKycSession',
    summary: 'Create a KYC session',
    description:
      'Every field is optional. Send the customer to `verificationUrl`: in `language` they photograph an identity document and take a ' +
      'selfie (camera capture on phones) and type the document data; the result arrives as a webhook event or by reading the session. ' +
      '`invoiceId` must be an invoice of the caller in the key’s mode (404 otherwise); the session then takes the invoice’s customerEmail ' +
      'and customerPhone unless given. `expiresAt` is 24 hours after creation. ' +
      KYC_LIFECYCLE +
      ' ' +
      SCORES_DOC +
      ' ' +
      EVENTS_DOC,
    tags,
    auth: 'signed',
    idempotent: true,
    body: CreateKycSessionBody,
    response: { status: 201, schema: Type.Object({ session: CreatedKycSession }) },
    errors: ['NOT_FOUND'],
    handler: async ({ auth, body }) => {
      const s = await createKycSession(deps, ownerOf(auth), {
        api: 'v2',
        level: 'basic',
        language: body.language,
        invoiceId: body.invoiceId,
        customerEmail: body.customerEmail,
        customerPhone: body.customerPhone,
        customerRef: body.customerId,
        returnUrl: body.callbackUrl,
        maxAttempts: body.maxAttempts,
      });
      return { status: 201, body: { session: createdKycSessionJson(s, url) } };
    },
  });

  api.route({
    method: 'get',
    path: '/api/v2/kyc/sessions',
    operationId: 'listKycSessions',
    summary: 'List KYC sessions',
    description:
      'Newest first; `limit` default 50, at most 100; filters `status` and `invoiceId`. Items omit `verificationUrl` and `expiresAt`; ' +
      '`verification` (null unless APPROVED) has firstName, lastName, fullName, dateOfBirth, documentType, documentCountry, faceMatchScore, ' +
      'livenessScore (the selfie’s image quality) and verifiedAt.',
    tags,
    auth: 'signed',
    query: ListKycSessionsQuery,
    response: { status: 200, schema: OffsetPage(KycSessionListItem) },
    handler: async ({ auth, query }) => {
      const { rows, total } = await listKycSessions(deps, ownerOf(auth), query);
      return { body: { data: rows.map(kycSessionListItemJson), pagination: paginationOf(total, query) } };
    },
  });

  api.route({
    method: 'get',
    path: '/api/v2/kyc/sessions/:sessionId',
    operationId: 'getKycSession',
    summary: 'Get a KYC session',
    description:
      'Every field. `verification` (null unless APPROVED) adds middleName, documentNumber (masked: all but the last 4 characters are `*`), ' +
      'documentIssuedAt and documentExpiresAt to the list’s fields. ' +
      SCORES_DOC,
    tags,
    auth: 'signed',
    params: KycSessionParams,
    response: { status: 200, schema: Type.Object({ session: KycSessionDetail }) },
    errors: ['NOT_FOUND'],
    handler: async ({ auth, params }) => ({ body: { session: kycSessionJson(await getKycSession(deps, ownerOf(auth), params.sessionId), url) } }),
  });
}

/** `/api/v1/kyc/sessions`: key only, bare objects, lower-case statuses. */
export function kycV1Routes(api: Api, deps: KycDeps): void {
  const url = deps.config.PUBLIC_URL;

  api.route({
    method: 'post',
    path: '/api/v1/kyc/sessions',
    operationId: 'v1CreateKycSession',
    summary: 'Create a KYC session (v1)',
    description:
      'Answers 201 with the session; it expires 24 hours after creation. `locale` `kz` is Kazakh. Statuses: `pending` → `in_progress` → ' +
      '`completed` or `failed`, or `expired`: the v2 NOT_STARTED, IN_PROGRESS, APPROVED, DECLINED and EXPIRED. After the page the customer ' +
      'is sent to `redirectUrl`. With `webhookUrl`, the result (`kyc.passed`, `kyc.rejected`, `kyc.manual_review`) goes to that URL only, with ' +
      'the headers, signature (the merchant’s HMAC secret) and retries of every delivery; without it, to the console webhooks. Its body is ' +
      '`{ event, timestamp, session: { id, level, status, metadata, reason, updatedAt } }` (v1 statuses). ' +
      'Errors: 400 malformed or schema-invalid input (`VALIDATION_ERROR`), 401 missing or wrong key, 422 a well-formed value refused ' +
      '(`VALIDATION_FAILED`: a webhookUrl to a private, loopback or link-local address, or not https in production). ' +
      KYC_LIFECYCLE +
      ' ' +
      SCORES_DOC,
    tags,
    auth: 'key',
    idempotent: true,
    body: CreateKycSessionV1Body,
    response: { status: 201, schema: KycSessionV1 },
    errors: ['VALIDATION_FAILED'],
    handler: async ({ auth, body }) => {
      const s = await createKycSession(deps, ownerOf(auth), {
        api: 'v1',
        level: body.level,
        language: body.locale === 'kz' ? 'kk' : body.locale,
        returnUrl: body.redirectUrl,
        webhookUrl: body.webhookUrl,
        metadata: body.metadata,
        maxAttempts: body.maxAttempts,
      });
      return { status: 201, body: kycSessionV1Json(s, url) };
    },
  });

  api.route({
    method: 'get',
    path: '/api/v1/kyc/sessions/:sessionId',
    operationId: 'v1GetKycSession',
    summary: 'Get a KYC session (v1)',
    description: 'The session in the v1 shape, as created, with its current status.',
    tags,
    auth: 'key',
    params: KycSessionV1Params,
    response: { status: 200, schema: KycSessionV1 },
    errors: ['NOT_FOUND'],
    handler: async ({ auth, params }) => {
      // v1 ids are opaque strings: anything that is not one of ours is simply not found.
      if (!UUID.test(params.sessionId)) throw new ApiError('NOT_FOUND', `KYC session ${params.sessionId} not found`);
      return { body: kycSessionV1Json(await getKycSession(deps, ownerOf(auth), params.sessionId), url) };
    },
  });
}
