import { Type } from '@sinclair/typebox';
import { Email, HttpUrl, OffsetQuery, StringEnum, Timestamp, Uuid } from '@pay/schemas';
import { RussianPhone } from '../invoices/schemas';

export const KYC_STATUSES = ['NOT_STARTED', 'IN_PROGRESS', 'APPROVED', 'DECLINED', 'EXPIRED'] as const;
export type KycStatus = (typeof KYC_STATUSES)[number];
export const V1_KYC_STATUSES = ['pending', 'in_progress', 'completed', 'failed', 'expired'] as const;
export type V1KycStatus = (typeof V1_KYC_STATUSES)[number];
export const LANGUAGES = ['ru', 'en', 'kk'] as const;
export type Language = (typeof LANGUAGES)[number];
export const LEVELS = ['basic', 'advanced'] as const;
export type KycLevel = (typeof LEVELS)[number];
export const DOCUMENT_TYPES = ['passport', 'id_card'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

/**
 * Why a session was declined, as a code: for the merchant (`declineReason` of its GET) and,
 * in words fit for the customer, on the verification page. The check's own detail (scores,
 * what the zone read) stays with the merchant (`reason`); the customer learns only what to
 * do better, which says nothing of how the check works.
 */
export const DECLINE_REASONS = [
  'DOCUMENT_EXPIRED',
  'DOCUMENT_DATA_INVALID',
  'DOCUMENT_DATA_MISMATCH',
  'UNDERAGE',
  'IMAGE_UNREADABLE',
  /** The picture reads but is smaller than the check needs (MIN_IMAGE_SIDE on each side). */
  'IMAGE_TOO_SMALL',
  'IMAGE_QUALITY',
  'SAME_IMAGE_TWICE',
  'FACE_NOT_FOUND',
  'FACE_MISMATCH',
  'DECLINED_BY_REVIEWER',
  'OTHER',
] as const;
export type DeclineReason = (typeof DECLINE_REASONS)[number];

/** The two vocabularies of one state machine (documented in the OpenAPI and docs/architecture.md). */
export const V1_STATUS: Record<KycStatus, V1KycStatus> = {
  NOT_STARTED: 'pending',
  IN_PROGRESS: 'in_progress',
  APPROVED: 'completed',
  DECLINED: 'failed',
  EXPIRED: 'expired',
};

/** How many times a customer may send documents unless the merchant says otherwise (`maxAttempts`). */
export const DEFAULT_KYC_ATTEMPTS = 3;
export const MAX_KYC_ATTEMPTS = 10;

export const KYC_LIFECYCLE =
  'States (v2 / v1): NOT_STARTED / pending (created, the customer has not sent anything) → IN_PROGRESS / in_progress (documents sent; ' +
  'the automatic check runs, or a person reviews a borderline case, event `kyc.manual_review`) → APPROVED / completed (`kyc.passed`) or ' +
  'DECLINED / failed (`kyc.rejected`). A session whose customer has not sent the documents by `expiresAt` becomes EXPIRED / expired ' +
  '(within about a second; no event). Once the documents are in, the decision is made whatever the time. Approval sets the customer’s ' +
  '`kycStatus` to VERIFIED (the customer is found by e-mail or phone, or created) and raises the trust level, and makes a bound invoice ' +
  '`kycVerified`, so a `kycRequired` invoice can be paid; a decline sets `kycStatus` REJECTED. ' +
  `Attempts: the customer may send documents up to \`maxAttempts\` times (default ${DEFAULT_KYC_ATTEMPTS}, at most ${MAX_KYC_ATTEMPTS}). ` +
  'When the automatic check declines an attempt and attempts remain, the session stays IN_PROGRESS / in_progress with ' +
  '`retryRequired: true` and `declineReason` naming what was wrong; the verification page tells the customer the same in their language ' +
  'and offers to try again, and no event is sent. Only the last attempt’s decline is final (DECLINED / failed, `kyc.rejected`). ' +
  'Final at once, whatever the attempts left: `UNDERAGE` (another attempt cannot change a genuine document’s date of birth) and a ' +
  'reviewer’s decline. A session still waiting for a retry at `expiresAt` ends DECLINED with its last attempt’s reason (`kyc.rejected`).';

export const SCORES_DOC =
  'Scores are from 0 to 1. `faceMatchScore` says how surely the selfie shows the person on the document photo. A face-recognition ' +
  'model (SSD MobileNet v1 face detector, 68-point landmarks and a ResNet-34 face descriptor, run on our servers; nothing is sent ' +
  'elsewhere) finds the most confident face in each picture and describes it by 128 numbers; d is the Euclidean distance between ' +
  'the two descriptions (about 0.1–0.55 for two photos of one person, 0.65 and more for two people). faceMatchScore is 1 for d up ' +
  'to 0.45 and falls linearly to 0 at d = 0.70: 0.8 at d = 0.50 and 0.4 at d = 0.60, the distance at which the model’s authors ' +
  'tell two people apart. It is 0 when it was not measured: no face found in either picture, or the session already declined ' +
  'by its data or pictures. `livenessScore` (the name is the API’s; it is not a liveness check) is the selfie’s image quality: sharpness (variance of the Laplacian on the grey image: ' +
  '0 at 5 or less, 1 at 120 or more, log scale between) times exposure (1 for a mean brightness from 50 to 205 of 255, falling to 0 ' +
  'at black or white). It says a sharp, well-lit camera picture was taken, not that a live person was in front of it. ' +
  'The machine-readable zone (MRZ) is read from the document photo by OCR (tesseract, the MRZ characters only; the `mrz` ' +
  'library repairs O/0-like confusions where a field is numeric or alphabetic and checks every check digit); when none can be ' +
  'read there (a document without one, a blurred photo), the zone typed on the page is checked instead. ' +
  'Decision: declined by any failed hard check (document expired, under 18, an MRZ check digit wrong, the MRZ not matching the ' +
  'typed data, a typed MRZ that is not the one on the photo, image not decodable or smaller than 320×320, the same picture twice, ' +
  'no face on the selfie) or a score under 0.4 ' +
  '(faceMatchScore: the selfie shows someone else; livenessScore or the document photo’s quality: too blurred or dark); sent to ' +
  'a person (manual review) by a score from 0.4 to under 0.8, no face found on the document photo, no MRZ (none readable on ' +
  'the photo and none typed), or the advanced level (proof of address); otherwise approved.';

const NullableString = Type.Union([Type.String(), Type.Null()]);
/** Additive to the documented create bodies. */
const maxAttempts = Type.Optional(
  Type.Integer({
    minimum: 1,
    maximum: MAX_KYC_ATTEMPTS,
    description: `How many times the customer may send documents (default ${DEFAULT_KYC_ATTEMPTS}); a declined attempt with attempts left asks the customer to try again`,
  }),
);
const DateOnly = Type.String({ format: 'date', description: '`YYYY-MM-DD`' });
const Score = Type.Number({ minimum: 0, maximum: 1 });

export const CreateKycSessionBody = Type.Object(
  {
    invoiceId: Type.Optional({ ...Uuid, description: 'An invoice of the caller’s, in the key’s mode, to bind: its approval makes the invoice `kycVerified`' }),
    customerEmail: Type.Optional({ ...Email, description: 'Default: the bound invoice’s customerEmail' }),
    customerPhone: Type.Optional({ ...RussianPhone, description: '`+7XXXXXXXXXX`; default: the bound invoice’s customerPhone' }),
    customerId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The merchant’s own customer id, returned as given' })),
    callbackUrl: Type.Optional({ ...HttpUrl, description: 'Where the customer is sent after the verification page' }),
    language: Type.Optional(StringEnum(LANGUAGES, { description: 'Language of the verification page; default `ru`' })),
    maxAttempts,
  },
  { additionalProperties: false },
);

/** The fields of `verification` the list shows. */
const verificationSubset = {
  firstName: Type.String(),
  lastName: Type.String(),
  fullName: Type.String({ description: 'First, middle and last name' }),
  dateOfBirth: DateOnly,
  documentType: StringEnum(DOCUMENT_TYPES),
  documentCountry: Type.String({ pattern: '^[A-Z]{3}$', examples: ['KAZ'], description: 'ISO 3166-1 alpha-3' }),
  faceMatchScore: { ...Score, description: 'See the scores described on the create operation' },
  livenessScore: {
    ...Score,
    description: 'The selfie’s image quality, sharpness × exposure (not a liveness check: it says a sharp, well-lit camera picture was taken); see the scores described on the create operation',
  },
  verifiedAt: Timestamp,
};

export const VerificationSummary = Type.Object(verificationSubset, { title: 'KycVerificationSummary', additionalProperties: false, description: 'Null unless the session is APPROVED' });
export const VerificationDetail = Type.Object(
  {
    ...verificationSubset,
    middleName: NullableString,
    documentNumber: Type.String({ description: 'Masked: all but the last 4 characters are `*`' }),
    documentIssuedAt: Type.Union([DateOnly, Type.Null()]),
    documentExpiresAt: DateOnly,
  },
  { title: 'KycVerification', additionalProperties: false, description: 'Null unless the session is APPROVED' },
);

const common = {
  id: Uuid,
  sessionId: Type.String({ description: 'Verification-side identifier (`kyc_…`)' }),
  status: StringEnum(KYC_STATUSES),
  invoiceId: Type.Union([Uuid, Type.Null()]),
  customerEmail: NullableString,
  customerPhone: NullableString,
  customerId: NullableString,
  createdAt: Timestamp,
};
const verificationUrl = Type.String({ description: 'The hosted verification page: send the customer here' });

export const CreatedKycSession = Type.Object({ ...common, verificationUrl, expiresAt: Timestamp }, { title: 'CreatedKycSession', additionalProperties: false });
export const KycSessionListItem = Type.Object(
  { ...common, verification: Type.Union([VerificationSummary, Type.Null()]) },
  { title: 'KycSessionListItem', additionalProperties: false },
);
/** Additive to the documented session: why it was declined, as a code, and the attempts. */
const attemptFields = {
  declineReason: Type.Union([StringEnum(DECLINE_REASONS), Type.Null()], {
    description:
      'The latest declined attempt’s reason as a code: the first failed check (`DOCUMENT_EXPIRED`, `FACE_MISMATCH`, ...), or ' +
      '`DECLINED_BY_REVIEWER`. Set when the session is DECLINED, or IN_PROGRESS with `retryRequired`; null otherwise. `reason` of the ' +
      'kyc.rejected event has the details',
  }),
  retryRequired: Type.Boolean({ description: 'An attempt was declined and attempts remain: the session waits for the customer to try again' }),
  maxAttempts: Type.Integer({ minimum: 1, description: 'How many times the customer may send documents' }),
  attemptsUsed: Type.Integer({ minimum: 0, description: 'How many times the customer has sent documents' }),
  attemptsRemaining: Type.Integer({ minimum: 0, description: 'How many more times the customer may send documents; 0 once the session is decided or expired' }),
};
export const KycSessionDetail = Type.Object(
  { ...common, verificationUrl, verification: Type.Union([VerificationDetail, Type.Null()]), expiresAt: Timestamp, ...attemptFields },
  { title: 'KycSession', additionalProperties: false },
);

export const ListKycSessionsQuery = Type.Object(
  { ...OffsetQuery(100), status: Type.Optional(StringEnum(KYC_STATUSES)), invoiceId: Type.Optional(Uuid) },
  { additionalProperties: false },
);
export const KycSessionParams = Type.Object({ sessionId: Uuid });

export const CreateKycSessionV1Body = Type.Object(
  {
    level: StringEnum(LEVELS, { description: '`basic`: document and selfie; `advanced`: also a proof of address' }),
    redirectUrl: { ...HttpUrl, description: 'Where the customer is sent after the verification page' },
    metadata: Type.Optional(
      Type.Record(Type.String({ maxLength: 40 }), Type.Unknown(), { maxProperties: 50, description: 'Free-form (at most 50 keys), returned as given' }),
    ),
    locale: Type.Optional(StringEnum(['ru', 'en', 'kz'] as const, { description: 'Default `ru`; Kazakh is `kz` here (`kk` in v2)' })),
    webhookUrl: Type.Optional({
      ...HttpUrl,
      description: 'The result event goes to this URL instead of the console webhooks, signed with the merchant’s HMAC secret (X-SVC-Signature)',
    }),
    maxAttempts,
  },
  { additionalProperties: false },
);

export const KycSessionV1 = Type.Object(
  {
    id: Type.String(),
    level: StringEnum(LEVELS),
    status: StringEnum(V1_KYC_STATUSES),
    verificationUrl,
    metadata: Type.Record(Type.String(), Type.Unknown(), { description: 'As given at creation; `{}` when none' }),
    createdAt: Timestamp,
    expiresAt: Timestamp,
    ...attemptFields,
  },
  { title: 'V1KycSession', additionalProperties: false },
);
export const KycSessionV1Params = Type.Object({ sessionId: Type.String({ minLength: 1, maxLength: 64 }) });
